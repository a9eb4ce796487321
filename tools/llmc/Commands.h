//===- Commands.h - the compiler's subcommands of llmc ---------*- C++ -*-===//
//
// The subcommands that need the compiler, on llvm::cl. run, chat, serve,
// inspect and template are the runtime's (RuntimeCommands.h), on CLI11.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_COMMANDS_H
#define LLMC_TOOLS_LLMC_COMMANDS_H

#include "tools/llmc/CommandSupport.h"
#include "tools/llmc/ReportLlvmError.h"

#include "llvm/Support/CommandLine.h"

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
llvm::cl::SubCommand &getCompareCommand();

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
/// `llmc compare`: one piece's ops on a chip's device against the top
/// interpreter; 0 when every op is within tolerance, 2 when one is not.
int runCompareCommand(const plugins::Registry &registry);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_COMMANDS_H
