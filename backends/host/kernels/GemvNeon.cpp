//===- GemvNeon.cpp - the NEON matrix-vector product ----------------------===//
//
// Decode's product on aarch64: one weight row at a time against the (at
// most 4) rows of x, 4 columns a vector. Float32, float16 and bfloat16
// weights are converted as they are loaded; quantized rows are dequantized
// into a float32 row first, as on the scalar path.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Scalar.h"

#if defined(__aarch64__)
#include <arm_neon.h>

#include <cstring>

namespace llmc::host::detail {
namespace {

/// Four weights from `at`, as float32.
template <WeightType T> inline float32x4_t loadWeights(const uint8_t *at) {
  if (T == WeightType::F32)
    return vreinterpretq_f32_u8(vld1q_u8(at));
  uint16x4_t halves = vreinterpret_u16_u8(vld1_u8(at));
  if (T == WeightType::F16)
    return vcvt_f32_f16(vreinterpret_f16_u16(halves));
  return vreinterpretq_f32_u32(vshll_n_u16(halves, 16));
}

/// One weight from `at`, as float32.
template <WeightType T> inline float loadWeight(const uint8_t *at) {
  if (T == WeightType::F32) {
    float value;
    std::memcpy(&value, at, sizeof(value));
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, at, sizeof(bits));
  return T == WeightType::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
}

/// sums[i] = x[i] . row over k columns, for the M rows of x. A single row
/// of x gets 4 accumulators to hide the latency of FMLA; more rows have
/// independent chains already.
template <WeightType T, int M>
void dotRow(const float *const (&x)[M], const uint8_t *row, int64_t k,
            float (&sums)[M]) {
  constexpr int V = M == 1 ? 4 : 2;
  constexpr int64_t kBytes = T == WeightType::F32 ? 4 : 2;
  float32x4_t acc[M][V];
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < V; ++v)
      acc[i][v] = vdupq_n_f32(0.0f);
  int64_t c = 0;
  for (; c + 4 * V <= k; c += 4 * V)
    for (int v = 0; v < V; ++v) {
      float32x4_t w = loadWeights<T>(row + (c + 4 * v) * kBytes);
      for (int i = 0; i < M; ++i)
        acc[i][v] = vfmaq_f32(acc[i][v], w, vld1q_f32(x[i] + c + 4 * v));
    }
  for (; c + 4 <= k; c += 4) {
    float32x4_t w = loadWeights<T>(row + c * kBytes);
    for (int i = 0; i < M; ++i)
      acc[i][0] = vfmaq_f32(acc[i][0], w, vld1q_f32(x[i] + c));
  }
  for (int i = 0; i < M; ++i) {
    float32x4_t total = acc[i][0];
    for (int v = 1; v < V; ++v)
      total = vaddq_f32(total, acc[i][v]);
    float sum = vaddvq_f32(total);
    for (int64_t tail = c; tail < k; ++tail)
      sum += x[i][tail] * loadWeight<T>(row + tail * kBytes);
    sums[i] = sum;
  }
}

/// Output columns [j0, j1) of `w` into `out`; `rows` holds a dequantized
/// row (k floats).
template <int M>
void gemvColumns(const LinearArgs &a, const Weights &w, int64_t j0,
                 int64_t j1, const GemvOutput &out, float *rows) {
  const float *x[M];
  for (int i = 0; i < M; ++i)
    x[i] = a.x + i * a.xStride;
  float sums[M];
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t *row = rowOf(w, j);
    switch (w.type) {
    case WeightType::F32:
      dotRow<WeightType::F32, M>(x, row, w.k, sums);
      break;
    case WeightType::F16:
      dotRow<WeightType::F16, M>(x, row, w.k, sums);
      break;
    case WeightType::BF16:
      dotRow<WeightType::BF16, M>(x, row, w.k, sums);
      break;
    default:
      dequantizeScalar(w, j, 0, w.k, rows);
      dotRow<WeightType::F32, M>(
          x, reinterpret_cast<const uint8_t *>(rows), w.k, sums);
      break;
    }
    for (int i = 0; i < M; ++i)
      out.store(i, j, sums[i]);
  }
}

} // namespace

void gemvNeon(const LinearArgs &a, ColumnClaims &claims) {
  float *rows = getScratchAs<float>(Scratch::Rows, a.getLeadWeights().k);
  auto columns = [&](const Weights &w, int64_t j0, int64_t j1,
                     const GemvOutput &out) {
    switch (a.m) {
    case 1:
      return gemvColumns<1>(a, w, j0, j1, out, rows);
    case 2:
      return gemvColumns<2>(a, w, j0, j1, out, rows);
    case 3:
      return gemvColumns<3>(a, w, j0, j1, out, rows);
    default:
      return gemvColumns<4>(a, w, j0, j1, out, rows);
    }
  };
  forEachClaimedPiece(a, claims, columns, getScalarKernels().gate);
}

} // namespace llmc::host::detail

#endif
