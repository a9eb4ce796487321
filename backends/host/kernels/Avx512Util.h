//===- Avx512Util.h - helpers of the AVX-512 kernels -------------*- C++
//-*-===//
//
// Included by the AVX-512 sources only: masks and byte loads, the nibble
// table, reductions, and exp and the activations. exp is Cephes' expf (a
// degree-6 polynomial on [-ln2/2, ln2/2], about 1 ulp); VSCALEFPS applies
// the power of two, which gets overflow, underflow and subnormals right
// without clamping the exponent. SiLU and the tanh form of GELU are written
// as x / (1 + exp(-t)) (0.5 * (1 + tanh(y)) is 1 / (1 + exp(-2y))), which
// has no cancellation; erf uses the rational approximation of Eigen's
// generic_fast_erf_float (a few ulp on [-4, 4], where it is clamped).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_AVX512UTIL_H
#define LLMC_BACKENDS_HOST_KERNELS_AVX512UTIL_H

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"

namespace llmc::host::detail {

/// The first n lanes (none for n <= 0).
LLMC_AVX512 LLMC_INLINE __mmask16 maskOf(int64_t n) {
  return n >= 16  ? __mmask16(0xffff)
         : n <= 0 ? __mmask16(0)
                  : __mmask16((1u << n) - 1);
}

/// 16 floats stored as T from element `index` of `data` (the lanes `mask`
/// selects; zeros elsewhere).
template <FloatType T>
LLMC_AVX512 LLMC_INLINE __m512 loadFloats(const void *data, int64_t index,
                                          __mmask16 mask) {
  if (T == FloatType::F32)
    return _mm512_maskz_loadu_ps(mask,
                                 static_cast<const float *>(data) + index);
  const __m256i halves = _mm256_maskz_loadu_epi16(
      mask, static_cast<const uint16_t *>(data) + index);
  if (T == FloatType::F16)
    return _mm512_cvtph_ps(halves);
  return _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_cvtepu16_epi32(halves), 16));
}

/// Transposes a 16 x 16 block of rows stored as T, widened:
/// out[c * outStride + r] = in[first + r * inStride + c], zero for rows
/// r >= rowCount.
template <FloatType T>
LLMC_AVX512 inline void transpose16(const void *in, int64_t first,
                                    int64_t inStride, int64_t rowCount,
                                    float *out, int64_t outStride) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i)
    r[i] = i < rowCount ? loadFloats<T>(in, first + i * inStride, 0xffff)
                        : _mm512_setzero_ps();
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4)
    for (int j = 0; j < 2; ++j) {
      r[i + j] = _mm512_castpd_ps(_mm512_unpacklo_pd(
          _mm512_castps_pd(t[i + j]), _mm512_castps_pd(t[i + j + 2])));
      r[i + j + 2] = _mm512_castpd_ps(_mm512_unpackhi_pd(
          _mm512_castps_pd(t[i + j]), _mm512_castps_pd(t[i + j + 2])));
    }
  // Rows 0..3 now hold, per 128-bit lane q, columns 4q + {0, 2, 1, 3} of
  // rows 0..3 of each quad; gather the lanes across quads.
  for (int i = 0; i < 4; ++i) {
    __m512 a = r[i], b = r[i + 4], c = r[i + 8], d = r[i + 12];
    __m512 ab0 = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 ab1 = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 2, 3, 2));
    __m512 cd0 = _mm512_shuffle_f32x4(c, d, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 cd1 = _mm512_shuffle_f32x4(c, d, _MM_SHUFFLE(3, 2, 3, 2));
    t[i] = _mm512_shuffle_f32x4(ab0, cd0, _MM_SHUFFLE(2, 0, 2, 0));
    t[i + 4] = _mm512_shuffle_f32x4(ab0, cd0, _MM_SHUFFLE(3, 1, 3, 1));
    t[i + 8] = _mm512_shuffle_f32x4(ab1, cd1, _MM_SHUFFLE(2, 0, 2, 0));
    t[i + 12] = _mm512_shuffle_f32x4(ab1, cd1, _MM_SHUFFLE(3, 1, 3, 1));
  }
  // t[i + 4q] holds column 4q + perm(i) of all 16 rows, perm = {0, 2, 1, 3}.
  static constexpr int kPerm[4] = {0, 2, 1, 3};
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 4; ++i)
      _mm512_storeu_ps(out + (4 * q + kPerm[i]) * outStride, t[i + 4 * q]);
}

/// A microkernel's tile of Rows x 32 accumulators: loaded from c, or zero.
template <int Rows>
LLMC_AVX512 LLMC_INLINE void startTile(const float *c, int64_t cStride,
                                       bool load, __m512 (&acc)[Rows][2]) {
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
    acc[r][0] = load ? _mm512_loadu_ps(c + r * cStride) : _mm512_setzero_ps();
    acc[r][1] =
        load ? _mm512_loadu_ps(c + r * cStride + 16) : _mm512_setzero_ps();
  }
}

/// Stores a tile of Rows x 32 accumulators to c, plus `bias` (32 values)
/// unless it is null.
template <int Rows>
LLMC_AVX512 LLMC_INLINE void finishTile(__m512 (&acc)[Rows][2],
                                        const float *bias, float *c,
                                        int64_t cStride) {
  if (bias) {
    const __m512 bias0 = _mm512_loadu_ps(bias),
                 bias1 = _mm512_loadu_ps(bias + 16);
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r) {
      acc[r][0] = _mm512_add_ps(acc[r][0], bias0);
      acc[r][1] = _mm512_add_ps(acc[r][1], bias1);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < Rows; ++r) {
    _mm512_storeu_ps(c + r * cStride, acc[r][0]);
    _mm512_storeu_ps(c + r * cStride + 16, acc[r][1]);
  }
}

/// The dword lanes of 16 bytes (fewer, zero-filled, when n < 16).
LLMC_AVX512 LLMC_INLINE __m512i loadBytes(const uint8_t *at, int64_t n,
                                          bool isSigned) {
  __m128i bytes = n >= 16
                      ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(at))
                      : _mm_maskz_loadu_epi8(maskOf(n), at);
  return isSigned ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
}

/// The 16 values of a 4-bit type: lane u holds the integer nibble u means.
LLMC_AVX512 LLMC_INLINE __m512 nibbleValues(bool isSigned) {
  return isSigned ? _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4,
                                   -3, -2, -1)
                  : _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                   14, 15);
}

/// Interleaves the even-column and odd-column halves of 32 values.
LLMC_AVX512 LLMC_INLINE void interleave(__m512 even, __m512 odd, __m512 &first,
                                        __m512 &second) {
  const __m512i lo =
      _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13,
                                       29, 14, 30, 15, 31);
  first = _mm512_permutex2var_ps(even, lo, odd);
  second = _mm512_permutex2var_ps(even, hi, odd);
}

/// The sum of the lanes, in a fixed order (halves, then quarters, ...).
/// GCC 12's _mm512_reduce_add_ps trips -Wuninitialized.
LLMC_AVX512 LLMC_INLINE float reduceAddAvx512(__m512 v) {
  v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
  v = _mm512_add_ps(v, _mm512_permute_ps(v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm512_add_ps(v, _mm512_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm512_cvtss_f32(v);
}

LLMC_AVX512 LLMC_INLINE __m512 expAvx512(__m512 x) {
  // Above 100 the result is inf anyway. Below -86 it is under 2^-124, and
  // it is 0: x is clamped there, so that no step makes a subnormal or
  // underflows, each of which costs a microcode assist of 100-odd cycles
  // (the masked keys of a decode step's softmax, -inf, made most of its
  // exponentials so). min/max with x second keep NaNs.
  const __mmask16 flushed =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(-86.0f), _CMP_LT_OQ);
  x = _mm512_min_ps(_mm512_set1_ps(100.0f), x);
  x = _mm512_max_ps(_mm512_set1_ps(-86.0f), x);
  __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r),
                      _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_maskz_scalef_ps(__mmask16(~flushed), p, n);
}

/// x / (1 + exp(-t)).
LLMC_AVX512 LLMC_INLINE __m512 sigmoidTimesAvx512(__m512 x, __m512 t) {
  __m512 e = expAvx512(_mm512_sub_ps(_mm512_setzero_ps(), t));
  return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

/// cap * tanh(s / cap), as 2 cap sigmoid(2 s / cap) - cap: its error is
/// that of sigmoid times 2 cap, some ulps of cap.
LLMC_AVX512 LLMC_INLINE __m512 softCapAvx512(__m512 s, float cap) {
  __m512 t = _mm512_mul_ps(s, _mm512_set1_ps(2.0f / cap));
  return _mm512_sub_ps(sigmoidTimesAvx512(_mm512_set1_ps(2.0f * cap), t),
                       _mm512_set1_ps(cap));
}

LLMC_AVX512 LLMC_INLINE __m512 erfAvx512(__m512 x) {
  x = _mm512_min_ps(_mm512_set1_ps(4.0f), x);
  x = _mm512_max_ps(_mm512_set1_ps(-4.0f), x);
  __m512 x2 = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(-2.72614225801306e-10f);
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(2.77068142495902e-08f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-2.10102402082508e-06f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-5.69250639462346e-05f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-7.34990630326855e-04f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-2.95459980854025e-03f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-1.60960333262415e-02f));
  p = _mm512_mul_ps(p, x);
  __m512 q = _mm512_set1_ps(-1.45660718464996e-05f);
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-2.13374055278905e-04f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-1.68282697438203e-03f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-7.37332916720468e-03f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-1.42647390514189e-02f));
  return _mm512_div_ps(p, q);
}

LLMC_AVX512 LLMC_INLINE __m512 activationAvx512(Activation act, __m512 x) {
  switch (act) {
  case Activation::SiLU:
    return sigmoidTimesAvx512(x, x);
  case Activation::GELU: {
    __m512 e =
        erfAvx512(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f)));
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x),
                         _mm512_add_ps(_mm512_set1_ps(1.0f), e));
  }
  case Activation::GELUTanh: {
    // 2 * sqrt(2 / pi) * (x + 0.044715 x^3).
    __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
    __m512 y = _mm512_fmadd_ps(x3, _mm512_set1_ps(0.044715f), x);
    return sigmoidTimesAvx512(
        x, _mm512_mul_ps(y, _mm512_set1_ps(1.59576912160573071f)));
  }
  }
  return x;
}

} // namespace llmc::host::detail

#endif // LLMC_BACKENDS_HOST_KERNELS_AVX512UTIL_H
