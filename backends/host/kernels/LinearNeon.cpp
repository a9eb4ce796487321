//===- LinearNeon.cpp - the NEON path of the kernels ----------------------===//
//
// The table of the aarch64 path: the scalar table with NEON conversions,
// dequantization of float16 and bfloat16 rows, the matrix-vector product
// (GemvNeon.cpp) and a 4 x 16 microkernel of the blocked product.
// Attention and the gate stay scalar, widening keys and values with these
// conversions.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Scalar.h"

#if defined(__aarch64__)
#include <arm_neon.h>

namespace llmc::host::detail {

static void dequantizeNeon(const Weights &w, int64_t j, int64_t c0,
                           int64_t len, float *out) {
  const uint16_t *halves = reinterpret_cast<const uint16_t *>(rowOf(w, j));
  switch (w.type) {
  case WeightType::F16:
    return widenF16Neon(halves + c0, out, len);
  case WeightType::BF16:
    return widenBF16Neon(halves + c0, out, len);
  default:
    return dequantizeScalar(w, j, c0, len, out);
  }
}

// The scalar path's blocking: 4 rows of x by 16 columns, 16 accumulators.
constexpr int64_t kMr = 4, kNr = 16, kKc = 256;

static void microkernelNeon(const void *xbBytes, const void *panelBytes,
                            int64_t kc, float *c, int64_t cStride, bool load,
                            const float *bias) {
  const float *xb = static_cast<const float *>(xbBytes);
  const float *panel = static_cast<const float *>(panelBytes);
  float32x4_t acc[kMr][kNr / 4];
  for (int r = 0; r < kMr; ++r)
    for (int q = 0; q < kNr / 4; ++q)
      acc[r][q] = load ? vld1q_f32(c + r * cStride + 4 * q) : vdupq_n_f32(0);
  for (int64_t kk = 0; kk < kc; ++kk) {
    float32x4_t b[kNr / 4];
    for (int q = 0; q < kNr / 4; ++q)
      b[q] = vld1q_f32(panel + kk * kNr + 4 * q);
    for (int r = 0; r < kMr; ++r) {
      float x = xb[r * getXBlockStride(kKc) + kk];
      for (int q = 0; q < kNr / 4; ++q)
        acc[r][q] = vfmaq_n_f32(acc[r][q], b[q], x);
    }
  }
  for (int r = 0; r < kMr; ++r)
    for (int q = 0; q < kNr / 4; ++q)
      vst1q_f32(c + r * cStride + 4 * q,
                bias ? vaddq_f32(acc[r][q], vld1q_f32(bias + 4 * q))
                     : acc[r][q]);
}

static void packPanelNeon(const Weights &w, int64_t j0, int64_t cols,
                          int64_t c0, int64_t kc, void *panelBytes) {
  packPanelByRows(dequantizeNeon, kNr, w, j0, cols, c0, kc,
                  static_cast<float *>(panelBytes));
}

const IsaKernels &getNeonKernels() {
  static const IsaKernels kernels = [] {
    IsaKernels table = getScalarKernels();
    table.isa = Isa::Neon;
    table.widenF16 = widenF16Neon;
    table.widenBF16 = widenBF16Neon;
    table.narrowF16 = narrowF16Neon;
    table.narrowBF16 = narrowBF16Neon;
    table.dequantize = dequantizeNeon;
    table.gemvMaxRows = 4;
    table.gemv = gemvNeon;
    table.gemm.packPanel = packPanelNeon;
    table.gemm.microkernel = microkernelNeon;
    return table;
  }();
  return kernels;
}

} // namespace llmc::host::detail

#else

namespace llmc::host::detail {
const IsaKernels &getNeonKernels() { return getScalarKernels(); }
} // namespace llmc::host::detail

#endif
