//===- GemvAvx512.cpp - the AVX-512 matrix-vector product -----------------===//
//
// Decode: the product of a few rows of x (m <= 4) with the weights, which
// is memory-bound, so the weights stream once, one row at a time (reading
// several rows in turn costs a quarter of the DRAM bandwidth, measured), x
// staying in L1. Quantized weights become exact integers in float32, and
// the scale and zero point are applied once a group or block:
//   sum_c x (q - zp) s = s (sum_c x q - zp sum_c x),
// with the sums of x per lane precomputed once per call.
//  - 8-bit: VPMOVSXBD/VPMOVZXBD from memory, convert, FMA (with AVX-512
//    VNNI, integer dot products instead, at the end of this file);
//  - 4-bit: 64 bytes (128 columns) at a time; lane l of the dword view holds
//    columns 8l .. 8l + 7, so a shift by 4n and a VPERMPS through a 16-entry
//    table (it reads only the low 4 bits of its index) give column 8l + n of
//    every lane as a float, and x is laid out to match (with VNNI, integer
//    dot products instead).
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"
#include "backends/host/kernels/Scalar.h"

#if defined(__x86_64__)
#include "backends/host/kernels/Avx512Util.h"
#include "backends/host/kernels/PiecesAvx512.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace llmc::host::detail {

/// Parameters [0, count) of `rows` rows (rowStride bytes apart) as float32,
/// rows outStride floats apart, times `factors` (laid out as the output)
/// unless it is null; `fallback` for None. The type is a template
/// parameter so that each row costs a few vector instructions: rows of
/// decode weights are short, and their parameters are widened as they go.
template <ParamType P>
LLMC_AVX512 static void widenParamRows(const uint8_t *in, int64_t rowStride,
                                       int64_t rows, int64_t count,
                                       float fallback, const float *factors,
                                       float *out, int64_t outStride) {
  for (int64_t r = 0; r < rows; ++r, in += rowStride, out += outStride)
    for (int64_t c = 0; c < count; c += 32) {
      const __mmask16 first = maskOf(count - c),
                      second = maskOf(count - c - 16);
      __m512 lo, hi;
      if (P == ParamType::None) {
        lo = hi = _mm512_set1_ps(fallback);
      } else if (P == ParamType::F32) {
        lo = _mm512_maskz_loadu_ps(first, in + 4 * c);
        hi = _mm512_maskz_loadu_ps(second, in + 4 * c + 64);
      } else if (P == ParamType::F16) {
        lo = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(first, in + 2 * c));
        hi = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(second, in + 2 * c + 32));
      } else if (P == ParamType::BF16) {
        lo = _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(first, in + 2 * c)),
            16));
        hi = _mm512_castsi512_ps(
            _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(
                                  second, in + 2 * c + 32)),
                              16));
      } else if (P == ParamType::I8 || P == ParamType::U8) {
        const bool isSigned = P == ParamType::I8;
        lo = _mm512_cvtepi32_ps(loadBytes(in + c, count - c, isSigned));
        hi = _mm512_cvtepi32_ps(
            count - c > 16 ? loadBytes(in + c + 16, count - c - 16, isSigned)
                           : _mm512_setzero_si512());
      } else {
        const __m512 values = nibbleValues(P == ParamType::I4);
        __m512i d = loadBytes(in + c / 2, (count - c + 1) / 2, false);
        interleave(_mm512_permutexvar_ps(d, values),
                   _mm512_permutexvar_ps(_mm512_srli_epi32(d, 4), values), lo,
                   hi);
      }
      if (factors) {
        const float *f = factors + r * outStride + c;
        lo = _mm512_mul_ps(lo, _mm512_maskz_loadu_ps(first, f));
        hi = _mm512_mul_ps(hi, _mm512_maskz_loadu_ps(second, f + 16));
      }
      _mm512_mask_storeu_ps(out + c, first, lo);
      _mm512_mask_storeu_ps(out + c + 16, second, hi);
    }
}

/// Parameters [0, count) of `rows` rows (rowStride bytes apart) to
/// out[rows][count], times factors[rows][count] unless it is null, as one
/// flat run when the rows are packed (the usual layout), which turns a few
/// rows' worth of vector work into one.
static void widenParams(ParamType type, const uint8_t *in, int64_t rowStride,
                        int64_t rows, int64_t count, float fallback,
                        const float *factors, float *out) {
  bool packed =
      type == ParamType::None || rowStride * 8 == count * getElementBits(type);
  if (packed) {
    count *= rows;
    rows = 1;
  }
  switch (type) {
#define LLMC_CASE(P)                                                           \
  case ParamType::P:                                                           \
    return widenParamRows<ParamType::P>(in, rowStride, rows, count, fallback,  \
                                        factors, out, count);
    LLMC_CASE(None)
    LLMC_CASE(F32)
    LLMC_CASE(F16)
    LLMC_CASE(BF16)
    LLMC_CASE(I8)
    LLMC_CASE(U8)
    LLMC_CASE(I4)
    LLMC_CASE(U4)
#undef LLMC_CASE
  }
}

/// How far ahead the weight stream is prefetched into L1. One core keeps
/// too few misses in flight for DRAM's latency on its own: the hardware
/// prefetchers alone leave the kernels at 38-86 % of a STREAM-style read
/// of the same bytes. Measured on a Zen 5 with kernels_bench --only=decode
/// (weights on huge pages, as the host device keeps them), in one run
/// against the earlier pair of a T0 prefetch 2 KiB ahead and a T1 one
/// 6 KiB ahead (tuned over 4 KiB pages): f16 q/o 65 -> 81 %, gate/up
/// 69 -> 84 %, lm_head 74 -> 85 %, i8 down 70 -> 77 %. 4 and 5 KiB did
/// about as well, 8 and 12 KiB worse, and T1 prefetches alone (3 to 6 KiB)
/// or on top worse too. host_bench decode, alternating runs: F16 +6 %,
/// W8F16 +12 %, W4F16 +7 %.
constexpr int64_t kPrefetchBytes = 6144;

LLMC_AVX512 LLMC_INLINE void prefetchAhead(const uint8_t *at) {
  _mm_prefetch(reinterpret_cast<const char *>(at + kPrefetchBytes),
               _MM_HINT_T0);
}

/// The cache lines of [at, at + bytes).
LLMC_AVX512 LLMC_INLINE void prefetchLines(const uint8_t *at, int64_t bytes) {
  for (int64_t offset = 0; offset < bytes; offset += 64)
    _mm_prefetch(reinterpret_cast<const char *>(at + offset), _MM_HINT_T0);
}

namespace {
/// What every row of a matrix-vector product needs besides its weights.
struct GemvInputs {
  /// Rows of x, laid out for the weight type (see gemvColumns).
  const float *x[4];
  /// Asymmetric 8-bit and all 4-bit weights: per-lane sums of x over each
  /// group (8-bit) or 128-column block (4-bit).
  const float *xSum[4];
  int64_t k, groupSize, groups;
  /// 4-bit and the integer-dot paths: per block (128 columns for 4-bit
  /// weights, 64 for 8-bit ones on the integer-dot path), the first group it
  /// touches.
  const int32_t *blockGroup;
  /// The integer-dot paths: x as pieces of fixed point, and per block the
  /// value of one unit of its second piece (layoutNibblePieces,
  /// layoutBytePieces); for signed weights, per group, the flip excess
  /// times the sum of x over the group, in the lane sums' units and
  /// zero-padded to whole vectors (storeExcessSums).
  const int8_t *pieces[4];
  const float *unit[4];
  const float *excessSums[4];
  /// The integer-dot paths with one row of x and each group inside one
  /// block: per row of a parameter batch (getParamBatch) and group, the
  /// unit of the group's block, which forEachRow multiplies into the scales
  /// (the kernels then skip it, and the lane sums of x leave it out); else
  /// null.
  const float *unitFactors = nullptr;
};
} // namespace

// One weight row at a time: reading several rows in turn costs a quarter
// of the DRAM bandwidth (measured), while x stays in L1 anyway. Several
// accumulators per row hide the FMA latency; the split of the columns over
// them depends on k alone.

template <int C, int M> LLMC_AVX512 LLMC_INLINE void zero(__m512 (&acc)[C][M]) {
  for (int h = 0; h < C; ++h)
    for (int i = 0; i < M; ++i)
      acc[h][i] = _mm512_setzero_ps();
}

/// acc[0][i] + ... + acc[C - 1][i], pairwise.
template <int C, int M>
LLMC_AVX512 LLMC_INLINE __m512 combine(__m512 (&acc)[C][M], int i) {
  static_assert(C == 1 || C == 2 || C == 4, "1, 2 or 4 accumulators");
  if (C == 1)
    return acc[0][i];
  if (C == 2)
    return _mm512_add_ps(acc[0][i], acc[C - 1][i]);
  return _mm512_add_ps(_mm512_add_ps(acc[0][i], acc[1 % C][i]),
                       _mm512_add_ps(acc[2 % C][i], acc[3 % C][i]));
}

template <WeightType T>
LLMC_AVX512 LLMC_INLINE __m512 loadFloatWeights(const uint8_t *row, int64_t c,
                                                __mmask16 mask) {
  constexpr FloatType kType = T == WeightType::F32   ? FloatType::F32
                              : T == WeightType::F16 ? FloatType::F16
                                                     : FloatType::BF16;
  return loadFloats<kType>(row, c, mask);
}

/// Float weights: 16 columns a vector, vectors dealt round-robin to C
/// accumulators, the tail masked.
template <WeightType T, int M>
LLMC_AVX512 LLMC_INLINE void rowFloat(const GemvInputs &in, const uint8_t *row,
                                      __m512 (&totals)[4]) {
  constexpr int C = M == 1 ? 4 : 2;
  constexpr int64_t kBytes = T == WeightType::F32 ? 4 : 2;
  __m512 acc[C][M];
  zero(acc);
  // Vector h of a step goes to accumulator h. The calls below pass h as a
  // constant: an indexed accumulator would live in memory.
  auto step = [&](int h, int64_t c, __mmask16 mask) LLMC_AVX512 {
    __m512 w = loadFloatWeights<T>(row, c, mask);
    for (int i = 0; i < M; ++i)
      acc[h][i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, in.x[i] + c), w,
                                  acc[h][i]);
  };
  int64_t c = 0;
  for (; c + 16 * C <= in.k; c += 16 * C)
#pragma GCC unroll 4
    for (int h = 0; h < C; ++h) {
      if ((16 * h * kBytes) % 64 == 0)
        prefetchAhead(row + (c + 16 * h) * kBytes);
      step(h, c + 16 * h, 0xffff);
    }
#pragma GCC unroll 4
  for (int h = 0; h < C; ++h)
    if (c + 16 * h < in.k)
      step(h, c + 16 * h, maskOf(in.k - c - 16 * h));
  for (int i = 0; i < M; ++i)
    totals[i] = combine(acc, i);
}

/// 8-bit weights, groups of a multiple of 16 columns. The scale is applied
/// once a group: sum_c x (q - zp) s = s (sum_c x q - zp sum_c x), with the
/// integers q exact in float32 and the sums of x per lane precomputed.
/// GV is the vectors a group when known at compile time (the usual group
/// sizes: the group then unrolls completely), else 0.
template <bool Signed, bool Asym, int M, int GV>
LLMC_AVX512 LLMC_INLINE void rowQuant8(const GemvInputs &in, const uint8_t *row,
                                       const float *scale, const float *zp,
                                       __m512 (&totals)[4]) {
  // Accumulators: a group of up to 4 vectors goes in one chain (groups are
  // independent, so the core overlaps them; more chains were measured
  // slower), longer groups in 2, unknown ones in 4.
  constexpr int C = GV == 0 ? (M == 1 ? 4 : 2) : GV <= 4 ? 1 : 2;
  __m512 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm512_setzero_ps();
  const int64_t groupSize = GV ? 16 * GV : in.groupSize;
  for (int64_t g = 0; g < in.groups; ++g) {
    const int64_t c0 = g * groupSize, c1 = c0 + groupSize;
    __m512 acc[C][M];
    zero(acc);
    // Vector v of the group goes to accumulator v % C; the calls below pass
    // it as a constant (an indexed accumulator would live in memory).
    auto step = [&](int h, int64_t c) LLMC_AVX512 {
      if (c % 64 == 0)
        prefetchAhead(row + c);
      __m128i bytes =
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + c));
      __m512 w = _mm512_cvtepi32_ps(Signed ? _mm512_cvtepi8_epi32(bytes)
                                           : _mm512_cvtepu8_epi32(bytes));
      for (int i = 0; i < M; ++i)
        acc[h][i] = _mm512_fmadd_ps(_mm512_load_ps(in.x[i] + c), w, acc[h][i]);
    };
    if (GV) {
#pragma GCC unroll 16
      for (int v = 0; v < GV; ++v)
        step(v % C, c0 + 16 * v);
    } else {
      int64_t c = c0;
      for (; c + 16 * C <= c1; c += 16 * C)
#pragma GCC unroll 4
        for (int h = 0; h < C; ++h)
          step(h, c + 16 * h);
#pragma GCC unroll 4
      for (int h = 0; h < C; ++h)
        if (c + 16 * h < c1)
          step(h, c + 16 * h);
    }
    for (int i = 0; i < M; ++i) {
      __m512 a = combine(acc, i);
      if (Asym)
        a = _mm512_fnmadd_ps(_mm512_set1_ps(zp[g]),
                             _mm512_loadu_ps(in.xSum[i] + 16 * g), a);
      total[i] = _mm512_fmadd_ps(a, _mm512_set1_ps(scale[g]), total[i]);
    }
  }
  for (int i = 0; i < M; ++i)
    totals[i] = total[i];
}

/// Calls block(b, bytes) for each 64-byte block b of a row of `rowBytes`
/// bytes, the last one zero-padded (4-bit rows hold an even k).
template <typename Block>
LLMC_AVX512 LLMC_INLINE void
forEachRowBlock(int64_t rowBytes, const uint8_t *row, Block &&block) {
  const int64_t full = rowBytes / 64;
  for (int64_t b = 0; b < full; ++b) {
    prefetchAhead(row + 64 * b);
    block(b, _mm512_loadu_si512(row + 64 * b));
  }
  if (rowBytes % 64)
    block(full, _mm512_maskz_loadu_epi8((uint64_t(1) << (rowBytes % 64)) - 1,
                                        row + 64 * full));
}

/// The scale and zero point (0 unless Asym) of each lane of 4-bit block b:
/// a permute of the row's parameters from the block's first group, or a
/// broadcast when groups span whole blocks (Wide).
template <bool Asym, bool Wide>
LLMC_AVX512 LLMC_INLINE void
getBlockParams(const GemvInputs &in, const float *scale, const float *zp,
               __m512i laneGroups, int64_t b, __m512 &s, __m512 &z) {
  const int64_t first = in.blockGroup[b];
  s = Wide ? _mm512_set1_ps(scale[first])
           : _mm512_permutexvar_ps(laneGroups, _mm512_loadu_ps(scale + first));
  z = !Asym  ? _mm512_setzero_ps()
      : Wide ? _mm512_set1_ps(zp[first])
             : _mm512_permutexvar_ps(laneGroups, _mm512_loadu_ps(zp + first));
}

/// 4-bit weights, 128 columns (64 bytes) a step. Lane l of the dword view
/// holds columns 8l .. 8l + 7, nibble n of it column 8l + n: shifting by 4n
/// brings that nibble to the low bits, where VPERMPS reads its index, and a
/// 16-entry table turns it into the integer as a float. x is laid out to
/// match (gemvColumns). Scales and zero points then vary by lane (a group
/// covers whole lanes): one permute of the row's parameters picks them
/// (or, when groups span whole blocks, Wide, a broadcast), and they are
/// applied once a block, as for 8-bit weights. (Masked FMAs, one a group,
/// instead of the permute were measured slower.)
template <bool Signed, bool Asym, int M, bool Wide>
LLMC_AVX512 LLMC_INLINE void
rowQuant4(const GemvInputs &in, const uint8_t *row, const float *scale,
          const float *zp, __m512i laneGroups, __m512 (&totals)[4]) {
  constexpr int C = 2;
  const __m512 values = nibbleValues(Signed);
  __m512 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm512_setzero_ps();
  auto block = [&](int64_t b, __m512i d) LLMC_AVX512 {
    const int64_t c = 128 * b;
    __m512 acc[C][M];
#pragma GCC unroll 8
    for (int n = 0; n < 8; ++n) {
      __m512 w =
          _mm512_permutexvar_ps(n ? _mm512_srli_epi32(d, 4 * n) : d, values);
      for (int i = 0; i < M; ++i) {
        __m512 x = _mm512_load_ps(in.x[i] + c + 16 * n);
        acc[n % C][i] =
            n < C ? _mm512_mul_ps(x, w) : _mm512_fmadd_ps(x, w, acc[n % C][i]);
      }
    }
    __m512 s, z;
    getBlockParams<Asym, Wide>(in, scale, zp, laneGroups, b, s, z);
    for (int i = 0; i < M; ++i) {
      __m512 a = combine(acc, i);
      if (Asym)
        a = _mm512_fnmadd_ps(z, _mm512_load_ps(in.xSum[i] + 16 * b), a);
      total[i] = _mm512_fmadd_ps(a, s, total[i]);
    }
  };
  forEachRowBlock(in.k / 2, row, block);
  for (int i = 0; i < M; ++i)
    totals[i] = total[i];
}

/// Lane l of a block whose lanes hold `laneColumns` columns each (8 for
/// 4-bit weights, 4 for 8-bit ones on the integer-dot path) uses group
/// first + laneColumns l / groupSize (first, when a group spans blocks).
LLMC_AVX512 LLMC_INLINE __m512i getLaneGroups(int64_t groupSize,
                                              int laneColumns) {
  if (groupSize >= 16 * laneColumns)
    return _mm512_setzero_si512();
  return _mm512_srlv_epi32(
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                           12, 13, 14, 15),
                         _mm512_set1_epi32(laneColumns)),
      _mm512_set1_epi32(__builtin_ctzll(groupSize)));
}

/// The rows of a batch whose parameters are widened together: about 4 KiB,
/// so that they, x and the rows in flight stay in L1.
static int64_t getParamBatch(int64_t groups) {
  return std::clamp<int64_t>(1024 / groups, 16, 256);
}

/// The sums of adjacent 128-bit lanes: a's two pairs, then b's.
LLMC_AVX512 LLMC_INLINE __m512 addLanePairs(__m512 a, __m512 b) {
  return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                       _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

/// Lane r of the result: the sum of the lanes of v[r]. Each vector's lanes
/// are added in the same order whatever its r, so a row's sum does not
/// depend on where a thread's rows start.
LLMC_AVX512 LLMC_INLINE __m512 reduceAdd16(const __m512 (&v)[16]) {
  // Per 128-bit lane, the sums of four vectors' lanes side by side.
  __m512 quads[4];
  for (int q = 0; q < 4; ++q) {
    const __m512 *u = v + 4 * q;
    const __m512 ab = _mm512_add_ps(_mm512_unpacklo_ps(u[0], u[1]),
                                    _mm512_unpackhi_ps(u[0], u[1]));
    const __m512 cd = _mm512_add_ps(_mm512_unpacklo_ps(u[2], u[3]),
                                    _mm512_unpackhi_ps(u[2], u[3]));
    quads[q] =
        _mm512_add_ps(_mm512_shuffle_ps(ab, cd, _MM_SHUFFLE(1, 0, 1, 0)),
                      _mm512_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 2, 3, 2)));
  }
  // Then the 128-bit lanes' sums: pairs of them, then pairs of pairs.
  return addLanePairs(addLanePairs(quads[0], quads[1]),
                      addLanePairs(quads[2], quads[3]));
}

/// Rows [j0, j1) of a matrix-vector product, each through
/// `rowTotals(row, scale, zp, totals)`, which leaves per row of x a vector
/// whose lanes sum to the output. They are summed 16 rows at a time:
/// a row of decode weights is a few blocks long, and summing its lanes on
/// their own would cost as much as one of them. Quantized rows have their
/// parameters widened a batch of rows at a time (rows `groups` floats
/// apart, zero-padded so that a vector load past the last group stays
/// finite).
template <WeightType T, bool Asym, int M, typename RowTotals>
LLMC_AVX512 LLMC_INLINE void
forEachRow(const GemvInputs &in, const Weights &w, int64_t j0, int64_t j1,
           const GemvOutput &out, RowTotals &&rowTotals) {
  constexpr bool kQuantized =
      T != WeightType::F32 && T != WeightType::F16 && T != WeightType::BF16;
  // Parameters are widened for a batch of rows at a time, with 16 zeros
  // after each batch: the 4-bit kernels load 16 from the group a block
  // starts at.
  const int64_t groups = in.groups;
  const int64_t batch = kQuantized ? getParamBatch(groups) : j1 - j0;
  float *params = nullptr, *zps = nullptr;
  if (kQuantized) {
    params = getScratchAs<float>(Scratch::Params, 2 * (batch * groups + 16));
    zps = params + batch * groups + 16;
  }
  // The rows' own prefetches run kPrefetchBytes ahead, so the first of
  // them would arrive a few demand misses at a time; a decode step starts
  // a few hundred such streams (kernels_bench --only=decode: 1-2 points of
  // a plain read on average, up to 10 on k/v).
  prefetchLines(rowOf(w, j0), std::min<int64_t>(kPrefetchBytes,
                                                (j1 - j0) * w.rowStrideBytes));
  // The totals of rows [first, first + 16) so far.
  __m512 pending[M][16];
  int64_t first = j0;
  auto flush = [&](int64_t end) LLMC_AVX512 {
    for (int i = 0; i < M; ++i) {
      for (int64_t r = end - first; r < 16; ++r)
        pending[i][r] = _mm512_setzero_ps();
      alignas(64) float sums[16];
      _mm512_store_ps(sums, reduceAdd16(pending[i]));
      for (int64_t j = first; j < end; ++j)
        out.store(i, j, sums[j - first]);
    }
    first = end;
  };
  for (int64_t jb = j0; jb < j1; jb += batch) {
    const int64_t je = std::min(j1, jb + batch);
    if (kQuantized) {
      widenParams(w.scaleType, scaleRowOf(w, jb), w.scaleRowStrideBytes,
                  je - jb, groups, 1.0f, in.unitFactors, params);
      _mm512_storeu_ps(params + (je - jb) * groups, _mm512_setzero_ps());
      if (Asym) {
        widenParams(w.zpType, zpRowOf(w, jb), w.zpRowStrideBytes, je - jb,
                    groups, 0.0f, nullptr, zps);
        _mm512_storeu_ps(zps + (je - jb) * groups, _mm512_setzero_ps());
      }
    }
    for (int64_t j = jb; j < je; ++j) {
      // The parameters of the next batch, a row's a row: read in one go
      // when that batch starts, they would arrive at DRAM latency.
      if (kQuantized && j + batch < j1) {
        prefetchLines(scaleRowOf(w, j + batch), w.scaleRowStrideBytes);
        if (Asym)
          prefetchLines(zpRowOf(w, j + batch), w.zpRowStrideBytes);
      }
      __m512 totals[4];
      rowTotals(rowOf(w, j), params + (j - jb) * groups,
                zps + (j - jb) * groups, totals);
      for (int i = 0; i < M; ++i)
        pending[i][j - first] = totals[i];
      if (j + 1 - first == 16 || j + 1 == j1)
        flush(j + 1);
    }
  }
}

/// Rows [j0, j1) of a matrix-vector product with the float32 kernels.
template <WeightType T, bool Asym, int M, int Variant>
LLMC_AVX512 static void gemvRows(const GemvInputs &in, const Weights &w,
                                 int64_t j0, int64_t j1,
                                 const GemvOutput &out) {
  constexpr bool kQuantized =
      T != WeightType::F32 && T != WeightType::F16 && T != WeightType::BF16;
  constexpr bool k4Bit = T == WeightType::I4 || T == WeightType::U4;
  constexpr bool kSigned = T == WeightType::I8 || T == WeightType::I4;
  const __m512i laneGroups =
      k4Bit ? getLaneGroups(in.groupSize, 8) : _mm512_setzero_si512();
  forEachRow<T, Asym, M>(
      in, w, j0, j1, out,
      [&](const uint8_t *row, const float *scale, const float *zp,
          __m512(&totals)[4]) LLMC_AVX512 {
        if (k4Bit)
          rowQuant4<kSigned, Asym, M, Variant != 0>(in, row, scale, zp,
                                                    laneGroups, totals);
        else if (kQuantized)
          rowQuant8<kSigned, Asym, M, Variant>(in, row, scale, zp, totals);
        else
          rowFloat<T, M>(in, row, totals);
      });
}

//===----------------------------------------------------------------------===//
// Quantized weights by integer dot products (AVX-512 VNNI)
//===----------------------------------------------------------------------===//
//
// The float32 kernels convert every weight to float and spend an FMA on
// it (4-bit ones a shift and a permute besides), which caps them below the
// DRAM bandwidth of two cores. VPDPBUSD multiplies 64 unsigned bytes by 64
// signed ones and sums them by fours into dword lanes, so with x in bytes a
// weight vector costs one dot product a byte of x.
//
// x becomes fixed point per block (128 columns for 4-bit weights, 64 for
// 8-bit ones): with m the block's largest |x| and u = m / (127 * 256),
// x = u (256 p0 + p1 + r), p0 an integer in [-127, 127], p1 one in
// [-128, 127] and |r| <= 1 (1/2 but where p1 saturates), an error of at
// most m / 32512, below the half-precision activations' own. A lane's dot
// products with the two pieces, d0 and d1, give u (256 d0 + d1): the dot
// products with the second piece add onto the first's shifted left by 8,
// so the join costs one integer shift. Weights go in as unsigned bytes: signed
// ones flipped to q + 128 (8-bit) or n + 8 (4-bit). The excess times x comes
// off once a row, as the row's scales times the excess sums of x per group
// (subtractExcess): a vector operation per 16 groups, where a correction
// starting each block's dot products cost two loads a block, a fifth of
// the 8-bit kernel's time (measured). Zero points come off in float, with
// the sums of x.

/// Bytes of x's pieces per 64 bytes of weights: two pieces of 64 bytes.
constexpr int64_t kPieceBytes = 128;
/// 256 s0 + s1 as floats: the lane sums of x in units of the second
/// piece, from the lane sums of the two pieces.
LLMC_AVX512_VNNI LLMC_INLINE __m512 joinPieces(__m512i s0, __m512i s1) {
  return _mm512_cvtepi32_ps(
      _mm512_add_epi32(_mm512_slli_epi32(s0, kPieceRadixBits), s1));
}

/// The lane sums of block b of x: in units of the second piece when the
/// units are folded into the scales, else in x's own.
LLMC_AVX512_VNNI LLMC_INLINE void storeLaneSums(float *laneSums, int64_t b,
                                                __m512i first, __m512i second,
                                                float unit, bool unitsFolded) {
  const __m512 sums = joinPieces(first, second);
  _mm512_storeu_ps(laneSums + 16 * b,
                   unitsFolded ? sums
                               : _mm512_mul_ps(sums, _mm512_set1_ps(unit)));
}

// 4-bit weights. Weight byte i holds columns 2i (low nibble) and 2i + 1
// (high): each piece is stored the same way, the even columns' bytes then
// the odd ones', so that dword lane l sums columns 8l .. 8l + 7, as in the
// float32 kernel, and the lane's group parameters are picked the same way.

/// Lays out the first k values of x for 4-bit weights: per 128-column
/// block, 2 kPieceBytes bytes of pieces (per piece, 64 even then 64 odd
/// columns), the unit and the sums of x per lane.
LLMC_AVX512_VNNI static void layoutNibblePieces(const float *x, int64_t k,
                                                int8_t *pieces, float *unit,
                                                float *laneSums,
                                                bool unitsFolded) {
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                          22, 24, 26, 28, 30);
  const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
  for (int64_t b = 0, blocks = (k + 127) / 128; b < blocks; ++b) {
    __m512 v[8];
    const PieceScale scale = loadPieceBlock(x, k, b, v);
    unit[b] = scale.unit;
    int8_t *out = pieces + b * 2 * kPieceBytes;
    for (int q = 0; q < 4; ++q)
      for (int odd = 0; odd < 2; ++odd) {
        __m128i first, second;
        splitPieces(
            _mm512_permutex2var_ps(v[2 * q], odd ? odds : evens, v[2 * q + 1]),
            scale, first, second);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 64 * odd + 16 * q),
                         first);
        _mm_storeu_si128(
            reinterpret_cast<__m128i *>(out + 128 + 64 * odd + 16 * q), second);
      }
    const __m512i first =
        _mm512_add_epi32(sumPieceLanes(out), sumPieceLanes(out + 64));
    const __m512i second =
        _mm512_add_epi32(sumPieceLanes(out + 128), sumPieceLanes(out + 192));
    storeLaneSums(laneSums, b, first, second, scale.unit, unitsFolded);
  }
}

/// Adds block b of a row to each row i of x's total: dot(i, piece, start)
/// adds the lanes' integer products with a piece onto `start`, and the
/// first piece's, shifted by the radix, start the second's (one shift
/// joins them). With UnitsFolded, the scales s hold the block's unit.
template <bool Asym, bool UnitsFolded, int M, typename Dot>
LLMC_AVX512_VNNI LLMC_INLINE void addPieceBlock(const GemvInputs &in, int64_t b,
                                                __m512 s, __m512 z, Dot &&dot,
                                                __m512 (&total)[M]) {
  for (int i = 0; i < M; ++i) {
    const __m512i first = dot(i, 0, _mm512_setzero_si512());
    __m512 a = _mm512_cvtepi32_ps(
        dot(i, 1, _mm512_slli_epi32(first, kPieceRadixBits)));
    if (!UnitsFolded)
      a = _mm512_mul_ps(a, _mm512_set1_ps(in.unit[i][b]));
    if (Asym)
      a = _mm512_fnmadd_ps(z, _mm512_loadu_ps(in.xSum[i] + 16 * b), a);
    total[i] = _mm512_fmadd_ps(a, s, total[i]);
  }
}

/// Per group g < groups, excess times the sum of laneSums over the lanes
/// in g (lane l of block b holds columns from b blockColumns + laneColumns
/// l), zero-padded to whole vectors: what flipping signed weights up by
/// `excess` adds to a row's products, per unit of the group's scale.
static void storeExcessSums(const float *laneSums, int64_t blocks,
                            int64_t blockColumns, int64_t laneColumns,
                            int64_t groupSize, int64_t groups, float excess,
                            float *out) {
  std::fill(out, out + (groups + 15) / 16 * 16, 0.0f);
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t l = 0; l < 16; ++l) {
      const int64_t g = (b * blockColumns + l * laneColumns) / groupSize;
      if (g < groups)
        out[g] += laneSums[16 * b + l];
    }
  for (int64_t g = 0; g < groups; ++g)
    out[g] *= excess;
}

/// Takes the flip excess of signed weights off a row's totals: its scales
/// times the excess sums of x, 16 groups a vector (the totals' lanes are
/// summed in the end).
template <int M>
LLMC_AVX512 LLMC_INLINE void
subtractExcess(const GemvInputs &in, const float *scale, __m512 (&total)[M]) {
  for (int64_t g = 0; g < in.groups; g += 16) {
    const __m512 s = _mm512_maskz_loadu_ps(maskOf(in.groups - g), scale + g);
    for (int i = 0; i < M; ++i)
      total[i] =
          _mm512_fnmadd_ps(s, _mm512_load_ps(in.excessSums[i] + g), total[i]);
  }
}

/// One 4-bit row by integer dot products; Wide as for rowQuant4,
/// UnitsFolded as for addPieceBlock.
template <bool Signed, bool Asym, int M, bool Wide, bool UnitsFolded>
LLMC_AVX512_VNNI LLMC_INLINE void
rowQuant4Vnni(const GemvInputs &in, const uint8_t *row, const float *scale,
              const float *zp, __m512i laneGroups, __m512 (&totals)[4]) {
  const __m512i lowNibbles = _mm512_set1_epi8(0x0f);
  const __m512i flip = _mm512_set1_epi8(Signed ? kNibbleExcess : 0);
  __m512 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm512_setzero_ps();
  auto block = [&](int64_t b, __m512i d) LLMC_AVX512_VNNI {
    // (n & 0x0f) ^ flip, for each nibble n.
    const __m512i low = _mm512_ternarylogic_epi32(d, lowNibbles, flip, 0x6a);
    const __m512i high = _mm512_ternarylogic_epi32(_mm512_srli_epi16(d, 4),
                                                   lowNibbles, flip, 0x6a);
    __m512 s, z;
    getBlockParams<Asym, Wide>(in, scale, zp, laneGroups, b, s, z);
    auto dot = [&](int i, int piece, __m512i start) LLMC_AVX512_VNNI {
      const int8_t *at = in.pieces[i] + (2 * b + piece) * kPieceBytes;
      return _mm512_dpbusd_epi32(
          _mm512_dpbusd_epi32(start, low, _mm512_load_si512(at)), high,
          _mm512_load_si512(at + 64));
    };
    addPieceBlock<Asym, UnitsFolded>(in, b, s, z, dot, total);
  };
  forEachRowBlock(in.k / 2, row, block);
  if (Signed)
    subtractExcess(in, scale, total);
  for (int i = 0; i < M; ++i)
    totals[i] = total[i];
}

// 8-bit weights: a weight vector is 64 columns in order, dword lane l
// columns 4l .. 4l + 3.

/// Lays out the first k values of x for 8-bit weights: per 64-column block,
/// kPieceBytes bytes of pieces (per piece, 64 columns), the unit and the
/// sums of x per lane.
LLMC_AVX512_VNNI static void layoutBytePieces(const float *x, int64_t k,
                                              int8_t *pieces, float *unit,
                                              float *laneSums,
                                              bool unitsFolded) {
  for (int64_t b = 0, blocks = (k + 63) / 64; b < blocks; ++b) {
    __m512 v[4];
    const PieceScale scale = loadPieceBlock(x, k, b, v);
    unit[b] = scale.unit;
    int8_t *out = pieces + b * kPieceBytes;
    for (int q = 0; q < 4; ++q) {
      __m128i first, second;
      splitPieces(v[q], scale, first, second);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 16 * q), first);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 64 + 16 * q), second);
    }
    const __m512i first = sumPieceLanes(out), second = sumPieceLanes(out + 64);
    storeLaneSums(laneSums, b, first, second, scale.unit, unitsFolded);
  }
}

/// One 8-bit row by integer dot products. Lane l of block b uses group
/// first + 4 l / groupSize (laneGroups), or, when groups span whole blocks
/// (Wide), the block's one group. UnitsFolded as for addPieceBlock.
template <bool Signed, bool Asym, int M, bool Wide, bool UnitsFolded>
LLMC_AVX512_VNNI LLMC_INLINE void
rowQuant8Vnni(const GemvInputs &in, const uint8_t *row, const float *scale,
              const float *zp, __m512i laneGroups, __m512 (&totals)[4]) {
  const __m512i flip = _mm512_set1_epi8(Signed ? char(kByteExcess) : 0);
  __m512 total[M];
  for (int i = 0; i < M; ++i)
    total[i] = _mm512_setzero_ps();
  auto block = [&](int64_t b, __m512i d) LLMC_AVX512_VNNI {
    const __m512i w = Signed ? _mm512_xor_si512(d, flip) : d;
    __m512 s, z;
    getBlockParams<Asym, Wide>(in, scale, zp, laneGroups, b, s, z);
    auto dot = [&](int i, int piece, __m512i start) LLMC_AVX512_VNNI {
      return _mm512_dpbusd_epi32(
          start, w,
          _mm512_load_si512(in.pieces[i] + b * kPieceBytes + 64 * piece));
    };
    addPieceBlock<Asym, UnitsFolded>(in, b, s, z, dot, total);
  };
  // The padding bytes meet pieces of 0.
  forEachRowBlock(in.k, row, block);
  if (Signed)
    subtractExcess(in, scale, total);
  for (int i = 0; i < M; ++i)
    totals[i] = total[i];
}

/// Rows [j0, j1) of a quantized matrix-vector product by integer dot
/// products.
template <WeightType T, bool Asym, int M, int Variant, bool UnitsFolded>
LLMC_AVX512_VNNI static void gemvRowsVnni(const GemvInputs &in,
                                          const Weights &w, int64_t j0,
                                          int64_t j1, const GemvOutput &out) {
  constexpr bool k4Bit = T == WeightType::I4 || T == WeightType::U4;
  constexpr bool kSigned = T == WeightType::I4 || T == WeightType::I8;
  const __m512i laneGroups = getLaneGroups(in.groupSize, k4Bit ? 8 : 4);
  forEachRow<T, Asym, M>(
      in, w, j0, j1, out,
      [&](const uint8_t *row, const float *scale, const float *zp,
          __m512(&totals)[4]) LLMC_AVX512_VNNI {
        if (k4Bit)
          rowQuant4Vnni<kSigned, Asym, M, Variant != 0, UnitsFolded>(
              in, row, scale, zp, laneGroups, totals);
        else
          rowQuant8Vnni<kSigned, Asym, M, Variant != 0, UnitsFolded>(
              in, row, scale, zp, laneGroups, totals);
      });
}

namespace {
/// How a chunk of output columns runs: the row loop for the weight type,
/// and the layout of x it wants.
struct GemvPlan {
  void (*rows)(const GemvInputs &, const Weights &, int64_t, int64_t,
               const GemvOutput &);
  enum Layout { Plain, Nibbles, NibblePieces, BytePieces } layout;
  /// Dequantize rows to float32 first (groups the kernels cannot step).
  bool dequantizeFirst;
  /// The integer-dot rows take x's units in the scales (GemvInputs).
  bool unitsFolded = false;
};
} // namespace

/// The row loop for quantized weights of type T: Variant is the vectors a
/// group for the float32 8-bit kernel (0: any), whether groups span whole
/// blocks for the others (see rowQuant8, rowQuant4 and the integer-dot
/// rows). The integer-dot rows fold x's units into the scales when there
/// is one row of x and each group lies inside one block (`groupsInBlocks`):
/// a multiply less a block, where the kernels are bound by their compute.
template <WeightType T, int M, int Variant>
static GemvPlan quantizedPlan(bool asym, GemvPlan::Layout layout,
                              bool groupsInBlocks = false) {
  if (layout == GemvPlan::NibblePieces || layout == GemvPlan::BytePieces) {
    if constexpr (M == 1)
      if (groupsInBlocks)
        return {asym ? gemvRowsVnni<T, true, M, Variant, true>
                     : gemvRowsVnni<T, false, M, Variant, true>,
                layout, false, true};
    return {asym ? gemvRowsVnni<T, true, M, Variant, false>
                 : gemvRowsVnni<T, false, M, Variant, false>,
            layout, false};
  }
  return {asym ? gemvRows<T, true, M, Variant> : gemvRows<T, false, M, Variant>,
          layout, false};
}

template <WeightType T, int M, bool Vnni>
static GemvPlan quantizedPlan(bool asym, int64_t groupSize) {
  if (T == WeightType::I4 || T == WeightType::U4) {
    // Groups must cover whole lanes of 8 columns and tile the 128-column
    // blocks: 8, 16, 32, 64, 128 or a multiple of 128.
    const GemvPlan::Layout layout =
        Vnni ? GemvPlan::NibblePieces : GemvPlan::Nibbles;
    if (groupSize % 128 == 0)
      return quantizedPlan<T, M, 1>(asym, layout, groupSize == 128);
    if (groupSize % 8 == 0 && 128 % groupSize == 0)
      return quantizedPlan<T, M, 0>(asym, layout, true);
  } else if (Vnni && (groupSize % 64 == 0 ||
                      (groupSize % 4 == 0 && 64 % groupSize == 0))) {
    // Groups cover whole lanes of 4 columns and tile the 64-column blocks.
    return groupSize % 64 == 0
               ? quantizedPlan<T, M, 1>(asym, GemvPlan::BytePieces,
                                        groupSize == 64)
               : quantizedPlan<T, M, 0>(asym, GemvPlan::BytePieces, true);
  } else {
    switch (groupSize) {
    case 16:
      return quantizedPlan<T, M, 1>(asym, GemvPlan::Plain);
    case 32:
      return quantizedPlan<T, M, 2>(asym, GemvPlan::Plain);
    case 64:
      return quantizedPlan<T, M, 4>(asym, GemvPlan::Plain);
    case 128:
      return quantizedPlan<T, M, 8>(asym, GemvPlan::Plain);
    default:
      if (groupSize % 16 == 0)
        return quantizedPlan<T, M, 0>(asym, GemvPlan::Plain);
    }
  }
  return {gemvRows<WeightType::F32, false, M, 0>, GemvPlan::Plain, true};
}

template <int M, bool Vnni> static GemvPlan planGemv(const Weights &w) {
  const bool asym = hasZeroPoint(w);
  const int64_t groupSize = getGroupSize(w);
  switch (w.type) {
  case WeightType::F32:
    return {gemvRows<WeightType::F32, false, M, 0>, GemvPlan::Plain, false};
  case WeightType::F16:
    return {gemvRows<WeightType::F16, false, M, 0>, GemvPlan::Plain, false};
  case WeightType::BF16:
    return {gemvRows<WeightType::BF16, false, M, 0>, GemvPlan::Plain, false};
  case WeightType::I8:
    return quantizedPlan<WeightType::I8, M, Vnni>(asym, groupSize);
  case WeightType::U8:
    return quantizedPlan<WeightType::U8, M, Vnni>(asym, groupSize);
  case WeightType::I4:
    return quantizedPlan<WeightType::I4, M, Vnni>(asym, groupSize);
  case WeightType::U4:
    return quantizedPlan<WeightType::U4, M, Vnni>(asym, groupSize);
  }
  return {gemvRows<WeightType::F32, false, M, 0>, GemvPlan::Plain, true};
}

/// The output columns `claims` hands this thread, of a product with M rows
/// of x: x is laid out once, then each claimed range streams its rows.
template <int M, bool Vnni>
LLMC_AVX512 static void gemvColumns(const LinearArgs &a, ColumnClaims &claims) {
  const Weights &w = a.getLeadWeights();
  const int64_t k = w.k;
  const GemvPlan plan = planGemv<M, Vnni>(w);
  GemvInputs in;
  in.k = k;
  in.groupSize = getGroupSize(w);
  in.groups = isQuantized(w.type) ? k / in.groupSize : 1;
  for (int i = 0; i < M; ++i)
    in.x[i] = a.x + i * a.xStride;

  if (plan.layout == GemvPlan::NibblePieces ||
      plan.layout == GemvPlan::BytePieces) {
    const bool nibbles = plan.layout == GemvPlan::NibblePieces;
    const int64_t blockColumns = nibbles ? 128 : 64;
    const int64_t blocks = (k + blockColumns - 1) / blockColumns;
    // Each row's pieces, then per row its lane sums (16 a block), excess
    // sums (whole vectors of groups) and units, all but the units in whole
    // cache lines, so that the kernels' loads of them are aligned (a load
    // across two lines costs two); then per block its first group, and the
    // unit factors when they are folded.
    const int64_t pieceFloats =
        blocks * (nibbles ? 2 : 1) * kPieceBytes / sizeof(float);
    const int64_t excessFloats = (in.groups + 15) / 16 * 16;
    const int64_t unitFloats =
        (blocks * (16 + 1) + excessFloats + 15) / 16 * 16;
    float *layout = getScratchAs<float>(
        Scratch::X,
        M * (pieceFloats + unitFloats) + blocks +
            (plan.unitsFolded ? getParamBatch(in.groups) : 0) * in.groups);
    int32_t *blockGroup =
        reinterpret_cast<int32_t *>(layout + M * (pieceFloats + unitFloats));
    for (int64_t b = 0; b < blocks; ++b)
      blockGroup[b] = int32_t(b * blockColumns / in.groupSize);
    in.blockGroup = blockGroup;
    for (int i = 0; i < M; ++i) {
      int8_t *pieces = reinterpret_cast<int8_t *>(layout + i * pieceFloats);
      float *laneSums = layout + M * pieceFloats + i * unitFloats;
      float *excessSums = laneSums + 16 * blocks;
      float *unit = excessSums + excessFloats;
      if (nibbles)
        layoutNibblePieces(in.x[i], k, pieces, unit, laneSums,
                           plan.unitsFolded);
      else
        layoutBytePieces(in.x[i], k, pieces, unit, laneSums, plan.unitsFolded);
      if (w.type == WeightType::I4 || w.type == WeightType::I8)
        storeExcessSums(laneSums, blocks, blockColumns, nibbles ? 8 : 4,
                        in.groupSize, in.groups,
                        nibbles ? kNibbleExcess : kByteExcess, excessSums);
      in.pieces[i] = pieces;
      in.unit[i] = unit;
      in.xSum[i] = laneSums;
      in.excessSums[i] = excessSums;
    }
    if (plan.unitsFolded) {
      float *factors = reinterpret_cast<float *>(blockGroup + blocks);
      for (int64_t g = 0; g < in.groups; ++g)
        factors[g] = in.unit[0][g * in.groupSize / blockColumns];
      for (int64_t r = 1, rows = getParamBatch(in.groups); r < rows; ++r)
        std::memcpy(factors + r * in.groups, factors,
                    in.groups * sizeof(float));
      in.unitFactors = factors;
    }
  } else if (plan.layout == GemvPlan::Nibbles) {
    // Per 128 columns: vector n holds columns 8 l + n (lane l), zero-padded
    // to whole blocks; and the sums per lane of the 8 vectors.
    const int64_t blocks = (k + 127) / 128;
    float *layout =
        getScratchAs<float>(Scratch::X, 2 * M * blocks * 128 + blocks);
    int32_t *blockGroup =
        reinterpret_cast<int32_t *>(layout + 2 * M * blocks * 128);
    for (int64_t b = 0; b < blocks; ++b)
      blockGroup[b] = int32_t(b * 128 / in.groupSize);
    in.blockGroup = blockGroup;
    for (int i = 0; i < M; ++i) {
      float *xp = layout + i * blocks * 128;
      float *xs = layout + (M + i) * blocks * 128;
      for (int64_t b = 0; b < blocks; ++b) {
        if (128 * b + 128 <= k) {
          const __m512i lanes = _mm512_setr_epi32(
              0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120);
          for (int n = 0; n < 8; ++n)
            _mm512_store_ps(xp + 128 * b + 16 * n,
                            _mm512_i32gather_ps(
                                _mm512_add_epi32(lanes, _mm512_set1_epi32(n)),
                                in.x[i] + 128 * b, 4));
        } else {
          for (int64_t n = 0; n < 8; ++n)
            for (int64_t l = 0; l < 16; ++l) {
              int64_t c = 128 * b + 8 * l + n;
              xp[128 * b + 16 * n + l] = c < k ? in.x[i][c] : 0.0f;
            }
        }
        __m512 sum = _mm512_setzero_ps();
        for (int64_t n = 0; n < 8; ++n)
          sum = _mm512_add_ps(sum, _mm512_loadu_ps(xp + 128 * b + 16 * n));
        _mm512_storeu_ps(xs + 16 * b, sum);
      }
      in.x[i] = xp;
      in.xSum[i] = xs;
    }
  } else {
    // x goes to 64-byte aligned memory: a vector load across two cache
    // lines costs two, and x is read once per weight row. Then for
    // asymmetric weights, per group, the sums per lane of its vectors.
    const int64_t padded = (k + 15) / 16 * 16;
    float *xa =
        getScratchAs<float>(Scratch::X, M * padded + M * in.groups * 16);
    for (int i = 0; i < M; ++i) {
      std::memcpy(xa + i * padded, in.x[i], sizeof(float) * k);
      in.x[i] = xa + i * padded;
    }
    float *xs = xa + M * padded;
    for (int i = 0; hasZeroPoint(w) && !plan.dequantizeFirst && i < M; ++i) {
      for (int64_t g = 0; g < in.groups; ++g) {
        __m512 sum = _mm512_setzero_ps();
        for (int64_t c = g * in.groupSize; c < (g + 1) * in.groupSize; c += 16)
          sum = _mm512_add_ps(sum, _mm512_load_ps(in.x[i] + c));
        _mm512_storeu_ps(xs + (i * in.groups + g) * 16, sum);
      }
      in.xSum[i] = xs + i * in.groups * 16;
    }
  }

  // Rows the kernels cannot step are dequantized 16 at a time.
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
        dequantizeAvx512(matrix, j, 0, k, rows + (j - jb) * k);
      Weights dense{WeightType::F32, rows, je - jb, k, 4 * k};
      GemvOutput shifted = out;
      shifted.base += jb - out.firstColumn;
      shifted.firstColumn = 0;
      if (shifted.bias)
        shifted.bias += jb;
      plan.rows(floats, dense, 0, je - jb, shifted);
    }
  };

  forEachClaimedPiece(a, claims, run, gateAvx512);
}

template <bool Vnni>
LLMC_AVX512 static void gemvRowCount(const LinearArgs &a,
                                     ColumnClaims &claims) {
  switch (a.m) {
  case 1:
    return gemvColumns<1, Vnni>(a, claims);
  case 2:
    return gemvColumns<2, Vnni>(a, claims);
  case 3:
    return gemvColumns<3, Vnni>(a, claims);
  default:
    return gemvColumns<4, Vnni>(a, claims);
  }
}

void gemvAvx512(const LinearArgs &a, ColumnClaims &claims) {
  gemvRowCount<false>(a, claims);
}

void gemvAvx512Vnni(const LinearArgs &a, ColumnClaims &claims) {
  gemvRowCount<true>(a, claims);
}

} // namespace llmc::host::detail

#endif
