//===- LinearAvx512.cpp - the AVX-512 path of linear ----------------------===//
//
// The pieces of the blocked product (prefill) and the table of the AVX-512
// path; the matrix-vector product is in GemvAvx512.cpp.
//  - dequantize: rows of weights to float32, as the reference computes them
//    ((q - zp) * scale, the difference exact, the product rounded once); for
//    4-bit weights through a per-group table of the 16 values and VPERMPS.
//  - the microkernel: 14 x 32 (28 accumulators, two panel vectors a step),
//    x broadcast from a copied block of constant row stride, so that every
//    address is a displacement off one register.
//  - the panel: 16 dequantized weight rows transposed in registers.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"
#include "backends/host/kernels/Scalar.h"

#if defined(__x86_64__)
#include "backends/host/kernels/Avx512Util.h"

#include <algorithm>
#include <cstring>

namespace llmc::host::detail {

LLMC_AVX512 void gateAvx512(Activation act, float *g, const float *u,
                            int64_t n) {
  for (int64_t c = 0; c < n; c += 16) {
    __mmask16 mask = maskOf(n - c);
    __m512 v = activationAvx512(act, _mm512_maskz_loadu_ps(mask, g + c));
    _mm512_mask_storeu_ps(g + c, mask,
                          _mm512_mul_ps(v, _mm512_maskz_loadu_ps(mask, u + c)));
  }
}

//===----------------------------------------------------------------------===//
// Dequantization
//===----------------------------------------------------------------------===//

LLMC_AVX512 void dequantizeAvx512(const Weights &w, int64_t j, int64_t c0,
                                  int64_t len, float *out) {
  const uint8_t *row = rowOf(w, j);
  switch (w.type) {
  case WeightType::F32:
    std::memcpy(out, row + 4 * c0, 4 * len);
    return;
  case WeightType::F16:
    widenF16Avx512(reinterpret_cast<const uint16_t *>(row) + c0, out, len);
    return;
  case WeightType::BF16:
    widenBF16Avx512(reinterpret_cast<const uint16_t *>(row) + c0, out, len);
    return;
  default:
    break;
  }
  bool isSigned = w.type == WeightType::I8 || w.type == WeightType::I4;
  bool is4Bit = w.type == WeightType::I4 || w.type == WeightType::U4;
  int64_t groupSize = getGroupSize(w);
  const uint8_t *scaleRow = scaleRowOf(w, j), *zpRow = zpRowOf(w, j);
  for (int64_t c = c0, end = c0 + len; c < end;) {
    int64_t group = c / groupSize;
    int64_t groupEnd = std::min(end, (group + 1) * groupSize);
    float scale = readParam(w.scaleType, scaleRow, group, 1.0f);
    float zp = readParam(w.zpType, zpRow, group, 0.0f);
    __m512 vScale = _mm512_set1_ps(scale), vZp = _mm512_set1_ps(zp);
    if (!is4Bit) {
      for (; c < groupEnd; c += 16) {
        int64_t n = groupEnd - c;
        __m512 q = _mm512_cvtepi32_ps(loadBytes(row + c, n, isSigned));
        _mm512_mask_storeu_ps(out + (c - c0), maskOf(n),
                              _mm512_mul_ps(_mm512_sub_ps(q, vZp), vScale));
      }
      c = groupEnd;
      continue;
    }
    if (c & 1) { // A group starting mid-byte.
      out[c - c0] = dequantValue(readQuant(w.type, row, c), zp, scale);
      ++c;
    }
    __m512 table =
        _mm512_mul_ps(_mm512_sub_ps(nibbleValues(isSigned), vZp), vScale);
    for (; c < groupEnd; c += 32) {
      int64_t n = groupEnd - c;
      __m512i d = loadBytes(row + c / 2, (n + 1) / 2, false);
      __m512 first, second;
      interleave(_mm512_permutexvar_ps(d, table),
                 _mm512_permutexvar_ps(_mm512_srli_epi32(d, 4), table), first,
                 second);
      _mm512_mask_storeu_ps(out + (c - c0), maskOf(n), first);
      if (n > 16)
        _mm512_mask_storeu_ps(out + (c - c0) + 16, maskOf(n - 16), second);
    }
    c = groupEnd;
  }
}

//===----------------------------------------------------------------------===//
// Matrix-matrix
//===----------------------------------------------------------------------===//

constexpr int64_t kMr = 14, kNr = 32, kKc = 256;

LLMC_AVX512 static void microkernelAvx512(const void *xbBytes,
                                          const void *panelBytes, int64_t kc,
                                          float *c, int64_t cStride, bool load,
                                          const float *bias) {
  const float *xb = static_cast<const float *>(xbBytes);
  const float *panel = static_cast<const float *>(panelBytes);
  __m512 acc[kMr][2];
  startTile(c, cStride, load, acc);
  for (int64_t kk = 0; kk < kc; ++kk) {
    __m512 b0 = _mm512_load_ps(panel + kk * kNr);
    __m512 b1 = _mm512_load_ps(panel + kk * kNr + 16);
#pragma GCC unroll 14
    for (int r = 0; r < kMr; ++r) {
      __m512 x = _mm512_set1_ps(xb[r * getXBlockStride(kKc) + kk]);
      acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  finishTile(acc, bias, c, cStride);
}

/// packPanel: 16 weight rows at a time dequantized, then transposed 16 x 16
/// in registers into the panel (a scattered store per element instead cost
/// about a tenth of a prefill product's time, measured).
LLMC_AVX512 static void packPanelAvx512(const Weights &w, int64_t j0,
                                        int64_t cols, int64_t c0, int64_t kc,
                                        void *panelBytes) {
  float *panel = static_cast<float *>(panelBytes);
  static_assert(kNr % 16 == 0, "a panel holds whole 16-column blocks");
  float *rows = getScratchAs<float>(Scratch::Rows, 16 * kc);
  for (int64_t jj = 0; jj < kNr; jj += 16) {
    const int64_t count = std::clamp<int64_t>(cols - jj, 0, 16);
    for (int64_t r = 0; r < count; ++r)
      dequantizeAvx512(w, j0 + jj + r, c0, kc, rows + r * kc);
    int64_t kk = 0;
    for (; kk + 16 <= kc; kk += 16)
      transpose16<FloatType::F32>(rows, kk, kc, count, panel + kk * kNr + jj,
                                  kNr);
    for (; kk < kc; ++kk)
      for (int64_t r = 0; r < 16; ++r)
        panel[kk * kNr + jj + r] = r < count ? rows[r * kc + kk] : 0.0f;
  }
}

const IsaKernels &getAvx512Kernels() {
  static const IsaKernels kernels = {
      Isa::Avx512,
      widenF16Avx512,
      widenBF16Avx512,
      narrowF16Avx512,
      narrowBF16Avx512,
      gateAvx512,
      dequantizeAvx512,
      /*gemvMaxRows=*/4,
      gemvAvx512,
      {kMr, kNr, kKc, getXBlockStride(kKc) * int64_t(sizeof(float)),
       kKc * kNr * int64_t(sizeof(float)), copyFloatRow, packPanelAvx512,
       microkernelAvx512},
      /*selectQuantizedGemm=*/nullptr,
      attentionRowsAvx512,
  };
  return kernels;
}

const IsaKernels &getAvx512VnniKernels() {
  static const IsaKernels kernels = [] {
    IsaKernels table = getAvx512Kernels();
    table.isa = Isa::Avx512Vnni;
    table.gemv = gemvAvx512Vnni;
    table.selectQuantizedGemm = selectGemmAvx512Vnni;
    return table;
  }();
  return kernels;
}

} // namespace llmc::host::detail

#else

namespace llmc::host::detail {
const IsaKernels &getAvx512Kernels() { return getScalarKernels(); }
const IsaKernels &getAvx512VnniKernels() { return getScalarKernels(); }
} // namespace llmc::host::detail

#endif
