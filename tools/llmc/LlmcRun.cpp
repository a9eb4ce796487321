//===- LlmcRun.cpp - llmc-run, the runtime's command line -----------------===//
//
// What a deployed device needs of llmc's command line, linked against the
// runtime alone (no frontend, dialect or backend of the compiler):
//   llmc-run run -m <model.llmc> --input-ids 1,2,3 | -p "text" [...]
//   llmc-run chat -m <model.llmc> [--system "..."] [...]
//   llmc-run serve -m <model.llmc> [--port N] [...]
//   llmc-run inspect <model.llmc> [--json]
//   llmc-run template --template-file T.jinja --context C.json [--date D]
// Each subcommand takes the options `llmc` gives it.
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/Commands.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

namespace cl = llvm::cl;

static cl::OptionCategory runtimeCategory("llmc-run options");

namespace llmc {

/// llmc-run has no eval: the options run shares with `llmc eval` belong to
/// a subcommand that is never registered, so no command line reaches them.
cl::SubCommand &getEvalCommand() {
  static cl::SubCommand unregistered;
  return unregistered;
}

} // namespace llmc

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  if (llvm::Error error = llmc::enterInvocationDirectory())
    return llmc::reportError(std::move(error));
  cl::HideUnrelatedOptions(runtimeCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "llmc-run: runs compiled .llmc binaries (llmc's runtime alone)\n");
  if (llmc::getRunCommand())
    return llmc::runRunCommand();
  if (llmc::getChatCommand())
    return llmc::runChatCommand();
  if (llmc::getServeCommand())
    return llmc::runServeCommand();
  if (llmc::getInspectCommand())
    return llmc::runInspectCommand();
  if (llmc::getTemplateCommand())
    return llmc::runTemplateCommand();
  cl::PrintHelpMessage();
  return 1;
}
