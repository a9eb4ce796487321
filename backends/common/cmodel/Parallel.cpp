//===- Parallel.cpp - lanes on host threads -------------------------------===//

#include "backends/common/cmodel/Parallel.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>

namespace llmc::cmodel {

LaneRunner::LaneRunner(unsigned threads)
    : threadCount(threads
                      ? threads
                      : llvm::hardware_concurrency().compute_thread_count()) {
  threadCount = std::max(threadCount, 1u);
  if (threadCount > 1)
    workers = std::make_unique<llvm::DefaultThreadPool>(
        llvm::hardware_concurrency(threadCount - 1));
}

LaneRunner::~LaneRunner() = default;

void LaneRunner::forEach(int64_t count, bool parallel,
                         llvm::function_ref<void(int64_t)> body) const {
  if (!workers || !parallel || count <= 1) {
    for (int64_t i = 0; i < count; ++i)
      body(i);
    return;
  }
  // Items are taken one at a time: lanes are few (tens) and similar in size.
  std::atomic<int64_t> next{0};
  auto drain = [&] {
    for (int64_t i = next++; i < count; i = next++)
      body(i);
  };
  llvm::ThreadPoolTaskGroup group(*workers);
  int64_t helpers = std::min<int64_t>(threadCount - 1, count - 1);
  for (int64_t i = 0; i < helpers; ++i)
    group.async(drain);
  drain();
  group.wait();
}

} // namespace llmc::cmodel
