//===- llmc.cpp - the llmc command-line driver ----------------------------===//
//
// Composes the linked frontend and backend plugins:
//   llmc --list-plugins
//   llmc pieces -m <checkpoint> [--piece NAME] [--list]
//   llmc eval -m <checkpoint> --input-ids 1,2,3 [--max-new-tokens N] ...
//   llmc convert -m <checkpoint> -c <chip> -q <mode> [--pieces a,b] -o x.llmc
//   llmc merge a.llmc b.llmc ... -o model.llmc
//   llmc calibrate -m <checkpoint> [--prompts F] [--method kl] -o table.txt
//   llmc run -m <model.llmc> --input-ids 1,2,3 | -p "text" [...]
//   llmc chat -m <model.llmc> [--system "..."] [...]
//   llmc inspect <model.llmc> [--json]
//   llmc compare -m <checkpoint> -c <chip> -q <mode> --piece NAME [--dump DIR]
//   llmc tokenize -m <checkpoint dir | tokenizer.json> --text-file F.jsonl
//   llmc template --template-file T.jinja --context C.json [--date D]
//
// run, chat, serve, inspect and template need no compiler: they are
// RuntimeCommands.cpp's, on CLI11, which llmc-run (LlmcRun.cpp) serves
// alone; the others are on llvm::cl.
//
//===----------------------------------------------------------------------===//

#include "plugins/LinkedPlugins.h"
#include "plugins/Registry.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/RuntimeCommands.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <vector>

namespace cl = llvm::cl;

/// llmc's own top-level options: --help lists these, not the code
/// generation options of the LLVM libraries it links.
static cl::OptionCategory llmcCategory("llmc options");
static cl::opt<bool> listPlugins(
    "list-plugins",
    cl::desc("Print the frontends and chip backends linked into llmc"),
    cl::cat(llmcCategory));

namespace llmc {

cl::SubCommand &getPiecesCommand() {
  static cl::SubCommand command("pieces",
                                "Print the top IR of a model's pieces");
  return command;
}

cl::SubCommand &getEvalCommand() {
  static cl::SubCommand command(
      "eval", "Generate greedily with the top interpreter (the golden model)");
  return command;
}

cl::SubCommand &getTokenizeCommand() {
  static cl::SubCommand command(
      "tokenize", "Print the token ids of lines of text (JSON strings)");
  return command;
}

cl::SubCommand &getConvertCommand() {
  static cl::SubCommand command(
      "convert", "Compile a checkpoint into a .llmc binary for a chip");
  return command;
}

cl::SubCommand &getMergeCommand() {
  static cl::SubCommand command(
      "merge",
      "Merge binaries of some pieces each (convert --pieces) into one");
  return command;
}

cl::SubCommand &getCalibrateCommand() {
  static cl::SubCommand command(
      "calibrate", "Measure the activation ranges INT8 quantizes with");
  return command;
}

cl::SubCommand &getCompareCommand() {
  static cl::SubCommand command(
      "compare", "Compare every op of one compiled piece on its chip's device "
                 "with the top interpreter");
  return command;
}

} // namespace llmc

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  if (absl::Status status = llmc::enterInvocationDirectory(); !status.ok())
    return llmc::reportError(status);
  if (argc > 1 && llmc::isRuntimeCommand(argv[1]))
    return llmc::runRuntimeCommandLine(argc, argv, "llmc");
  // The runtime's commands, for --help to list (they never parse here).
  std::vector<std::unique_ptr<cl::SubCommand>> runtimeCommands;
  for (const llmc::RuntimeCommand &command : llmc::getRuntimeCommands())
    runtimeCommands.push_back(
        std::make_unique<cl::SubCommand>(command.name, command.description));
  cl::HideUnrelatedOptions(llmcCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "llmc: compiles LLM checkpoints into binaries for TPU-class "
      "accelerators\n");

  llvm::Expected<std::unique_ptr<llmc::plugins::Registry>> registry =
      llmc::plugins::createLinkedPluginRegistry();
  if (!registry)
    return llmc::reportError(registry.takeError());

  if (llmc::getPiecesCommand())
    return llmc::runPiecesCommand(**registry);
  if (llmc::getEvalCommand())
    return llmc::runEvalCommand(**registry);
  if (llmc::getConvertCommand())
    return llmc::runConvertCommand(**registry);
  if (llmc::getMergeCommand())
    return llmc::runMergeCommand();
  if (llmc::getCalibrateCommand())
    return llmc::runCalibrateCommand(**registry);
  if (llmc::getCompareCommand())
    return llmc::runCompareCommand(**registry);
  if (llmc::getTokenizeCommand())
    return llmc::runTokenizeCommand(**registry);
  if (listPlugins) {
    llvm::outs() << (*registry)->describe();
    return 0;
  }
  cl::PrintHelpMessage();
  return 1;
}
