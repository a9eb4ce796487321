//===- Convert.cpp - float16 and bfloat16 arrays to and from float32 ------===//
//
// F16C converts with round-to-nearest-even and keeps subnormals (the
// default MXCSR has neither DAZ nor FTZ) and quiets NaNs keeping their top
// payload bits, which is what the scalar code of Scalar.h does. bfloat16 is
// done with integer arithmetic on every path: VCVTNEPS2BF16 would flush
// subnormals.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"
#include "backends/host/kernels/Scalar.h"

#include <cstring>

namespace llmc::host {
namespace detail {

// Weight rows are addressed in bytes, so the kernels may pass these an
// oddly aligned `in`: elements are read with memcpy.
static uint16_t loadU16(const uint16_t *at) {
  uint16_t value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

void widenF16Scalar(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = halfToFloat(loadU16(in + i));
}

void widenBF16Scalar(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = bfloat16ToFloat(loadU16(in + i));
}

void narrowF16Scalar(const float *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = floatToHalf(in[i]);
}

void narrowBF16Scalar(const float *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = floatToBFloat16(in[i]);
}

#if defined(__x86_64__)

//===----------------------------------------------------------------------===//
// AVX2
//===----------------------------------------------------------------------===//

LLMC_AVX2 void widenF16Avx2(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                  reinterpret_cast<const __m128i *>(in + i))));
  widenF16Scalar(in + i, out + i, n - i);
}

LLMC_AVX2 void widenBF16Avx2(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i wide = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                        _mm256_slli_epi32(wide, 16));
  }
  widenBF16Scalar(in + i, out + i, n - i);
}

LLMC_AVX2 void narrowF16Avx2(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(out + i),
        _mm256_cvtps_ph(_mm256_loadu_ps(in + i),
                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  narrowF16Scalar(in + i, out + i, n - i);
}

/// The rounded bfloat16 bits of 8 floats, in the low halves of the lanes.
LLMC_AVX2 static inline __m256i roundToBF16Avx2(__m256 v) {
  __m256i bits = _mm256_castps_si256(v);
  __m256i odd =
      _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), odd),
      16);
  __m256i quiet =
      _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
  __m256 isNan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  return _mm256_castps_si256(_mm256_blendv_ps(
      _mm256_castsi256_ps(rounded), _mm256_castsi256_ps(quiet), isNan));
}

LLMC_AVX2 void narrowBF16Avx2(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i lo = roundToBF16Avx2(_mm256_loadu_ps(in + i));
    __m256i hi = roundToBF16Avx2(_mm256_loadu_ps(in + i + 8));
    // packus works within 128-bit lanes; put the quarters back in order.
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi),
                                              _MM_SHUFFLE(3, 1, 2, 0));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), packed);
  }
  narrowBF16Scalar(in + i, out + i, n - i);
}

//===----------------------------------------------------------------------===//
// AVX-512
//===----------------------------------------------------------------------===//

LLMC_AVX512 static inline __mmask16 tailMask(int64_t n) {
  return __mmask16((1u << n) - 1);
}

LLMC_AVX512 void widenF16Avx512(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256(
                                  reinterpret_cast<const __m256i *>(in + i))));
  if (i < n) {
    __mmask16 mask = tailMask(n - i);
    _mm512_mask_storeu_ps(
        out + i, mask, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, in + i)));
  }
}

LLMC_AVX512 void widenBF16Avx512(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i wide = _mm512_cvtepu16_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i)));
    _mm512_storeu_si512(out + i, _mm512_slli_epi32(wide, 16));
  }
  if (i < n) {
    __mmask16 mask = tailMask(n - i);
    __m512i wide =
        _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, in + i));
    _mm512_mask_storeu_epi32(out + i, mask, _mm512_slli_epi32(wide, 16));
  }
}

LLMC_AVX512 void narrowF16Avx512(const float *in, uint16_t *out, int64_t n) {
  constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(in + i), kRound));
  if (i < n) {
    __mmask16 mask = tailMask(n - i);
    _mm256_mask_storeu_epi16(
        out + i, mask,
        _mm512_cvtps_ph(_mm512_maskz_loadu_ps(mask, in + i), kRound));
  }
}

LLMC_AVX512 static inline __m256i roundToBF16Avx512(__m512 v) {
  __m512i bits = _mm512_castps_si512(v);
  __m512i high = _mm512_srli_epi32(bits, 16);
  __m512i odd = _mm512_and_si512(high, _mm512_set1_epi32(1));
  __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), odd),
      16);
  __m512i quiet = _mm512_or_si512(high, _mm512_set1_epi32(0x40));
  __mmask16 isNan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(isNan, rounded, quiet));
}

LLMC_AVX512 void narrowBF16Avx512(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                        roundToBF16Avx512(_mm512_loadu_ps(in + i)));
  if (i < n) {
    __mmask16 mask = tailMask(n - i);
    _mm256_mask_storeu_epi16(
        out + i, mask, roundToBF16Avx512(_mm512_maskz_loadu_ps(mask, in + i)));
  }
}

#endif

} // namespace detail

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void widenF16(const uint16_t *in, float *out, int64_t n, Isa isa) {
  detail::getKernels(isa).widenF16(in, out, n);
}
void widenBF16(const uint16_t *in, float *out, int64_t n, Isa isa) {
  detail::getKernels(isa).widenBF16(in, out, n);
}
void narrowF16(const float *in, uint16_t *out, int64_t n, Isa isa) {
  detail::getKernels(isa).narrowF16(in, out, n);
}
void narrowBF16(const float *in, uint16_t *out, int64_t n, Isa isa) {
  detail::getKernels(isa).narrowBF16(in, out, n);
}

void widenF16(const uint16_t *in, float *out, int64_t n) {
  widenF16(in, out, n, selectIsa());
}
void widenBF16(const uint16_t *in, float *out, int64_t n) {
  widenBF16(in, out, n, selectIsa());
}
void narrowF16(const float *in, uint16_t *out, int64_t n) {
  narrowF16(in, out, n, selectIsa());
}
void narrowBF16(const float *in, uint16_t *out, int64_t n) {
  narrowBF16(in, out, n, selectIsa());
}

} // namespace llmc::host
