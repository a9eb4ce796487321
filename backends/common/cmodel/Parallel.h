//===- Parallel.h - lanes on host threads -----------------------*- C++ -*-===//
//
// The lanes of a command compute independently, so the cmodel runs them on
// host threads. Each lane is computed by the same code whichever thread
// takes it, so results never depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_PARALLEL_H
#define LLMC_BACKENDS_COMMON_CMODEL_PARALLEL_H

#include "absl/functional/function_ref.h"

#include <cstdint>
#include <memory>

namespace llmc::cmodel {

class LaneRunner {
public:
  /// Uses `threads` threads including the caller's; 0 means one per
  /// hardware thread.
  explicit LaneRunner(unsigned threads);
  ~LaneRunner();

  unsigned getThreadCount() const { return threadCount; }

  /// Calls `body(i)` once for every i in [0, count): on several threads
  /// when `parallel` (the work is worth waking them), else on the caller's.
  void forEach(int64_t count, bool parallel,
               absl::FunctionRef<void(int64_t)> body) const;

private:
  struct Workers;

  unsigned threadCount;
  /// The threads besides the caller's; null when there are none.
  std::unique_ptr<Workers> workers;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_PARALLEL_H
