//===- RuntimeCommands.cpp - the subcommands that need no compiler --------===//
//
// run, chat, serve, inspect and template work on compiled binaries and chat
// templates alone: llmc and llmc-run both serve them, and llmc-run links
// nothing of the compiler (runtime/test:no_compiler_test).
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace cl = llvm::cl;

namespace llmc {

cl::SubCommand &getTemplateCommand() {
  static cl::SubCommand command(
      "template", "Render a Jinja chat template with the variables of a JSON "
                  "file, as apply_chat_template does");
  return command;
}

cl::SubCommand &getRunCommand() {
  static cl::SubCommand command(
      "run", "Generate with a compiled .llmc binary on its chip's cmodel");
  return command;
}

cl::SubCommand &getChatCommand() {
  static cl::SubCommand command(
      "chat", "Chat with a compiled .llmc binary, a line of stdin per turn");
  return command;
}

cl::SubCommand &getServeCommand() {
  static cl::SubCommand command(
      "serve", "Serve a compiled .llmc binary over OpenAI's HTTP API");
  return command;
}

cl::SubCommand &getInspectCommand() {
  static cl::SubCommand command("inspect",
                                "Print what a compiled .llmc binary holds");
  return command;
}

int reportError(llvm::Error error) {
  llvm::WithColor::error(llvm::errs(), "llmc")
      << llvm::toString(std::move(error)) << "\n";
  return 1;
}

void printProgressTenths(llvm::StringRef label, int64_t done, int64_t total,
                         llvm::StringRef unit) {
  if (done == total || (10 * done / total) != (10 * (done - 1) / total))
    llvm::errs() << label << ": " << done << "/" << total << " " << unit
                 << "\n";
}

llvm::Error writeFileAtomically(
    llvm::StringRef path,
    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  // writeToOutput writes a temporary file beside `path` and renames it.
  if (llvm::Error error = llvm::writeToOutput(path, write))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write %s: %s", path.str().c_str(),
                                   llvm::toString(std::move(error)).c_str());
  return llvm::Error::success();
}

llvm::Error enterInvocationDirectory() {
  const char *directory = std::getenv("BUILD_WORKING_DIRECTORY");
  if (!directory)
    return llvm::Error::success();
  if (std::error_code error = llvm::sys::fs::set_current_path(directory))
    return llvm::createStringError(
        error, "cannot enter BUILD_WORKING_DIRECTORY '%s': %s", directory,
        error.message().c_str());
  return llvm::Error::success();
}

} // namespace llmc
