//===- llmc.cpp - the llmc command-line driver ----------------------------===//
//
// Composes the linked frontend and backend plugins. Subcommands that convert
// and run models build on the registry created here.
//
//===----------------------------------------------------------------------===//

#include "plugins/LinkedPlugins.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::OptionCategory llmcCategory("llmc options");

static cl::opt<bool> listPlugins(
    "list-plugins",
    cl::desc("Print the frontends and chip backends linked into llmc"),
    cl::cat(llmcCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(llmcCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "llmc: compiles LLM checkpoints into binaries for TPU-class "
      "accelerators\n");

  llvm::Expected<std::unique_ptr<llmc::plugins::Registry>> registry =
      llmc::plugins::createLinkedPluginRegistry();
  if (!registry) {
    llvm::WithColor::error(llvm::errs(), "llmc")
        << llvm::toString(registry.takeError()) << "\n";
    return 1;
  }

  if (listPlugins) {
    llvm::outs() << (*registry)->describe();
    return 0;
  }
  cl::PrintHelpMessage();
  return 1;
}
