//===- BinaryOptions.h - the compiled model of run and chat -----*- C++ -*-===//
//
// `-m/--model model.llmc` of `llmc run` and `llmc chat`, opened through the
// C++ API (runtime/llmc.h) on the device of its chip, and the timing lines
// both print after generating.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_BINARYOPTIONS_H
#define LLMC_TOOLS_LLMC_BINARYOPTIONS_H

#include "runtime/llmc.h"

#include "llvm/Support/raw_ostream.h"

namespace llmc {

/// Opens `path` (by default --model) on the device of its chip with
/// --threads kernel threads.
llvm::Expected<std::unique_ptr<Model>>
loadBinaryModel(llvm::StringRef path = "");

/// Prints how long the vision pieces took on `tiles` tiles: `hostSeconds`
/// measured and, when the device `modelled` its time, `deviceSeconds` on
/// `chip`.
void printVisionTimings(llvm::raw_ostream &os, uint64_t tiles,
                        double hostSeconds, double deviceSeconds,
                        llvm::StringRef chip, bool modelled);

/// Prints where the time of `timings` went: the prompt's tokens, the time to
/// the first token, and the decode throughput on the host and, when the
/// device `modelled` its time, on `chip`.
void printTimings(llvm::raw_ostream &os, const GenerateTimings &timings,
                  llvm::StringRef chip, bool modelled);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_BINARYOPTIONS_H
