//===- PiecesAvx512.h - x as two bytes a value, for VPDPBUSD ---*- C++ -*-===//
//
// Included by the AVX-512 VNNI sources only (GemvAvx512.cpp's comment on
// integer dot products tells the scheme): a block of x becomes two signed
// byte pieces p0 and p1 with x = u (256 p0 + p1 + r), |r| <= 1, so that
// dot products with bytes of weights are exact integers and x keeps about
// 15 bits of its block's largest value.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_PIECESAVX512_H
#define LLMC_BACKENDS_HOST_KERNELS_PIECESAVX512_H

#include "backends/host/kernels/Avx512Util.h"

#include <cmath>
#include <limits>

namespace llmc::host::detail {

/// The radix between the two pieces.
constexpr int kPieceRadixBits = 8;
constexpr float kPieceRadix = 1 << kPieceRadixBits;
/// What flipping signed weights to unsigned bytes adds to them (an XOR of
/// the sign bit: of the masked nibble, of the byte).
constexpr int kNibbleExcess = 8;
constexpr int kByteExcess = 128;

/// How a block of x becomes pieces: y = scalef(x, exponent) * factor is x
/// in units of the first piece (scaling by the power of two first, so that
/// no factor overflows), and `unit` the value of one unit of the second.
struct PieceScale {
  __m512 exponent, factor;
  float unit;
};

/// The piece scale of a block whose largest |x| is `most`; a block holding
/// NaN or infinity gets a NaN unit, so that its products are NaN, as the
/// float32 kernels' would be (or infinite).
LLMC_AVX512 inline PieceScale getPieceScale(float most, bool nonFinite) {
  PieceScale scale{_mm512_setzero_ps(), _mm512_setzero_ps(), 0.0f};
  if (nonFinite) {
    scale.unit = std::numeric_limits<float>::quiet_NaN();
  } else if (most > 0.0f) {
    const int g = std::ilogb(most);
    // most 2^-g lies in [1, 2): the factor in (63.5, 127].
    const float factor = 127.0f / std::ldexp(most, -g);
    scale.exponent = _mm512_set1_ps(float(-g));
    scale.factor = _mm512_set1_ps(factor);
    scale.unit = std::ldexp(1.0f / (factor * kPieceRadix), g);
  }
  return scale;
}

/// The two pieces of 16 values of x, as bytes.
LLMC_AVX512_VNNI LLMC_INLINE void splitPieces(__m512 x, const PieceScale &s,
                                              __m128i &first, __m128i &second) {
  const __m512 y = _mm512_mul_ps(_mm512_scalef_ps(x, s.exponent), s.factor);
  const __m512 whole =
      _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  first = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(whole));
  // (y - whole) 256 lies in [-128, 128]: 128 saturates to 127.
  second = _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(
      _mm512_mul_ps(_mm512_sub_ps(y, whole), _mm512_set1_ps(kPieceRadix))));
}

/// The per-lane sums of 64 pieces (dword lane l: bytes 4l .. 4l + 3).
LLMC_AVX512_VNNI LLMC_INLINE __m512i sumPieceLanes(const int8_t *pieces) {
  return _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(1),
                             _mm512_loadu_si512(pieces));
}

/// Loads block b of x, columns [16 N b, 16 N (b + 1)) (zeros past k), into
/// v, and returns its piece scale.
template <int N>
LLMC_AVX512 LLMC_INLINE PieceScale loadPieceBlock(const float *x, int64_t k,
                                                  int64_t b, __m512 (&v)[N]) {
  __m512 largest = _mm512_setzero_ps();
  __mmask16 nonFinite = 0;
  for (int q = 0; q < N; ++q) {
    const int64_t c = 16 * (N * b + q);
    v[q] = _mm512_maskz_loadu_ps(maskOf(k - c), x + c);
    largest = _mm512_max_ps(largest, _mm512_abs_ps(v[q]));
    nonFinite |= _mm512_cmp_ps_mask(_mm512_sub_ps(v[q], v[q]),
                                    _mm512_setzero_ps(), _CMP_NEQ_UQ);
  }
  return getPieceScale(_mm512_reduce_max_ps(largest), nonFinite != 0);
}

} // namespace llmc::host::detail

#endif // LLMC_BACKENDS_HOST_KERNELS_PIECESAVX512_H
