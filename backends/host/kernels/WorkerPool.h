//===- WorkerPool.h - threads for short parallel loops ----------*- C++ -*-===//
//
// A decode step runs a few hundred kernels of 10 to 500 microseconds each,
// so handing a loop to other threads must cost well under a microsecond:
// llvm::ThreadPool's queue and futures cost more than that. The pool keeps
// its threads, which spin for a while after each loop (the next kernel comes
// soon) and then sleep. The while is 2 ms: between two decode steps (the
// logits' cast, sampling, the session's bookkeeping) more than 200 us pass,
// and a sleeping worker took about 100 us to wake on a virtual machine,
// at every step's first product.
//
// parallelFor splits a range into one contiguous chunk per thread. The
// kernels compute every output element with the same operations whichever
// chunk holds it, so results never depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_WORKERPOOL_H
#define LLMC_BACKENDS_HOST_KERNELS_WORKERPOOL_H

#include "absl/functional/function_ref.h"
#include <cstdint>
#include <memory>
#include <utility>

namespace llmc::host {

class WorkerPool {
public:
  /// `threads` workers including the caller; 0 means one per physical core
  /// the process may run on (getPhysicalCoreCount). Idle workers spin for
  /// `spinMicroseconds` before they sleep.
  explicit WorkerPool(unsigned threads = 0, unsigned spinMicroseconds = 2000);
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  /// The number of threads, the caller's included.
  unsigned size() const { return threadCount; }

  /// Calls fn(begin, end) over [0, n) split into min(size(), n / grain
  /// rounded up) contiguous chunks (whole multiples of `grain` but the last),
  /// one a thread, the caller taking the first; returns when all are done.
  /// A call from inside `fn` runs serially on the calling thread, and calls
  /// from several threads take turns.
  void parallelFor(int64_t n, int64_t grain,
                   absl::FunctionRef<void(int64_t, int64_t)> fn);

  /// Chunk `index` of the `chunks` that [0, n) is split into.
  static std::pair<int64_t, int64_t> getChunk(int64_t n, int64_t grain,
                                              unsigned chunks, unsigned index);

private:
  struct State;
  void runWorker(unsigned index);

  unsigned threadCount;
  std::unique_ptr<State> state;
};

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_KERNELS_WORKERPOOL_H
