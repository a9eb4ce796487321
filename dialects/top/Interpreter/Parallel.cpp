//===- Parallel.cpp - deterministic work splitting for kernels ------------===//

#include "dialects/top/Interpreter/Parallel.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>

namespace llmc::top {

ThreadRunner::ThreadRunner(unsigned threads)
    : threadCount(threads
                      ? threads
                      : llvm::hardware_concurrency().compute_thread_count()) {
  threadCount = std::max(threadCount, 1u);
  if (threadCount > 1)
    workers = std::make_unique<llvm::DefaultThreadPool>(
        llvm::hardware_concurrency(threadCount - 1));
}

ThreadRunner::~ThreadRunner() = default;

void ThreadRunner::forRanges(
    int64_t count, int64_t grain,
    llvm::function_ref<void(int64_t, int64_t)> body) const {
  if (count <= 0)
    return;
  grain = std::max<int64_t>(grain, 1);
  // A few ranges per thread let fast threads take over the work of slow
  // ones; which thread computes a range does not change its result.
  int64_t ranges =
      std::min<int64_t>((count + grain - 1) / grain, int64_t(threadCount) * 4);
  if (!workers || ranges <= 1) {
    body(0, count);
    return;
  }
  std::atomic<int64_t> next{0};
  auto drain = [&] {
    for (int64_t range = next++; range < ranges; range = next++)
      body(range * count / ranges, (range + 1) * count / ranges);
  };
  llvm::ThreadPoolTaskGroup group(*workers);
  int64_t helpers = std::min<int64_t>(threadCount - 1, ranges - 1);
  for (int64_t i = 0; i < helpers; ++i)
    group.async(drain);
  drain();
  group.wait();
}

} // namespace llmc::top
