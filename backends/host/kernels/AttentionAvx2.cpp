//===- AttentionAvx2.cpp - the AVX2 path of attention ---------------------===//
//
// The algorithm of AttentionAvx512.cpp in 8-lane vectors: key blocks of 8
// transposed to [d][8], up to 8 rows of scores at a time, values 16 columns
// at a time for up to 6 rows (16 registers).
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"

#if defined(__x86_64__)
#include "backends/host/kernels/Avx2Util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace llmc::host::detail {

/// Transposes an 8 x 8 block: out[c * 8 + r] = in[r * inStride + c].
LLMC_AVX2 static void transpose8(const float *in, int64_t inStride,
                                 float *out) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(in + i * inStride);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(out + i * 8, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(out + (i + 4) * 8,
                     _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

template <int N>
LLMC_AVX2 static void
scoreRows(const float *const *q, const float *kt, int64_t d, float scale,
          float softcap, const float *const *maskRows, int64_t keys,
          float *const *out) {
  __m256 acc[N];
  for (int r = 0; r < N; ++r)
    acc[r] = _mm256_setzero_ps();
  for (int64_t c = 0; c < d; ++c) {
    __m256 k = _mm256_load_ps(kt + 8 * c);
    for (int r = 0; r < N; ++r)
      acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(q[r] + c), k, acc[r]);
  }
  const __m256i valid = maskAvx2(keys);
  for (int r = 0; r < N; ++r) {
    __m256 s = _mm256_mul_ps(acc[r], _mm256_set1_ps(scale));
    if (softcap > 0.0f)
      s = softCapAvx2(s, softcap);
    if (maskRows)
      s = _mm256_add_ps(s, _mm256_maskload_ps(maskRows[r], valid));
    _mm256_storeu_ps(out[r], _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), s,
                                              _mm256_castsi256_ps(valid)));
  }
}

template <int N>
LLMC_AVX2 LLMC_INLINE void valueRows(const float *const *p, const float *v,
                                     int64_t vStride, int64_t lk,
                                     const uint8_t *skip, int64_t columns,
                                     const float *sums, float *const *out) {
  __m256 acc[N][2];
  for (int r = 0; r < N; ++r)
    acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  const __m256i m0 = maskAvx2(columns), m1 = maskAvx2(columns - 8);
  for (int64_t t0 = 0; t0 < lk; t0 += 8) {
    if (skip[t0 / 8])
      continue;
    for (int64_t t = t0, end = std::min(lk, t0 + 8); t < end; ++t) {
      __m256 v0 = _mm256_maskload_ps(v + t * vStride, m0);
      __m256 v1 = _mm256_maskload_ps(v + t * vStride + 8, m1);
      for (int r = 0; r < N; ++r) {
        __m256 pt = _mm256_broadcast_ss(p[r] + t);
        acc[r][0] = _mm256_fmadd_ps(pt, v0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(pt, v1, acc[r][1]);
      }
    }
  }
  for (int r = 0; r < N; ++r) {
    __m256 sum = _mm256_set1_ps(sums[r]);
    _mm256_maskstore_ps(out[r], m0, _mm256_div_ps(acc[r][0], sum));
    _mm256_maskstore_ps(out[r] + 8, m1, _mm256_div_ps(acc[r][1], sum));
  }
}

/// scoreRows and valueRows for a run-time row count, inlined into the
/// caller with its arrays of row pointers: measured 1.7 times as fast as
/// calls through a table of the instances.
LLMC_AVX2 LLMC_INLINE void scoreRowsN(int64_t count, const float *const *q,
                                      const float *kt, int64_t d, float scale,
                                      float softcap,
                                      const float *const *maskRows,
                                      int64_t keys, float *const *out) {
  switch (count) {
  case 1:
    return scoreRows<1>(q, kt, d, scale, softcap, maskRows, keys, out);
  case 2:
    return scoreRows<2>(q, kt, d, scale, softcap, maskRows, keys, out);
  case 3:
    return scoreRows<3>(q, kt, d, scale, softcap, maskRows, keys, out);
  case 4:
    return scoreRows<4>(q, kt, d, scale, softcap, maskRows, keys, out);
  case 5:
    return scoreRows<5>(q, kt, d, scale, softcap, maskRows, keys, out);
  case 6:
    return scoreRows<6>(q, kt, d, scale, softcap, maskRows, keys, out);
  case 7:
    return scoreRows<7>(q, kt, d, scale, softcap, maskRows, keys, out);
  default:
    return scoreRows<8>(q, kt, d, scale, softcap, maskRows, keys, out);
  }
}

LLMC_AVX2 LLMC_INLINE void valueRowsN(int64_t count, const float *const *p,
                                      const float *v, int64_t vStride,
                                      int64_t lk, const uint8_t *skip,
                                      int64_t columns, const float *sums,
                                      float *const *out) {
  switch (count) {
  case 1:
    return valueRows<1>(p, v, vStride, lk, skip, columns, sums, out);
  case 2:
    return valueRows<2>(p, v, vStride, lk, skip, columns, sums, out);
  case 3:
    return valueRows<3>(p, v, vStride, lk, skip, columns, sums, out);
  case 4:
    return valueRows<4>(p, v, vStride, lk, skip, columns, sums, out);
  case 5:
    return valueRows<5>(p, v, vStride, lk, skip, columns, sums, out);
  default:
    return valueRows<6>(p, v, vStride, lk, skip, columns, sums, out);
  }
}

LLMC_AVX2 void attentionRowsAvx2(const AttentionArgs &a, int64_t kvHead,
                                 int64_t i0, int64_t i1) {
  const int64_t group = a.hq / a.hkv, d = a.d, lk = a.lk;
  const int64_t rows = (i1 - i0) * group;
  const int64_t blocks = (lk + 7) / 8, stride = blocks * 8 + 8;
  float *scores = getScratchAs<float>(Scratch::Scores, rows * (stride + 1));
  float *sums = scores + rows * stride;
  float *kt = getScratchAs<float>(Scratch::Transposed, 8 * d);
  uint8_t *skip = getScratchAs<uint8_t>(Scratch::Tile, blocks);
  markHiddenKeyBlocks(a, i0, i1, 8, skip);
  const IsaKernels &kernels = getAvx2Kernels();
  HeadRows keys(a.k, kvHead, d, lk, Scratch::Keys, kernels);
  HeadRows values(a.v, kvHead, d, lk, Scratch::Values, kernels);
  auto qRow = [&](int64_t r) {
    return a.q + (i0 + r / group) * a.qStride +
           (kvHead * group + r % group) * d;
  };

  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t t0 = 8 * b, keysHere = std::min<int64_t>(8, lk - t0);
    if (skip[b]) {
      for (int64_t r = 0; r < rows; ++r)
        _mm256_storeu_ps(scores + r * stride + t0, _mm256_set1_ps(-INFINITY));
      continue;
    }
    keys.load(t0, keysHere);
    values.load(t0, keysHere);
    const float *block = keys.data() + t0 * keys.stride();
    int64_t c = 0;
    if (keysHere == 8)
      for (; c + 8 <= d; c += 8)
        transpose8(block + c, keys.stride(), kt + 8 * c);
    for (; c < d; ++c)
      for (int64_t t = 0; t < 8; ++t)
        kt[8 * c + t] = t < keysHere ? block[t * keys.stride() + c] : 0.0f;
    for (int64_t r0 = 0; r0 < rows; r0 += 8) {
      const int64_t count = std::min<int64_t>(8, rows - r0);
      const float *q[8], *maskRows[8];
      float *out[8];
      for (int64_t r = 0; r < count; ++r) {
        q[r] = qRow(r0 + r);
        maskRows[r] = a.mask
                          ? a.mask + (i0 + (r0 + r) / group) * a.maskStride + t0
                          : nullptr;
        out[r] = scores + (r0 + r) * stride + t0;
      }
      scoreRowsN(count, q, kt, d, a.scale, a.softcap,
                 a.mask ? maskRows : nullptr, keysHere, out);
    }
  }

  for (int64_t r = 0; r < rows; ++r) {
    float *s = scores + r * stride;
    __m256 max = _mm256_set1_ps(-INFINITY);
    for (int64_t t = 0; t < blocks * 8; t += 8)
      max = _mm256_max_ps(max, _mm256_loadu_ps(s + t));
    float lanes[8];
    _mm256_storeu_ps(lanes, max);
    float rowMax = *std::max_element(lanes, lanes + 8);
    if (rowMax == -INFINITY) {
      sums[r] = 0.0f;
      continue;
    }
    __m256 sum = _mm256_setzero_ps(), vMax = _mm256_set1_ps(rowMax);
    for (int64_t t = 0; t < blocks * 8; t += 8) {
      __m256 p = expAvx2(_mm256_sub_ps(_mm256_loadu_ps(s + t), vMax));
      _mm256_storeu_ps(s + t, p);
      sum = _mm256_add_ps(sum, p);
    }
    sums[r] = reduceAddAvx2(sum);
  }

  for (int64_t c = 0; c < d; c += 16) {
    const int64_t columns = std::min<int64_t>(16, d - c);
    for (int64_t r0 = 0; r0 < rows; r0 += 6) {
      const int64_t count = std::min<int64_t>(6, rows - r0);
      const float *p[6];
      float *out[6];
      float rowSums[6];
      int64_t live = 0;
      for (int64_t r = 0; r < count; ++r) {
        int64_t row = r0 + r;
        float *o = a.o + (i0 + row / group) * a.oStride +
                   (kvHead * group + row % group) * d + c;
        if (sums[row] == 0.0f) {
          std::fill(o, o + columns, 0.0f);
          continue;
        }
        p[live] = scores + row * stride;
        out[live] = o;
        rowSums[live++] = sums[row];
      }
      if (live)
        valueRowsN(live, p, values.data() + c, values.stride(), lk, skip,
                   columns, rowSums, out);
    }
  }
}

} // namespace llmc::host::detail

#else

namespace llmc::host::detail {
void attentionRowsAvx2(const AttentionArgs &a, int64_t kvHead, int64_t i0,
                       int64_t i1) {
  attentionRowsScalar(a, kvHead, i0, i1);
}
} // namespace llmc::host::detail

#endif
