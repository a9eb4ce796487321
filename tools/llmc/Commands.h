//===- Commands.h - the subcommands of llmc --------------------*- C++ -*-===//

#ifndef LLMC_TOOLS_LLMC_COMMANDS_H
#define LLMC_TOOLS_LLMC_COMMANDS_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

namespace llmc {
namespace plugins {
class Registry;
} // namespace plugins

/// The subcommands, constructed on first use: options in any translation
/// unit may refer to them during static initialization.
llvm::cl::SubCommand &getPiecesCommand();
llvm::cl::SubCommand &getEvalCommand();
llvm::cl::SubCommand &getTokenizeCommand();
llvm::cl::SubCommand &getConvertCommand();
llvm::cl::SubCommand &getMergeCommand();
llvm::cl::SubCommand &getCalibrateCommand();
llvm::cl::SubCommand &getRunCommand();
llvm::cl::SubCommand &getChatCommand();
llvm::cl::SubCommand &getInspectCommand();
llvm::cl::SubCommand &getServeCommand();
llvm::cl::SubCommand &getCompareCommand();
llvm::cl::SubCommand &getTemplateCommand();

/// `llmc pieces`: prints the top IR of a model's pieces.
int runPiecesCommand(const plugins::Registry &registry);
/// `llmc eval`: runs a model through the top interpreter.
int runEvalCommand(const plugins::Registry &registry);
/// `llmc tokenize`: prints the token ids of lines of text.
int runTokenizeCommand(const plugins::Registry &registry);

/// `llmc convert`: compiles a checkpoint into a .llmc binary for a chip.
int runConvertCommand(const plugins::Registry &registry);
/// `llmc merge`: merges binaries of some pieces each into one.
int runMergeCommand();
/// `llmc calibrate`: writes the activation ranges of a checkpoint.
int runCalibrateCommand(const plugins::Registry &registry);
/// `llmc run`: runs a compiled binary on its chip's cmodel.
int runRunCommand();
/// `llmc chat`: an interactive chat with a compiled binary.
int runChatCommand();
/// `llmc inspect`: what a compiled binary holds.
int runInspectCommand();
/// `llmc serve`: an OpenAI-compatible HTTP server over a compiled binary.
int runServeCommand();
/// `llmc compare`: one piece's ops on a chip's device against the top
/// interpreter; 0 when every op is within tolerance, 2 when one is not.
int runCompareCommand(const plugins::Registry &registry);
/// `llmc template`: renders a Jinja chat template with given variables.
int runTemplateCommand();
/// Prints `error` as `llmc: error: ...` and returns exit code 1.
int reportError(llvm::Error error);

/// Enters the directory `bazel run` was started from, so that the paths a
/// user gives are relative to it (Bazel starts the tool in its runfiles).
llvm::Error enterInvocationDirectory();

/// Prints `<label>: <done>/<total> <unit>` on stderr when `done` reaches a
/// new tenth of `total` or the end, for long runs without a progress bar.
void printProgressTenths(llvm::StringRef label, int64_t done, int64_t total,
                         llvm::StringRef unit);

/// Writes `path` through a temporary file renamed into place, so a failure
/// never leaves a half-written output.
llvm::Error
writeFileAtomically(llvm::StringRef path,
                    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_COMMANDS_H
