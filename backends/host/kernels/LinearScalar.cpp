//===- LinearScalar.cpp - the portable path of the kernels ----------------===//
//
// Plain C++ for hosts without AVX2 (and the reference the SIMD paths are
// tested against besides the double-precision one): rows are dequantized to
// float32 and multiplied with eight partial sums, which the compiler can
// keep in SSE registers.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Scalar.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace llmc::host::detail {

float activationScalar(Activation act, float v) {
  switch (act) {
  case Activation::SiLU:
    return v / (1.0f + std::exp(-v));
  case Activation::GELU:
    return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f));
  case Activation::GELUTanh:
    return 0.5f * v *
           (1.0f +
            std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
  }
  return v;
}

static void gateScalar(Activation act, float *g, const float *u, int64_t n) {
  for (int64_t c = 0; c < n; ++c)
    g[c] = activationScalar(act, g[c]) * u[c];
}

void dequantizeScalar(const Weights &w, int64_t j, int64_t c0, int64_t len,
                      float *out) {
  const uint8_t *row = rowOf(w, j);
  switch (w.type) {
  case WeightType::F32:
    std::memcpy(out, row + 4 * c0, 4 * len);
    return;
  case WeightType::F16:
    widenF16Scalar(reinterpret_cast<const uint16_t *>(row) + c0, out, len);
    return;
  case WeightType::BF16:
    widenBF16Scalar(reinterpret_cast<const uint16_t *>(row) + c0, out, len);
    return;
  default:
    break;
  }
  int64_t groupSize = getGroupSize(w);
  const uint8_t *scaleRow = scaleRowOf(w, j), *zpRow = zpRowOf(w, j);
  for (int64_t c = c0, end = c0 + len; c < end;) {
    int64_t group = c / groupSize;
    int64_t groupEnd = std::min(end, (group + 1) * groupSize);
    float scale = readParam(w.scaleType, scaleRow, group, 1.0f);
    float zp = readParam(w.zpType, zpRow, group, 0.0f);
    for (; c < groupEnd; ++c)
      out[c - c0] = dequantValue(readQuant(w.type, row, c), zp, scale);
  }
}

/// sum_c a[c] * b[c] in eight interleaved partial sums, added pairwise.
static float dot8(const float *a, const float *b, int64_t n) {
  float acc[8] = {};
  int64_t c = 0;
  for (; c + 8 <= n; c += 8)
    for (int l = 0; l < 8; ++l)
      acc[l] += a[c + l] * b[c + l];
  for (int l = 0; c < n; ++c, ++l)
    acc[l] += a[c] * b[c];
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) +
         ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

/// Output columns [j0, j1) of `matrix` into `out`, through `rows` (k
/// floats).
static void gemvScalarColumns(const LinearArgs &a, const Weights &matrix,
                              int64_t j0, int64_t j1, const GemvOutput &out,
                              float *rows) {
  const int64_t k = matrix.k;
  for (int64_t j = j0; j < j1; ++j) {
    dequantizeScalar(matrix, j, 0, k, rows);
    for (int64_t i = 0; i < a.m; ++i)
      out.store(i, j, dot8(a.x + i * a.xStride, rows, k));
  }
}

static void gemvScalar(const LinearArgs &a, ColumnClaims &claims) {
  float *rows = getScratchAs<float>(Scratch::Rows, a.getLeadWeights().k);
  forEachClaimedPiece(
      a, claims,
      [&](const Weights &matrix, int64_t j0, int64_t j1,
          const GemvOutput &out) {
        gemvScalarColumns(a, matrix, j0, j1, out, rows);
      },
      gateScalar);
}

constexpr int64_t kMr = 4, kNr = 16, kKc = 256;

static void microkernelScalar(const void *xbBytes, const void *panelBytes,
                              int64_t kc, float *c, int64_t cStride, bool load,
                              const float *bias) {
  const float *xb = static_cast<const float *>(xbBytes);
  const float *panel = static_cast<const float *>(panelBytes);
  float acc[kMr][kNr];
  for (int64_t r = 0; r < kMr; ++r)
    for (int64_t j = 0; j < kNr; ++j)
      acc[r][j] = load ? c[r * cStride + j] : 0.0f;
  for (int64_t kk = 0; kk < kc; ++kk)
    for (int64_t r = 0; r < kMr; ++r) {
      float x = xb[r * getXBlockStride(kKc) + kk];
      for (int64_t j = 0; j < kNr; ++j)
        acc[r][j] += x * panel[kk * kNr + j];
    }
  for (int64_t r = 0; r < kMr; ++r)
    for (int64_t j = 0; j < kNr; ++j)
      c[r * cStride + j] = bias ? acc[r][j] + bias[j] : acc[r][j];
}

static void packPanelScalar(const Weights &w, int64_t j0, int64_t cols,
                            int64_t c0, int64_t kc, void *panelBytes) {
  packPanelByRows(dequantizeScalar, kNr, w, j0, cols, c0, kc,
                  static_cast<float *>(panelBytes));
}

const IsaKernels &getScalarKernels() {
  static const IsaKernels kernels = {
      Isa::Scalar,
      widenF16Scalar,
      widenBF16Scalar,
      narrowF16Scalar,
      narrowBF16Scalar,
      gateScalar,
      dequantizeScalar,
      /*gemvMaxRows=*/4,
      gemvScalar,
      {kMr, kNr, kKc, getXBlockStride(kKc) * int64_t(sizeof(float)),
       kKc * kNr * int64_t(sizeof(float)), copyFloatRow, packPanelScalar,
       microkernelScalar},
      /*selectQuantizedGemm=*/nullptr,
      attentionRowsScalar,
  };
  return kernels;
}

} // namespace llmc::host::detail
