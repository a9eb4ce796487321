//===- WorkerPoolTest.cpp - chunks, nesting and concurrency ---------------===//

#include "backends/host/kernels/WorkerPool.h"

#include "gtest/gtest.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace llmc::host {
namespace {

TEST(WorkerPoolTest, ChunksCoverTheRangeOnce) {
  for (unsigned threads : {1u, 2u, 3u, 5u}) {
    WorkerPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int64_t n : {0, 1, 5, 100, 1001})
      for (int64_t grain : {1, 7, 64}) {
        std::vector<std::atomic<int>> hits(n);
        std::mutex mutex;
        std::vector<std::pair<int64_t, int64_t>> chunks;
        pool.parallelFor(n, grain, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            ++hits[i];
          std::lock_guard<std::mutex> lock(mutex);
          chunks.push_back({begin, end});
        });
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[i].load(), 1) << "n " << n << " grain " << grain;
        EXPECT_LE(chunks.size(), threads);
        for (auto [begin, end] : chunks) {
          EXPECT_LT(begin, end);
          EXPECT_EQ(begin % grain, 0);
          EXPECT_TRUE(end == n || end % grain == 0);
        }
      }
  }
}

TEST(WorkerPoolTest, UsesEveryThread) {
  WorkerPool pool(3);
  std::mutex mutex;
  std::vector<std::thread::id> ids;
  pool.parallelFor(3, 1, [&](int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(mutex);
    ids.push_back(std::this_thread::get_id());
  });
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(ids[1], ids[2]);
  EXPECT_NE(ids[0], ids[2]);
}

TEST(WorkerPoolTest, NestedCallsRunSerially) {
  WorkerPool pool(2);
  std::atomic<int64_t> total{0};
  pool.parallelFor(4, 1, [&](int64_t b0, int64_t e0) {
    for (int64_t i = b0; i < e0; ++i)
      pool.parallelFor(10, 1,
                       [&](int64_t b1, int64_t e1) { total += e1 - b1; });
  });
  EXPECT_EQ(total.load(), 40);
}

TEST(WorkerPoolTest, ManyShortLoopsAndSleepingWorkers) {
  // No spinning: workers sleep between loops, and must still wake.
  for (unsigned spin : {0u, 50u}) {
    WorkerPool pool(3, spin);
    int64_t sum = 0;
    std::vector<int64_t> part(3);
    for (int round = 0; round < 1000; ++round) {
      pool.parallelFor(30, 1, [&](int64_t b, int64_t e) {
        int64_t s = 0;
        for (int64_t i = b; i < e; ++i)
          s += i;
        part[b / 10] = s;
      });
      sum += part[0] + part[1] + part[2];
      if (round % 250 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
    EXPECT_EQ(sum, 1000 * 435);
  }
}

TEST(WorkerPoolTest, CallersTakeTurns) {
  WorkerPool pool(2);
  std::atomic<int64_t> total{0};
  auto caller = [&] {
    for (int round = 0; round < 200; ++round)
      pool.parallelFor(8, 1, [&](int64_t b, int64_t e) { total += e - b; });
  };
  std::thread other(caller);
  caller();
  other.join();
  EXPECT_EQ(total.load(), 2 * 200 * 8);
}

} // namespace
} // namespace llmc::host
