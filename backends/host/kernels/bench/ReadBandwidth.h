//===- ReadBandwidth.h - what the host benchmarks measure against -*- C++ -*-===//
//
// The memory read bandwidth the host benchmarks compare the kernels with
// (a STREAM-style sum), and their timing helpers.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_BENCH_READBANDWIDTH_H
#define LLMC_BACKENDS_HOST_KERNELS_BENCH_READBANDWIDTH_H

#include "backends/host/kernels/WorkerPool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace llmc::host {

/// Seconds on a monotonic clock.
inline double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Runs `fn` until `minSeconds` have passed (at least `minRuns` times) and
/// returns the best time of a run.
template <typename Fn>
double bestTime(Fn &&fn, double minSeconds = 0.3, int minRuns = 3) {
  double best = 1e30, start = now();
  for (int run = 0; run < minRuns || now() - start < minSeconds; ++run) {
    double t0 = now();
    fn();
    best = std::min(best, now() - t0);
  }
  return best;
}

/// Sums [0, n) with four vector accumulators: a read at full speed.
double sumFloats(const float *data, int64_t n);

/// STREAM-style read bandwidth in GB/s: the sum of a 1 GiB float array on
/// huge pages, each of the pool's threads summing a contiguous part, best
/// of runs; 0 when the memory cannot be had.
double measureReadBandwidth(WorkerPool &pool);

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_KERNELS_BENCH_READBANDWIDTH_H
