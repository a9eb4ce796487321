//===- ReadBandwidth.cpp - what the host benchmarks measure against -------===//

#include "backends/host/kernels/bench/ReadBandwidth.h"

#include "backends/common/cmodel/HugePageMemory.h"

#include <cstring>
#include <memory>
#include <vector>

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
  // (HugePageMemory.h): over 4 KiB pages the prefetchers restart at every
  // page, and the roofline would understate what the machine reads.
  std::unique_ptr<cmodel::HugePageMemory> memory =
      cmodel::HugePageMemory::allocate(n * 4);
  if (!memory)
    return 0;
  float *data = reinterpret_cast<float *>(memory->bytes().data());
  pool.parallelFor(n, 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      data[i] = float(i & 7);
  });
  std::vector<double> partial(pool.size() * 16);
  double seconds = bestTime(
      [&] {
        pool.parallelFor(n, 1 << 16, [&](int64_t b, int64_t e) {
          partial[(b / (1 << 16)) % partial.size()] =
              sumFloats(data + b, e - b);
        });
      },
      2.0, 5);
  return n * 4.0 / seconds / 1e9;
}

} // namespace llmc::host
