//===- ComputePeak.cpp - the f32 throughput prefill compares with ---------===//

#include "backends/host/kernels/bench/ComputePeak.h"

#include "backends/host/kernels/CpuFeatures.h"
#include "backends/host/kernels/Intrinsics.h"
#include "backends/host/kernels/bench/ReadBandwidth.h"

#include <vector>

namespace llmc::host {

#if defined(__x86_64__)
// Twelve chains cover the FMA latency (4 cycles) times the two FMA ports
// of current cores, with room to spare. Each function returns its sum so
// that the work is not optimized away.
constexpr int kChains = 12;

LLMC_AVX512 static float fmaChainsAvx512(int64_t iterations) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(float(c));
  const __m512 scale = _mm512_set1_ps(0.999f), step = _mm512_set1_ps(1e-3f);
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_fmadd_ps(acc[c], scale, step);
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    sum += _mm512_reduce_add_ps(acc[c]);
  return sum;
}

LLMC_AVX2 static float fmaChainsAvx2(int64_t iterations) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm256_set1_ps(float(c));
  const __m256 scale = _mm256_set1_ps(0.999f), step = _mm256_set1_ps(1e-3f);
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm256_fmadd_ps(acc[c], scale, step);
  alignas(32) float lanes[8];
  float sum = 0;
  for (int c = 0; c < kChains; ++c) {
    _mm256_store_ps(lanes, acc[c]);
    for (float lane : lanes)
      sum += lane;
  }
  return sum;
}
#endif

double measureFmaPeak(WorkerPool &pool) {
#if defined(__x86_64__)
  const bool avx512 = isIsaSupported(Isa::Avx512);
  if (!avx512 && !isIsaSupported(Isa::Avx2))
    return 0;
  const int64_t lanes = avx512 ? 16 : 8, iterations = int64_t(1) << 21;
  std::vector<float> sums(pool.size());
  double seconds = bestTime(
      [&] {
        pool.parallelFor(pool.size(), 1, [&](int64_t b, int64_t e) {
          for (int64_t t = b; t < e; ++t)
            sums[t] = avx512 ? fmaChainsAvx512(iterations)
                             : fmaChainsAvx2(iterations);
        });
      },
      0.5, 3);
  return double(pool.size()) * iterations * kChains * lanes * 2 / seconds / 1e9;
#else
  (void)pool;
  return 0;
#endif
}

} // namespace llmc::host
