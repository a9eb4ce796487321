//===- TilingSearch.h - choosing a tiling by the chip's time model -*- C++ -*-===//
//
// An op emitter lists the tilings it can use (how its work spreads over the
// lanes, how big its tiles are); the search emits the op with each of them
// into a copy of the Emitter holding the piece so far, costs that stream
// with the cmodel's time model (cmodel::estimateCycles) and keeps the
// fastest. Costing the op in its context counts how its first loads overlap
// the previous op's last computations. The cost is the model the
// op is then measured by, not a separate estimate that could disagree with
// it, and it counts what a formula would have to restate: DMA latency per
// command, how loads overlap computation, the busiest lane.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_TILINGSEARCH_H
#define LLMC_BACKENDS_COMMON_CODEGEN_TILINGSEARCH_H

#include "backends/common/codegen/Emitter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace llmc::codegen {

/// The modelled cycles of the stream `context` holds followed by what `emit`
/// adds to a copy of it; an error when the candidate cannot be emitted (it
/// does not fit local memory).
llvm::Expected<uint64_t>
estimateCandidate(const Emitter &context,
                  llvm::function_ref<llvm::Error(Emitter &)> emit);

/// The fastest of `candidates` after `context` by estimateCandidate (the first on a tie, so
/// list the established tiling first); the first candidate's error when
/// none can be emitted.
template <typename Tiling>
llvm::Expected<Tiling>
chooseFastest(const Emitter &context, llvm::ArrayRef<Tiling> candidates,
              llvm::function_ref<llvm::Error(Emitter &, const Tiling &)> emit) {
  std::optional<Tiling> best;
  uint64_t bestCycles = 0;
  llvm::Error firstError = llvm::Error::success();
  for (const Tiling &candidate : candidates) {
    llvm::Expected<uint64_t> cycles = estimateCandidate(
        context, [&](Emitter &trial) { return emit(trial, candidate); });
    if (!cycles) {
      if (firstError || best)
        llvm::consumeError(cycles.takeError());
      else
        firstError = cycles.takeError();
      continue;
    }
    if (!best || *cycles < bestCycles) {
      best = candidate;
      bestCycles = *cycles;
    }
  }
  if (!best)
    return std::move(firstError);
  llvm::consumeError(std::move(firstError));
  return *best;
}

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_TILINGSEARCH_H
