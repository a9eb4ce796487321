//===- AttentionAvx512.cpp - the AVX-512 path of attention ----------------===//
//
// A unit is a block of query rows times the query heads sharing one key/
// value head (Attention.cpp); its rows are treated as one small matrix Q.
// Keys and values are read where they are stored (a decode step's f16
// history), widened in registers as they are loaded.
//  1. Scores, 16 keys at a time: the key block is transposed to [d][16], so
//     that up to 8 rows of Q each take one FMA per element of d with a
//     broadcast query value, and no horizontal sums. A key block that the
//     mask hides from every row of the unit is skipped (its scores are
//     -inf and its values never read): half the work of a causal prefill.
//  2. Softmax per row: max, exp, sum (in lanes, then a fixed tree).
//  3. Values: for 32 columns of d at a time, up to 8 rows accumulate p * v
//     over the keys, each value row loaded once for all of them.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"

#if defined(__x86_64__)
#include "backends/host/kernels/Avx512Util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace llmc::host::detail {

/// Scores of N rows for one block of keys: s[r][t] = cap(scale * q_r .
/// kt[:, t]) + mask, -inf past the last key; cap soft-caps when softcap is
/// positive.
template <int N>
LLMC_AVX512 static void
scoreRows(const float *const *q, const float *kt, int64_t d, float scale,
          float softcap, const float *const *maskRows, int64_t keys,
          float *const *out) {
  // Two chains a row, over the even and the odd columns: with one, a block
  // of 8 rows waits on the FMA latency (4 cycles a column) instead of
  // issuing two FMAs a cycle.
  __m512 acc[2][N];
  for (int h = 0; h < 2; ++h)
    for (int r = 0; r < N; ++r)
      acc[h][r] = _mm512_setzero_ps();
  auto column = [&](int h, int64_t c) LLMC_AVX512 {
    const __m512 k = _mm512_load_ps(kt + 16 * c);
    for (int r = 0; r < N; ++r)
      acc[h][r] = _mm512_fmadd_ps(_mm512_set1_ps(q[r][c]), k, acc[h][r]);
  };
  int64_t c = 0;
  for (; c + 2 <= d; c += 2) {
    column(0, c);
    column(1, c + 1);
  }
  if (c < d)
    column(0, c);
  const __mmask16 valid = maskOf(keys);
  for (int r = 0; r < N; ++r) {
    __m512 s = _mm512_mul_ps(_mm512_add_ps(acc[0][r], acc[1][r]),
                             _mm512_set1_ps(scale));
    if (softcap > 0.0f)
      s = softCapAvx512(s, softcap);
    if (maskRows)
      s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(valid, maskRows[r]));
    _mm512_storeu_ps(out[r],
                     _mm512_mask_blend_ps(valid, _mm512_set1_ps(-INFINITY), s));
  }
}

/// o_r[c .. c + 32) = sum over the live key blocks of p_r[t] v[t], with
/// v[t] the `columns` values from element vFirst + t vStride, stored as T.
template <int N, FloatType T>
LLMC_AVX512 LLMC_INLINE void
valueRows(const float *const *p, const void *v, int64_t vFirst, int64_t vStride,
          int64_t lk, const uint8_t *skip, int64_t columns, const float *sums,
          float *const *out) {
  __m512 acc[N][2];
  for (int r = 0; r < N; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  const __mmask16 m0 = maskOf(columns), m1 = maskOf(columns - 16);
  for (int64_t t0 = 0; t0 < lk; t0 += 16) {
    if (skip[t0 / 16])
      continue;
    for (int64_t t = t0, end = std::min(lk, t0 + 16); t < end; ++t) {
      const int64_t at = vFirst + t * vStride;
      __m512 v0 = loadFloats<T>(v, at, m0);
      __m512 v1 = loadFloats<T>(v, at + 16, m1);
      for (int r = 0; r < N; ++r) {
        __m512 pt = _mm512_set1_ps(p[r][t]);
        acc[r][0] = _mm512_fmadd_ps(pt, v0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(pt, v1, acc[r][1]);
      }
    }
  }
  for (int r = 0; r < N; ++r) {
    __m512 sum = _mm512_set1_ps(sums[r]);
    _mm512_mask_storeu_ps(out[r], m0, _mm512_div_ps(acc[r][0], sum));
    _mm512_mask_storeu_ps(out[r] + 16, m1, _mm512_div_ps(acc[r][1], sum));
  }
}

/// scoreRows and valueRows for a run-time row count, inlined into the
/// caller with its arrays of row pointers: measured 1.7 times as fast as
/// calls through a table of the instances.
LLMC_AVX512 LLMC_INLINE void scoreRowsN(int64_t count, const float *const *q,
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

template <FloatType T>
LLMC_AVX512 LLMC_INLINE void
valueRowsN(int64_t count, const float *const *p, const void *v, int64_t vFirst,
           int64_t vStride, int64_t lk, const uint8_t *skip, int64_t columns,
           const float *sums, float *const *out) {
  switch (count) {
  case 1:
    return valueRows<1, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  case 2:
    return valueRows<2, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  case 3:
    return valueRows<3, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  case 4:
    return valueRows<4, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  case 5:
    return valueRows<5, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  case 6:
    return valueRows<6, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  case 7:
    return valueRows<7, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  default:
    return valueRows<8, T>(p, v, vFirst, vStride, lk, skip, columns, sums, out);
  }
}

/// Where a unit's keys and values are: head kvHead's columns of each row
/// start at element `first` of `data`, rows `stride` elements apart.
struct StoredHead {
  const void *data;
  int64_t first, stride;
};

/// The cache lines of rows [t0, t0 + count) of a head of d elements of T.
template <FloatType T>
LLMC_AVX512 LLMC_INLINE void
prefetchHeadRows(const StoredHead &head, int64_t t0, int64_t count, int64_t d) {
  constexpr int64_t kBytes = T == FloatType::F32 ? 4 : 2;
  const char *base = static_cast<const char *>(head.data);
  for (int64_t t = t0; t < t0 + count; ++t)
    for (int64_t c = 0; c < d * kBytes; c += 64)
      _mm_prefetch(base + (head.first + t * head.stride) * kBytes + c,
                   _MM_HINT_T0);
}

/// The unit's attention on keys and values stored as T, widened as they are
/// read; `skip` marks the key blocks hidden from every row.
template <FloatType T>
LLMC_AVX512 static void
attentionUnit(const AttentionArgs &a, int64_t kvHead, int64_t i0, int64_t i1,
              const StoredHead &keys, const StoredHead &values,
              const uint8_t *skip) {
  const int64_t group = a.hq / a.hkv, d = a.d, lk = a.lk;
  const int64_t rows = (i1 - i0) * group;
  const int64_t blocks = (lk + 15) / 16, stride = blocks * 16 + 16;
  float *scores = getScratchAs<float>(Scratch::Scores, rows * (stride + 1));
  float *sums = scores + rows * stride;
  float *kt = getScratchAs<float>(Scratch::Transposed, 16 * d);
  // Row r of the unit is query row i0 + r / group of head kvHead * group +
  // r % group.
  auto qRow = [&](int64_t r) {
    return a.q + (i0 + r / group) * a.qStride +
           (kvHead * group + r % group) * d;
  };

  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t t0 = 16 * b, keysHere = std::min<int64_t>(16, lk - t0);
    if (skip[b]) {
      for (int64_t r = 0; r < rows; ++r)
        _mm512_storeu_ps(scores + r * stride + t0, _mm512_set1_ps(-INFINITY));
      continue;
    }
    // A decode step's history is cold (the weights streamed through the
    // caches since the previous step): the rows four blocks ahead are
    // fetched meanwhile.
    if (b + 4 < blocks && !skip[b + 4]) {
      const int64_t ahead = std::min<int64_t>(16, lk - t0 - 64);
      prefetchHeadRows<T>(keys, t0 + 64, ahead, d);
      prefetchHeadRows<T>(values, t0 + 64, ahead, d);
    }
    // kt[c][t] = key t0 + t, column c; zero past the last key.
    const int64_t block = keys.first + t0 * keys.stride;
    int64_t c = 0;
    for (; c + 16 <= d; c += 16)
      transpose16<T>(keys.data, block + c, keys.stride, keysHere, kt + 16 * c,
                     16);
    // Heads of other widths come widened to f32 (attentionRowsAvx512).
    if constexpr (T == FloatType::F32)
      for (; c < d; ++c)
        for (int64_t t = 0; t < 16; ++t)
          kt[16 * c + t] = t < keysHere
                               ? static_cast<const float *>(
                                     keys.data)[block + t * keys.stride + c]
                               : 0.0f;
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

  // Softmax; sums[r] = 0 marks a row without any finite score.
  for (int64_t r = 0; r < rows; ++r) {
    float *s = scores + r * stride;
    __m512 max = _mm512_set1_ps(-INFINITY);
    for (int64_t t = 0; t < blocks * 16; t += 16)
      max = _mm512_max_ps(max, _mm512_loadu_ps(s + t));
    float rowMax = _mm512_reduce_max_ps(max);
    if (rowMax == -INFINITY) {
      sums[r] = 0.0f;
      continue;
    }
    __m512 sum = _mm512_setzero_ps(), vMax = _mm512_set1_ps(rowMax);
    for (int64_t t = 0; t < blocks * 16; t += 16) {
      __m512 p = expAvx512(_mm512_sub_ps(_mm512_loadu_ps(s + t), vMax));
      _mm512_storeu_ps(s + t, p);
      sum = _mm512_add_ps(sum, p);
    }
    sums[r] = reduceAddAvx512(sum);
  }

  for (int64_t c = 0; c < d; c += 32) {
    const int64_t columns = std::min<int64_t>(32, d - c);
    for (int64_t r0 = 0; r0 < rows; r0 += 8) {
      const int64_t count = std::min<int64_t>(8, rows - r0);
      const float *p[8];
      float *out[8];
      float rowSums[8];
      int64_t live = 0;
      for (int64_t r = 0; r < count; ++r) {
        int64_t row = r0 + r;
        float *o = a.o + (i0 + row / group) * a.oStride +
                   (kvHead * group + row % group) * d + c;
        if (sums[row] == 0.0f) { // Every key masked: o = 0.
          std::fill(o, o + columns, 0.0f);
          continue;
        }
        p[live] = scores + row * stride;
        out[live] = o;
        rowSums[live++] = sums[row];
      }
      if (live)
        valueRowsN<T>(live, p, values.data, values.first + c, values.stride, lk,
                      skip, columns, rowSums, out);
    }
  }
}

LLMC_AVX512 void attentionRowsAvx512(const AttentionArgs &a, int64_t kvHead,
                                     int64_t i0, int64_t i1) {
  const int64_t d = a.d, blocks = (a.lk + 15) / 16;
  uint8_t *skip = getScratchAs<uint8_t>(Scratch::Tile, blocks);
  markHiddenKeyBlocks(a, i0, i1, 16, skip);
  // Keys and values of one type are read where they are stored, widened in
  // registers; for f16 and bf16 ones that needs heads of whole vectors.
  const StoredHead keys{a.k.data, kvHead * d, a.k.stride},
      values{a.v.data, kvHead * d, a.v.stride};
  if (a.k.type == a.v.type && (d % 16 == 0 || a.k.type == FloatType::F32)) {
    switch (a.k.type) {
    case FloatType::F32:
      return attentionUnit<FloatType::F32>(a, kvHead, i0, i1, keys, values,
                                           skip);
    case FloatType::F16:
      return attentionUnit<FloatType::F16>(a, kvHead, i0, i1, keys, values,
                                           skip);
    case FloatType::BF16:
      return attentionUnit<FloatType::BF16>(a, kvHead, i0, i1, keys, values,
                                            skip);
    }
  }
  // Otherwise the rows the mask lets through are widened to f32 first.
  const IsaKernels &kernels = getAvx512Kernels();
  HeadRows widenedKeys(a.k, kvHead, d, a.lk, Scratch::Keys, kernels);
  HeadRows widenedValues(a.v, kvHead, d, a.lk, Scratch::Values, kernels);
  for (int64_t b = 0; b < blocks; ++b)
    if (!skip[b]) {
      widenedKeys.load(16 * b, std::min<int64_t>(16, a.lk - 16 * b));
      widenedValues.load(16 * b, std::min<int64_t>(16, a.lk - 16 * b));
    }
  attentionUnit<FloatType::F32>(
      a, kvHead, i0, i1, {widenedKeys.data(), 0, widenedKeys.stride()},
      {widenedValues.data(), 0, widenedValues.stride()}, skip);
}

} // namespace llmc::host::detail

#else

namespace llmc::host::detail {
void attentionRowsAvx512(const AttentionArgs &a, int64_t kvHead, int64_t i0,
                         int64_t i1) {
  attentionRowsScalar(a, kvHead, i0, i1);
}
} // namespace llmc::host::detail

#endif
