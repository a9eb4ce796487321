//===- WorkerPool.cpp - persistent threads for short parallel loops -------===//
//
// One loop at a time: the caller publishes the loop's function, bounds and
// chunk count, then bumps `job`, a word holding an epoch counter and the
// chunk count. Each worker watches `job`; worker w runs chunk w if there is
// one and then decrements `pending`, for which the caller waits. Packing the
// chunk count into the word a worker wakes on means a worker without a chunk
// reads nothing else, so it cannot race with the caller publishing the next
// loop.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/WorkerPool.h"

#include "backends/host/kernels/CpuFeatures.h"

#include "absl/functional/function_ref.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace llmc::host {

static void cpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#else
  std::this_thread::yield();
#endif
}

/// How deep the current thread is inside parallelFor bodies: a nested call
/// runs serially instead of waiting for threads that are busy with its
/// caller.
static thread_local int nestingDepth = 0;

namespace {
struct NestingScope {
  NestingScope() { ++nestingDepth; }
  ~NestingScope() { --nestingDepth; }
};
} // namespace

struct WorkerPool::State {
  /// Serializes callers.
  std::mutex callMutex;

  // The current loop, written by the caller before it bumps `job`.
  const absl::FunctionRef<void(int64_t, int64_t)> *fn = nullptr;
  int64_t n = 0, grain = 1;

  /// epoch << 16 | chunk count.
  alignas(64) std::atomic<uint64_t> job{0};
  alignas(64) std::atomic<unsigned> pending{0};
  alignas(64) std::atomic<unsigned> sleepers{0};
  std::atomic<bool> stop{false};
  std::mutex sleepMutex;
  std::condition_variable wake;

  std::chrono::microseconds spin{2000};
  std::vector<std::thread> threads;
};

static constexpr unsigned kChunkBits = 16;
static constexpr uint64_t kChunkMask = (uint64_t(1) << kChunkBits) - 1;

WorkerPool::WorkerPool(unsigned threads, unsigned spinMicroseconds)
    : state(std::make_unique<State>()) {
  if (threads == 0)
    threads = getPhysicalCoreCount();
  threadCount = std::min<unsigned>(threads, kChunkMask);
  state->spin = std::chrono::microseconds(spinMicroseconds);
  for (unsigned w = 1; w < threadCount; ++w)
    state->threads.emplace_back([this, w] { runWorker(w); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(state->sleepMutex);
    state->stop.store(true);
    state->job.fetch_add(uint64_t(1) << kChunkBits);
  }
  state->wake.notify_all();
  for (std::thread &thread : state->threads)
    thread.join();
}

std::pair<int64_t, int64_t> WorkerPool::getChunk(int64_t n, int64_t grain,
                                                 unsigned chunks,
                                                 unsigned index) {
  grain = std::max<int64_t>(grain, 1);
  int64_t units = (n + grain - 1) / grain;
  int64_t first = units * index / chunks;
  int64_t last = units * (index + 1) / chunks;
  return {std::min(first * grain, n), std::min(last * grain, n)};
}

void WorkerPool::runWorker(unsigned index) {
  State &s = *state;
  // Workers start in the constructor, before any job (0); a worker that
  // starts late must still see the first job.
  uint64_t seen = 0;
  for (;;) {
    uint64_t job = s.job.load(std::memory_order_acquire);
    if (job == seen) {
      // Spin, checking the clock now and then, and sleep after a while.
      auto deadline = std::chrono::steady_clock::now() + s.spin;
      for (unsigned i = 1;; ++i) {
        cpuRelax();
        job = s.job.load(std::memory_order_acquire);
        if (job != seen)
          break;
        if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline) {
          std::unique_lock<std::mutex> lock(s.sleepMutex);
          s.sleepers.fetch_add(1);
          // The caller bumps `job` and then reads `sleepers`, both
          // sequentially consistent: it either sees this sleeper and
          // notifies under the mutex, or this load sees its job.
          s.wake.wait(lock, [&] { return s.job.load() != seen; });
          s.sleepers.fetch_sub(1);
          job = s.job.load(std::memory_order_acquire);
          break;
        }
      }
    }
    seen = job;
    if (s.stop.load())
      return;
    unsigned chunks = unsigned(job & kChunkMask);
    if (index >= chunks)
      continue;
    {
      NestingScope scope;
      auto [begin, end] = getChunk(s.n, s.grain, chunks, index);
      if (begin < end)
        (*s.fn)(begin, end);
    }
    s.pending.fetch_sub(1, std::memory_order_release);
  }
}

void WorkerPool::parallelFor(int64_t n, int64_t grain,
                             absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0)
    return;
  grain = std::max<int64_t>(grain, 1);
  int64_t units = (n + grain - 1) / grain;
  unsigned chunks = unsigned(std::min<int64_t>(threadCount, units));
  if (chunks <= 1 || nestingDepth > 0) {
    NestingScope scope;
    fn(0, n);
    return;
  }
  State &s = *state;
  std::lock_guard<std::mutex> callLock(s.callMutex);
  s.fn = &fn;
  s.n = n;
  s.grain = grain;
  s.pending.store(chunks - 1, std::memory_order_relaxed);
  uint64_t epoch = (s.job.load(std::memory_order_relaxed) >> kChunkBits) + 1;
  s.job.store(epoch << kChunkBits | chunks);
  if (s.sleepers.load() > 0) {
    std::lock_guard<std::mutex> lock(s.sleepMutex);
    s.wake.notify_all();
  }
  {
    NestingScope scope;
    auto [begin, end] = getChunk(n, grain, chunks, 0);
    fn(begin, end);
  }
  for (unsigned i = 1; s.pending.load(std::memory_order_acquire) != 0; ++i) {
    cpuRelax();
    if (i % 4096 == 0)
      std::this_thread::yield();
  }
}

} // namespace llmc::host
