//===- Parallel.cpp - lanes on host threads -------------------------------===//

#include "backends/common/cmodel/Parallel.h"

#include "absl/functional/function_ref.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <sched.h>

namespace llmc::cmodel {

/// Threads that sleep until forEach hands them a loop to help with. A loop
/// is handed out as a round: `helpers` of the threads join it, and forEach
/// returns once they have all left it.
struct LaneRunner::Workers {
  explicit Workers(unsigned count) {
    for (unsigned i = 0; i < count; ++i)
      threads.emplace_back([this] { work(); });
  }

  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    for (std::thread &thread : threads)
      thread.join();
  }

  /// Runs `drain` on the caller and on `helpers` threads.
  void run(absl::FunctionRef<void()> drain, unsigned helpers) {
    std::lock_guard<std::mutex> serial(callMutex);
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = &drain;
      openSlots = helpers;
      running = helpers;
      ++round;
    }
    wake.notify_all();
    drain();
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return running == 0; });
    job = nullptr;
  }

  void work() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return stopping || (round != seen && openSlots); });
      if (stopping)
        return;
      seen = round;
      --openSlots;
      absl::FunctionRef<void()> *drain = job;
      lock.unlock();
      (*drain)();
      lock.lock();
      if (--running == 0)
        done.notify_one();
    }
  }

  std::vector<std::thread> threads;
  /// Serializes forEach calls from several threads.
  std::mutex callMutex;
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable done;
  absl::FunctionRef<void()> *job = nullptr;
  uint64_t round = 0;
  unsigned openSlots = 0;
  unsigned running = 0;
  bool stopping = false;
};

/// The hardware threads this process may run on.
static unsigned getAvailableThreads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return unsigned(CPU_COUNT(&set));
  return std::thread::hardware_concurrency();
}

LaneRunner::LaneRunner(unsigned threads)
    : threadCount(threads ? threads : getAvailableThreads()) {
  threadCount = std::max(threadCount, 1u);
  if (threadCount > 1)
    workers = std::make_unique<Workers>(threadCount - 1);
}

LaneRunner::~LaneRunner() = default;

void LaneRunner::forEach(int64_t count, bool parallel,
                         absl::FunctionRef<void(int64_t)> body) const {
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
  unsigned helpers = unsigned(std::min<int64_t>(threadCount - 1, count - 1));
  workers->run(drain, helpers);
}

} // namespace llmc::cmodel
