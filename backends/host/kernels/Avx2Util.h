//===- Avx2Util.h - helpers of the AVX2 kernels -----------------*- C++ -*-===//
//
// Included by the AVX2 sources only; the functions of Avx512Util.h.
// Without VSCALEFPS the power of two is applied in two halves, 2^(n/2)
// twice, which keeps each factor a normal number and lets the products
// overflow and underflow (to subnormals) as exp itself does.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_AVX2UTIL_H
#define LLMC_BACKENDS_HOST_KERNELS_AVX2UTIL_H

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"

namespace llmc::host::detail {

/// The sum of the lanes, in a fixed order.
LLMC_AVX2 LLMC_INLINE float reduceAddAvx2(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/// 2^n for integral float n in [-252, 256].
LLMC_AVX2 LLMC_INLINE __m256 pow2Avx2(__m256 n, __m256 value) {
  __m256i ni = _mm256_cvtps_epi32(n);
  __m256i half = _mm256_srai_epi32(ni, 1);
  __m256i rest = _mm256_sub_epi32(ni, half);
  __m256 a = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(half, _mm256_set1_epi32(127)), 23));
  __m256 b = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(rest, _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(_mm256_mul_ps(value, a), b);
}

LLMC_AVX2 LLMC_INLINE __m256 expAvx2(__m256 x) {
  // As expAvx512: 0 below -86, with no subnormal on the way.
  __m256 flushed = _mm256_cmp_ps(x, _mm256_set1_ps(-86.0f), _CMP_LT_OQ);
  x = _mm256_min_ps(_mm256_set1_ps(100.0f), x);
  x = _mm256_max_ps(_mm256_set1_ps(-86.0f), x);
  __m256 n =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r),
                      _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // A NaN x made n NaN, which converts to INT_MIN: keep p (NaN) instead.
  __m256 isNan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  return _mm256_andnot_ps(flushed, _mm256_blendv_ps(pow2Avx2(n, p), x, isNan));
}

/// x / (1 + exp(-t)).
LLMC_AVX2 LLMC_INLINE __m256 sigmoidTimesAvx2(__m256 x, __m256 t) {
  __m256 e = expAvx2(_mm256_sub_ps(_mm256_setzero_ps(), t));
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

/// cap * tanh(s / cap), as softCapAvx512.
LLMC_AVX2 LLMC_INLINE __m256 softCapAvx2(__m256 s, float cap) {
  __m256 t = _mm256_mul_ps(s, _mm256_set1_ps(2.0f / cap));
  return _mm256_sub_ps(sigmoidTimesAvx2(_mm256_set1_ps(2.0f * cap), t),
                       _mm256_set1_ps(cap));
}

LLMC_AVX2 LLMC_INLINE __m256 erfAvx2(__m256 x) {
  x = _mm256_min_ps(_mm256_set1_ps(4.0f), x);
  x = _mm256_max_ps(_mm256_set1_ps(-4.0f), x);
  __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(-2.72614225801306e-10f);
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(2.77068142495902e-08f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-2.10102402082508e-06f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-5.69250639462346e-05f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-7.34990630326855e-04f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-2.95459980854025e-03f));
  p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(-1.60960333262415e-02f));
  p = _mm256_mul_ps(p, x);
  __m256 q = _mm256_set1_ps(-1.45660718464996e-05f);
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-2.13374055278905e-04f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-1.68282697438203e-03f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-7.37332916720468e-03f));
  q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(-1.42647390514189e-02f));
  return _mm256_div_ps(p, q);
}

LLMC_AVX2 LLMC_INLINE __m256 activationAvx2(Activation act, __m256 x) {
  switch (act) {
  case Activation::SiLU:
    return sigmoidTimesAvx2(x, x);
  case Activation::GELU: {
    __m256 e = erfAvx2(_mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f)));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x),
                         _mm256_add_ps(_mm256_set1_ps(1.0f), e));
  }
  case Activation::GELUTanh: {
    __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
    __m256 y = _mm256_fmadd_ps(x3, _mm256_set1_ps(0.044715f), x);
    return sigmoidTimesAvx2(
        x, _mm256_mul_ps(y, _mm256_set1_ps(1.59576912160573071f)));
  }
  }
  return x;
}

/// The lanes of a mask for the first n (< 8 or more) elements.
LLMC_AVX2 LLMC_INLINE __m256i maskAvx2(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(n < 8 ? n : 8)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

} // namespace llmc::host::detail

#endif // LLMC_BACKENDS_HOST_KERNELS_AVX2UTIL_H
