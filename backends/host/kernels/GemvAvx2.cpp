//===- GemvAvx2.cpp - the AVX2 matrix-vector product ----------------------===//
//
// The design of GemvAvx512.cpp in 8-lane vectors and 16 registers: one
// weight row at a time, x in L1; quantized weights converted to exact
// integers in float32 and the scale (and zero point, through per-lane sums
// of x) applied once a group. 4-bit weights are read 32 bytes (64 columns)
// at a time: lane l of the dword view holds columns 8l .. 8l + 7, and a
// shift and a mask extract each nibble; signed nibbles are offset by 8 (an
// XOR) and the offset taken off with the zero point.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"
#include "backends/host/kernels/Scalar.h"

#if defined(__x86_64__)
#include "backends/host/kernels/Avx2Util.h"

#include <algorithm>
#include <cstring>

namespace llmc::host::detail {

/// As in GemvAvx512.cpp: into L1, and further ahead into L2.
constexpr int64_t kPrefetchBytes = 2048;
constexpr int64_t kPrefetchL2Bytes = 6144;

LLMC_AVX2 LLMC_INLINE void prefetchAhead(const uint8_t *at) {
  _mm_prefetch(reinterpret_cast<const char *>(at + kPrefetchBytes),
               _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char *>(at + kPrefetchL2Bytes),
               _MM_HINT_T1);
}

namespace {
/// As in LinearAvx512.cpp: x (aligned, zero-padded to whole vectors and,
/// for 4-bit weights, laid out per 64 columns), its per-lane sums per group
/// (8-bit) or block (4-bit), and per block the first group it touches.
struct GemvInputs {
  const float *x[4];
  const float *xSum[4];
  int64_t k, groupSize, groups;
  const int32_t *blockGroup;
};
} // namespace

/// acc[0][i] + ... + acc[C - 1][i], pairwise.
template <int C, int M>
LLMC_AVX2 LLMC_INLINE __m256 combine(__m256 (&acc)[C][M], int i) {
  static_assert(C == 1 || C == 2 || C == 4, "1, 2 or 4 accumulators");
  if (C == 1)
    return acc[0][i];
  if (C == 2)
    return _mm256_add_ps(acc[0][i], acc[C - 1][i]);
  return _mm256_add_ps(_mm256_add_ps(acc[0][i], acc[1 % C][i]),
                       _mm256_add_ps(acc[2 % C][i], acc[3 % C][i]));
}

template <WeightType T>
LLMC_AVX2 LLMC_INLINE __m256 loadFloatWeights(const uint8_t *at) {
  if (T == WeightType::F32)
    return _mm256_loadu_ps(reinterpret_cast<const float *>(at));
  __m128i halves = _mm_loadu_si128(reinterpret_cast<const __m128i *>(at));
  if (T == WeightType::F16)
    return _mm256_cvtph_ps(halves);
  return _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_cvtepu16_epi32(halves), 16));
}

/// Float weights, 8 columns a vector dealt round-robin to C accumulators;
/// the tail goes through a zero-padded copy (x is zero-padded already).
template <WeightType T, int M>
LLMC_AVX2 LLMC_INLINE void rowFloat(const GemvInputs &in, const uint8_t *row,
                                    float (&sums)[4]) {
  constexpr int C = M == 1 ? 4 : 2;
  constexpr int64_t kBytes = T == WeightType::F32 ? 4 : 2;
  __m256 acc[C][M];
  for (int h = 0; h < C; ++h)
    for (int i = 0; i < M; ++i)
      acc[h][i] = _mm256_setzero_ps();
  auto step = [&](int h, int64_t c, const uint8_t *at) LLMC_AVX2 {
    __m256 w = loadFloatWeights<T>(at);
    for (int i = 0; i < M; ++i)
      acc[h][i] = _mm256_fmadd_ps(_mm256_load_ps(in.x[i] + c), w, acc[h][i]);
  };
  int64_t c = 0;
  for (; c + 8 * C <= in.k; c += 8 * C)
#pragma GCC unroll 4
    for (int h = 0; h < C; ++h) {
      if ((8 * h * kBytes) % 64 == 0)
        prefetchAhead(row + (c + 8 * h) * kBytes);
      step(h, c + 8 * h, row + (c + 8 * h) * kBytes);
    }
#pragma GCC unroll 4
  for (int h = 0; h < C; ++h) {
    const int64_t at = c + 8 * h;
    if (at + 8 <= in.k) {
      step(h, at, row + at * kBytes);
    } else if (at < in.k) {
      alignas(32) uint8_t padded[32] = {};
      std::memcpy(padded, row + at * kBytes, (in.k - at) * kBytes);
      step(h, at, padded);
    }
  }
  for (int i = 0; i < M; ++i)
    sums[i] = reduceAddAvx2(combine(acc, i));
}

/// 8-bit weights, groups of a multiple of 8 columns (GV vectors a group when
/// known at compile time, else 0); the scale and zero point are applied
/// once a group.
template <bool Signed, bool Asym, int M, int GV>
LLMC_AVX2 LLMC_INLINE void rowQuant8(const GemvInputs &in, const uint8_t *row,
                                     const float *scale, const float *zp,
                                     float (&sums)[4]) {
  // As in GemvAvx512.cpp: short groups in one chain.
  constexpr int C = GV == 0 ? (M == 1 ? 4 : 2) : GV <= 4 ? 1 : 2;
  __m256 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm256_setzero_ps();
  const int64_t groupSize = GV ? 8 * GV : in.groupSize;
  for (int64_t g = 0; g < in.groups; ++g) {
    const int64_t c0 = g * groupSize, c1 = c0 + groupSize;
    __m256 acc[C][M];
    for (int h = 0; h < C; ++h)
      for (int i = 0; i < M; ++i)
        acc[h][i] = _mm256_setzero_ps();
    auto step = [&](int h, int64_t c) LLMC_AVX2 {
      if (c % 64 == 0)
        prefetchAhead(row + c);
      __m128i bytes =
          _mm_loadl_epi64(reinterpret_cast<const __m128i *>(row + c));
      __m256 w = _mm256_cvtepi32_ps(Signed ? _mm256_cvtepi8_epi32(bytes)
                                           : _mm256_cvtepu8_epi32(bytes));
      for (int i = 0; i < M; ++i)
        acc[h][i] = _mm256_fmadd_ps(_mm256_load_ps(in.x[i] + c), w, acc[h][i]);
    };
    if (GV) {
#pragma GCC unroll 16
      for (int v = 0; v < GV; ++v)
        step(v % C, c0 + 8 * v);
    } else {
      int64_t c = c0;
      for (; c + 8 * C <= c1; c += 8 * C)
#pragma GCC unroll 4
        for (int h = 0; h < C; ++h)
          step(h, c + 8 * h);
#pragma GCC unroll 4
      for (int h = 0; h < C; ++h)
        if (c + 8 * h < c1)
          step(h, c + 8 * h);
    }
    for (int i = 0; i < M; ++i) {
      __m256 a = combine(acc, i);
      if (Asym)
        a = _mm256_fnmadd_ps(_mm256_set1_ps(zp[g]),
                             _mm256_load_ps(in.xSum[i] + 8 * g), a);
      total[i] = _mm256_fmadd_ps(a, _mm256_set1_ps(scale[g]), total[i]);
    }
  }
  for (int i = 0; i < M; ++i)
    sums[i] = reduceAddAvx2(total[i]);
}

/// 4-bit weights, 64 columns (32 bytes) a step: lane l of the dword view
/// holds columns 8l .. 8l + 7, and a shift and a mask extract nibble n
/// (column 8l + n), converted exactly. Signed nibbles are read offset by 8
/// (an XOR), and the offset is taken off with the zero point. A lane's scale
/// and zero point are picked by one permute a block.
template <bool Signed, bool Asym, int M>
LLMC_AVX2 LLMC_INLINE void rowQuant4(const GemvInputs &in, const uint8_t *row,
                                     const float *scale, const float *zp,
                                     __m256i laneIndex, float (&sums)[4]) {
  constexpr int C = 2;
  const __m256i low = _mm256_set1_epi32(15);
  __m256 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm256_setzero_ps();
  auto block = [&](int64_t b, __m256i d) LLMC_AVX2 {
    const int64_t c = 64 * b;
    if (Signed)
      d = _mm256_xor_si256(d, _mm256_set1_epi8(int8_t(0x88)));
    __m256 acc[C][M];
#pragma GCC unroll 8
    for (int n = 0; n < 8; ++n) {
      __m256i shifted = n ? _mm256_srli_epi32(d, 4 * n) : d;
      __m256 w =
          _mm256_cvtepi32_ps(n == 7 ? shifted : _mm256_and_si256(shifted, low));
      for (int i = 0; i < M; ++i) {
        __m256 x = _mm256_load_ps(in.x[i] + c + 8 * n);
        acc[n % C][i] =
            n < C ? _mm256_mul_ps(x, w) : _mm256_fmadd_ps(x, w, acc[n % C][i]);
      }
    }
    const int64_t first = in.blockGroup[b];
    __m256 s =
        _mm256_permutevar8x32_ps(_mm256_loadu_ps(scale + first), laneIndex);
    __m256 z = _mm256_set1_ps(Signed ? 8.0f : 0.0f);
    if (Asym)
      z = _mm256_add_ps(
          z, _mm256_permutevar8x32_ps(_mm256_loadu_ps(zp + first), laneIndex));
    for (int i = 0; i < M; ++i) {
      __m256 a = combine(acc, i);
      if (Asym || Signed)
        a = _mm256_fnmadd_ps(z, _mm256_load_ps(in.xSum[i] + 8 * b), a);
      total[i] = _mm256_fmadd_ps(a, s, total[i]);
    }
  };
  const int64_t full = in.k / 64;
  for (int64_t b = 0; b < full; ++b) {
    prefetchAhead(row + 32 * b);
    block(b,
          _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + 32 * b)));
  }
  if (in.k % 64) {
    // Whatever the padding decodes to meets zeros of x.
    alignas(32) uint8_t padded[32] = {};
    std::memcpy(padded, row + 32 * full, (in.k % 64) / 2);
    block(full, _mm256_load_si256(reinterpret_cast<const __m256i *>(padded)));
  }
  for (int i = 0; i < M; ++i)
    sums[i] = reduceAddAvx2(total[i]);
}

/// Parameters [0, count) of `rows` rows (rowStride bytes apart) to
/// out[rows][count], as one flat run when the rows are packed.
static void widenParams(ParamType type, const uint8_t *in, int64_t rowStride,
                        int64_t rows, int64_t count, float fallback,
                        float *out) {
  int64_t bits = type == ParamType::F32                              ? 32
                 : type == ParamType::F16 || type == ParamType::BF16 ? 16
                 : type == ParamType::I8 || type == ParamType::U8    ? 8
                                                                     : 4;
  if (type != ParamType::None && rowStride * 8 == count * bits) {
    count *= rows;
    rows = 1;
  }
  for (int64_t r = 0; r < rows; ++r, in += rowStride, out += count) {
    switch (type) {
    case ParamType::F16:
      widenF16Avx2(reinterpret_cast<const uint16_t *>(in), out, count);
      break;
    case ParamType::BF16:
      widenBF16Avx2(reinterpret_cast<const uint16_t *>(in), out, count);
      break;
    case ParamType::F32:
      std::memcpy(out, in, 4 * count);
      break;
    default:
      for (int64_t c = 0; c < count; ++c)
        out[c] = readParam(type, in, c, fallback);
      break;
    }
  }
}

/// Rows [j0, j1) of a matrix-vector product; Variant is the vectors a group
/// of 8-bit weights (0: any).
template <WeightType T, bool Asym, int M, int Variant>
LLMC_AVX2 static void gemvRows(const GemvInputs &in, const Weights &w,
                               int64_t j0, int64_t j1, const GemvOutput &out) {
  constexpr bool kQuantized =
      T != WeightType::F32 && T != WeightType::F16 && T != WeightType::BF16;
  constexpr bool k4Bit = T == WeightType::I4 || T == WeightType::U4;
  constexpr bool kSigned = T == WeightType::I8 || T == WeightType::I4;
  const int64_t groups = in.groups;
  const int64_t batch =
      kQuantized ? std::clamp<int64_t>(1024 / groups, 16, 256) : j1 - j0;
  float *params = nullptr, *zps = nullptr;
  if (kQuantized) {
    params = getScratchAs<float>(Scratch::Params, 2 * (batch * groups + 8));
    zps = params + batch * groups + 8;
  }
  __m256i laneIndex = _mm256_setzero_si256();
  if (k4Bit && in.groupSize < 64)
    laneIndex =
        _mm256_srlv_epi32(_mm256_setr_epi32(0, 8, 16, 24, 32, 40, 48, 56),
                          _mm256_set1_epi32(__builtin_ctzll(in.groupSize)));
  for (int64_t jb = j0; jb < j1; jb += batch) {
    const int64_t je = std::min(j1, jb + batch);
    if (kQuantized) {
      widenParams(w.scaleType, scaleRowOf(w, jb), w.scaleRowStrideBytes,
                  je - jb, groups, 1.0f, params);
      _mm256_storeu_ps(params + (je - jb) * groups, _mm256_setzero_ps());
      if (Asym) {
        widenParams(w.zpType, zpRowOf(w, jb), w.zpRowStrideBytes, je - jb,
                    groups, 0.0f, zps);
        _mm256_storeu_ps(zps + (je - jb) * groups, _mm256_setzero_ps());
      }
    }
    for (int64_t j = jb; j < je; ++j) {
      const uint8_t *row = rowOf(w, j);
      const float *scale = params + (j - jb) * groups;
      const float *zp = zps + (j - jb) * groups;
      float sums[4];
      if (k4Bit)
        rowQuant4<kSigned, Asym, M>(in, row, scale, zp, laneIndex, sums);
      else if (kQuantized)
        rowQuant8<kSigned, Asym, M, Variant>(in, row, scale, zp, sums);
      else
        rowFloat<T, M>(in, row, sums);
      for (int i = 0; i < M; ++i)
        out.store(i, j, sums[i]);
    }
  }
}

namespace {
struct GemvPlan {
  void (*rows)(const GemvInputs &, const Weights &, int64_t, int64_t,
               const GemvOutput &);
  bool nibbles;
  bool dequantizeFirst;
};
} // namespace

template <WeightType T, int M, int Variant>
static GemvPlan quantizedPlan(bool asym, bool nibbles) {
  return {asym ? gemvRows<T, true, M, Variant> : gemvRows<T, false, M, Variant>,
          nibbles, false};
}

template <WeightType T, int M>
static GemvPlan quantizedPlan(bool asym, int64_t groupSize) {
  if (T == WeightType::I4 || T == WeightType::U4) {
    // Groups must cover whole lanes of 8 columns and tile the 64-column
    // blocks.
    if (groupSize % 8 == 0 && (64 % groupSize == 0 || groupSize % 64 == 0))
      return quantizedPlan<T, M, 0>(asym, true);
  } else {
    switch (groupSize) {
    case 32:
      return quantizedPlan<T, M, 4>(asym, false);
    case 64:
      return quantizedPlan<T, M, 8>(asym, false);
    case 128:
      return quantizedPlan<T, M, 16>(asym, false);
    default:
      if (groupSize % 8 == 0)
        return quantizedPlan<T, M, 0>(asym, false);
    }
  }
  return {gemvRows<WeightType::F32, false, M, 0>, false, true};
}

template <int M> static GemvPlan planGemv(const Weights &w) {
  const bool asym = hasZeroPoint(w);
  const int64_t groupSize = getGroupSize(w);
  switch (w.type) {
  case WeightType::F32:
    return {gemvRows<WeightType::F32, false, M, 0>, false, false};
  case WeightType::F16:
    return {gemvRows<WeightType::F16, false, M, 0>, false, false};
  case WeightType::BF16:
    return {gemvRows<WeightType::BF16, false, M, 0>, false, false};
  case WeightType::I8:
    return quantizedPlan<WeightType::I8, M>(asym, groupSize);
  case WeightType::U8:
    return quantizedPlan<WeightType::U8, M>(asym, groupSize);
  case WeightType::I4:
    return quantizedPlan<WeightType::I4, M>(asym, groupSize);
  case WeightType::U4:
    return quantizedPlan<WeightType::U4, M>(asym, groupSize);
  }
  return {gemvRows<WeightType::F32, false, M, 0>, false, true};
}

template <int M>
LLMC_AVX2 static void gemvColumns(const LinearArgs &a, ColumnClaims &claims) {
  const Weights &w = a.getLeadWeights();
  const int64_t k = w.k;
  const GemvPlan plan = planGemv<M>(w);
  GemvInputs in;
  in.k = k;
  in.groupSize = getGroupSize(w);
  in.groups = isQuantized(w.type) ? k / in.groupSize : 1;
  if (plan.nibbles) {
    // Per 64 columns: vector n holds columns 8 l + n (lane l), zero-padded
    // to whole blocks; and the sums per lane of the 8 vectors.
    const int64_t blocks = (k + 63) / 64;
    float *layout =
        getScratchAs<float>(Scratch::X, 2 * M * blocks * 64 + blocks);
    int32_t *blockGroup =
        reinterpret_cast<int32_t *>(layout + 2 * M * blocks * 64);
    for (int64_t b = 0; b < blocks; ++b)
      blockGroup[b] = int32_t(b * 64 / in.groupSize);
    in.blockGroup = blockGroup;
    for (int i = 0; i < M; ++i) {
      const float *x = a.x + i * a.xStride;
      float *xp = layout + i * blocks * 64;
      float *xs = layout + (M + i) * blocks * 64;
      for (int64_t b = 0; b < blocks; ++b) {
        for (int64_t n = 0; n < 8; ++n)
          for (int64_t l = 0; l < 8; ++l) {
            int64_t c = 64 * b + 8 * l + n;
            xp[64 * b + 8 * n + l] = c < k ? x[c] : 0.0f;
          }
        __m256 sum = _mm256_setzero_ps();
        for (int64_t n = 0; n < 8; ++n)
          sum = _mm256_add_ps(sum, _mm256_load_ps(xp + 64 * b + 8 * n));
        _mm256_store_ps(xs + 8 * b, sum);
      }
      in.x[i] = xp;
      in.xSum[i] = xs;
    }
  } else {
    // x to aligned memory, zero-padded to whole vectors; then for
    // asymmetric weights the sums per lane of each group.
    const int64_t padded = (k + 7) / 8 * 8;
    float *xa = getScratchAs<float>(Scratch::X, M * padded + M * in.groups * 8);
    for (int i = 0; i < M; ++i) {
      std::memcpy(xa + i * padded, a.x + i * a.xStride, sizeof(float) * k);
      std::fill(xa + i * padded + k, xa + (i + 1) * padded, 0.0f);
      in.x[i] = xa + i * padded;
    }
    float *xs = xa + M * padded;
    for (int i = 0; hasZeroPoint(w) && !plan.dequantizeFirst && i < M; ++i) {
      for (int64_t g = 0; g < in.groups; ++g) {
        __m256 sum = _mm256_setzero_ps();
        for (int64_t c = g * in.groupSize; c < (g + 1) * in.groupSize; c += 8)
          sum = _mm256_add_ps(sum, _mm256_load_ps(in.x[i] + c));
        _mm256_store_ps(xs + (i * in.groups + g) * 8, sum);
      }
      in.xSum[i] = xs + i * in.groups * 8;
    }
  }

  auto run = [&](const Weights &matrix, int64_t j0, int64_t j1,
                 const GemvOutput &out) {
    if (!plan.dequantizeFirst) {
      plan.rows(in, matrix, j0, j1, out);
      return;
    }
    constexpr int64_t kBatch = 16;
    float *rows = getScratchAs<float>(Scratch::Rows, kBatch * k);
    GemvInputs floats = in;
    floats.groups = 1;
    for (int64_t jb = j0; jb < j1; jb += kBatch) {
      const int64_t je = std::min(j1, jb + kBatch);
      for (int64_t j = jb; j < je; ++j)
        dequantizeAvx2(matrix, j, 0, k, rows + (j - jb) * k);
      Weights dense{WeightType::F32, rows, je - jb, k, 4 * k};
      GemvOutput shifted = out;
      shifted.base += jb - out.firstColumn;
      shifted.firstColumn = 0;
      if (shifted.bias)
        shifted.bias += jb;
      plan.rows(floats, dense, 0, je - jb, shifted);
    }
  };
  forEachClaimedPiece(a, claims, run, gateAvx2);
}

LLMC_AVX2 void gemvAvx2(const LinearArgs &a, ColumnClaims &claims) {
  switch (a.m) {
  case 1:
    return gemvColumns<1>(a, claims);
  case 2:
    return gemvColumns<2>(a, claims);
  case 3:
    return gemvColumns<3>(a, claims);
  default:
    return gemvColumns<4>(a, claims);
  }
}

} // namespace llmc::host::detail

#endif
