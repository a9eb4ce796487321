//===- ReadBandwidth.cpp - what the host benchmarks measure against -------===//

#include "backends/host/kernels/bench/ReadBandwidth.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <sys/mman.h>

namespace llmc::host {

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
double
sumFloats(const float *data, int64_t n) {
  // Sixteen-float vectors; the clones map them to the widest registers.
  typedef float Vec __attribute__((vector_size(64)));
  Vec acc[4] = {};
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int a = 0; a < 4; ++a) {
      Vec v;
      std::memcpy(&v, data + i + 16 * a, sizeof(v));
      acc[a] += v;
    }
  double sum = 0;
  for (int a = 0; a < 4; ++a)
    for (int l = 0; l < 16; ++l)
      sum += acc[a][l];
  for (; i < n; ++i)
    sum += data[i];
  return sum;
}

double measureReadBandwidth(WorkerPool &pool) {
  const int64_t n = (int64_t(1) << 30) / 4;
  // On transparent huge pages, as the host device keeps its weights
  // (HugePageCopy.h): over 4 KiB pages the prefetchers restart at every
  // page, and the roofline would understate what the machine reads.
  constexpr size_t kHugePage = size_t(2) << 20;
  std::unique_ptr<float[], decltype(&std::free)> data(
      static_cast<float *>(std::aligned_alloc(kHugePage, n * 4)), &std::free);
  if (!data)
    return 0;
  madvise(data.get(), n * 4, MADV_HUGEPAGE);
  pool.parallelFor(n, 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      data[i] = float(i & 7);
  });
  std::vector<double> partial(pool.size() * 16);
  double seconds = bestTime(
      [&] {
        pool.parallelFor(n, 1 << 16, [&](int64_t b, int64_t e) {
          partial[(b / (1 << 16)) % partial.size()] =
              sumFloats(data.get() + b, e - b);
        });
      },
      2.0, 5);
  return n * 4.0 / seconds / 1e9;
}

} // namespace llmc::host
