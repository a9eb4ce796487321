//===- LinearAvx2.cpp - the AVX2 path of linear ---------------------------===//
//
// The pieces of the blocked product and the table of the AVX2 path (the
// matrix-vector product is in GemvAvx2.cpp): dequantization of weight rows
// to float32, and a 6 x 16 microkernel.
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

LLMC_AVX2 void gateAvx2(Activation act, float *g, const float *u, int64_t n) {
  int64_t c = 0;
  for (; c + 8 <= n; c += 8)
    _mm256_storeu_ps(g + c,
                     _mm256_mul_ps(activationAvx2(act, _mm256_loadu_ps(g + c)),
                                   _mm256_loadu_ps(u + c)));
  if (c < n) {
    __m256i mask = maskAvx2(n - c);
    __m256 v = activationAvx2(act, _mm256_maskload_ps(g + c, mask));
    _mm256_maskstore_ps(g + c, mask,
                        _mm256_mul_ps(v, _mm256_maskload_ps(u + c, mask)));
  }
}

//===----------------------------------------------------------------------===//
// Dequantization
//===----------------------------------------------------------------------===//

LLMC_AVX2 void dequantizeAvx2(const Weights &w, int64_t j, int64_t c0,
                              int64_t len, float *out) {
  const uint8_t *row = rowOf(w, j);
  switch (w.type) {
  case WeightType::F32:
    std::memcpy(out, row + 4 * c0, 4 * len);
    return;
  case WeightType::F16:
    widenF16Avx2(reinterpret_cast<const uint16_t *>(row) + c0, out, len);
    return;
  case WeightType::BF16:
    widenBF16Avx2(reinterpret_cast<const uint16_t *>(row) + c0, out, len);
    return;
  default:
    break;
  }
  const bool isSigned = w.type == WeightType::I8 || w.type == WeightType::I4;
  const bool is4Bit = w.type == WeightType::I4 || w.type == WeightType::U4;
  const int64_t groupSize = getGroupSize(w);
  const uint8_t *scaleRow = scaleRowOf(w, j), *zpRow = zpRowOf(w, j);
  for (int64_t c = c0, end = c0 + len; c < end;) {
    int64_t group = c / groupSize;
    int64_t groupEnd = std::min(end, (group + 1) * groupSize);
    float scale = readParam(w.scaleType, scaleRow, group, 1.0f);
    float zp = readParam(w.zpType, zpRow, group, 0.0f);
    __m256 vScale = _mm256_set1_ps(scale), vZp = _mm256_set1_ps(zp);
    if (!is4Bit) {
      for (; c + 8 <= groupEnd; c += 8) {
        __m128i bytes =
            _mm_loadl_epi64(reinterpret_cast<const __m128i *>(row + c));
        __m256 q = _mm256_cvtepi32_ps(isSigned ? _mm256_cvtepi8_epi32(bytes)
                                               : _mm256_cvtepu8_epi32(bytes));
        _mm256_storeu_ps(out + (c - c0),
                         _mm256_mul_ps(_mm256_sub_ps(q, vZp), vScale));
      }
    } else if (c % 2 == 0) {
      const __m256i low = _mm256_set1_epi32(15);
      for (; c + 16 <= groupEnd; c += 16) {
        __m128i bytes =
            _mm_loadl_epi64(reinterpret_cast<const __m128i *>(row + c / 2));
        if (isSigned)
          bytes = _mm_xor_si128(bytes, _mm_set1_epi8(int8_t(0x88)));
        __m256i d = _mm256_cvtepu8_epi32(bytes);
        __m256i offset = _mm256_set1_epi32(isSigned ? 8 : 0);
        __m256 even = _mm256_cvtepi32_ps(
            _mm256_sub_epi32(_mm256_and_si256(d, low), offset));
        __m256 odd = _mm256_cvtepi32_ps(
            _mm256_sub_epi32(_mm256_srli_epi32(d, 4), offset));
        even = _mm256_mul_ps(_mm256_sub_ps(even, vZp), vScale);
        odd = _mm256_mul_ps(_mm256_sub_ps(odd, vZp), vScale);
        __m256 lo = _mm256_unpacklo_ps(even, odd),
               hi = _mm256_unpackhi_ps(even, odd);
        _mm256_storeu_ps(out + (c - c0), _mm256_permute2f128_ps(lo, hi, 0x20));
        _mm256_storeu_ps(out + (c - c0) + 8,
                         _mm256_permute2f128_ps(lo, hi, 0x31));
      }
    }
    for (; c < groupEnd; ++c)
      out[c - c0] = dequantValue(readQuant(w.type, row, c), zp, scale);
  }
}

//===----------------------------------------------------------------------===//
// Matrix-matrix
//===----------------------------------------------------------------------===//

constexpr int64_t kMr = 6, kNr = 16, kKc = 256;

LLMC_AVX2 static void microkernelAvx2(const void *xbBytes,
                                      const void *panelBytes, int64_t kc,
                                      float *c, int64_t cStride, bool load,
                                      const float *bias) {
  const float *xb = static_cast<const float *>(xbBytes);
  const float *panel = static_cast<const float *>(panelBytes);
  __m256 acc[kMr][2];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    acc[r][0] = load ? _mm256_loadu_ps(c + r * cStride) : _mm256_setzero_ps();
    acc[r][1] =
        load ? _mm256_loadu_ps(c + r * cStride + 8) : _mm256_setzero_ps();
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    __m256 b0 = _mm256_load_ps(panel + kk * kNr);
    __m256 b1 = _mm256_load_ps(panel + kk * kNr + 8);
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      __m256 x = _mm256_broadcast_ss(xb + r * getXBlockStride(kKc) + kk);
      acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    if (bias) {
      acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_loadu_ps(bias));
      acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_loadu_ps(bias + 8));
    }
    _mm256_storeu_ps(c + r * cStride, acc[r][0]);
    _mm256_storeu_ps(c + r * cStride + 8, acc[r][1]);
  }
}

static void packPanelAvx2(const Weights &w, int64_t j0, int64_t cols,
                          int64_t c0, int64_t kc, void *panelBytes) {
  packPanelByRows(dequantizeAvx2, kNr, w, j0, cols, c0, kc,
                  static_cast<float *>(panelBytes));
}

const IsaKernels &getAvx2Kernels() {
  static const IsaKernels kernels = {
      Isa::Avx2,
      widenF16Avx2,
      widenBF16Avx2,
      narrowF16Avx2,
      narrowBF16Avx2,
      gateAvx2,
      dequantizeAvx2,
      /*gemvMaxRows=*/4,
      gemvAvx2,
      {kMr, kNr, kKc, getXBlockStride(kKc) * int64_t(sizeof(float)),
       kKc * kNr * int64_t(sizeof(float)), copyFloatRow, packPanelAvx2,
       microkernelAvx2},
      /*selectQuantizedGemm=*/nullptr,
      attentionRowsAvx2,
  };
  return kernels;
}

} // namespace llmc::host::detail

#else

namespace llmc::host::detail {
const IsaKernels &getAvx2Kernels() { return getScalarKernels(); }
} // namespace llmc::host::detail

#endif
