//===- Parallel.h - deterministic work splitting for kernels ---*- C++ -*-===//
//
// Kernels split their output, never a reduction, into ranges that threads
// compute independently: every output element is computed by the same code
// in the same order whichever range and thread it falls in, so results do
// not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_PARALLEL_H
#define LLMC_DIALECTS_TOP_INTERPRETER_PARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>

namespace llvm {
class ThreadPoolInterface;
} // namespace llvm

namespace llmc::top {

/// Runs ranges of independent work items on a fixed set of threads.
class ThreadRunner {
public:
  /// Uses `threads` threads including the caller's; 0 means one per hardware
  /// thread.
  explicit ThreadRunner(unsigned threads);
  ~ThreadRunner();

  unsigned getThreadCount() const { return threadCount; }

  /// Calls `body(begin, end)` on disjoint non-empty ranges that together
  /// cover [0, count). Ranges hold about `grain` items or more, so work too
  /// small to pay for waking threads stays on the caller. Must not be called
  /// from inside `body`.
  void forRanges(int64_t count, int64_t grain,
                 llvm::function_ref<void(int64_t, int64_t)> body) const;

private:
  unsigned threadCount;
  /// The threads besides the caller's; null when there are none.
  std::unique_ptr<llvm::ThreadPoolInterface> workers;
};

} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_INTERPRETER_PARALLEL_H
