//===- KernelsLinear.cpp - dot products and the matmul kernels ------------===//
//
// The dot product is the inner loop of MATMUL, A16MATMUL, RMSNORM and
// ATTENTION; I8MATMUL sums integers exactly instead. It keeps 16 partial sums in a 64-byte vector: GCC's vector
// extension maps that to one AVX-512, two AVX2 or four SSE2 registers, and
// target_clones picks the best the host has at load time. The order of the
// additions is that of the vector lanes, so every clone computes the same
// bits (the build disables floating-point contraction, so no clone fuses a
// multiply and an add either).
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/Kernels.h"

#include <algorithm>
#include <cstring>
#include <memory>

// gcc only: clang rejects the 16-float helpers inlined into a clone
// without AVX-512, so a clang build (the sanitized fuzz targets) takes the
// portable loop.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LLMC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LLMC_CLONES
#endif

namespace llmc::cmodel::kernels {

typedef float Vec16 __attribute__((vector_size(64)));

__attribute__((always_inline)) static inline Vec16 loadVec(const float *at) {
  Vec16 v;
  std::memcpy(&v, at, sizeof(v));
  return v;
}

/// Elements [0, n) of `at`, zeros after (n < 16).
__attribute__((always_inline)) static inline Vec16 loadTail(const float *at,
                                                            int64_t n) {
  Vec16 v = {};
  std::memcpy(&v, at, n * sizeof(float));
  return v;
}

__attribute__((always_inline)) static inline float reduce(Vec16 v) {
  float p[16];
  std::memcpy(p, &v, sizeof(p));
  for (int width = 8; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j)
      p[j] += p[j + width];
  return p[0];
}

LLMC_CLONES float dot16(const float *a, const float *b, int64_t n) {
  Vec16 acc = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    acc += loadVec(a + i) * loadVec(b + i);
  if (i < n)
    acc += loadTail(a + i, n - i) * loadTail(b + i, n - i);
  return reduce(acc);
}

LLMC_CLONES void dot16x4(const float *a, const float *const b[4], int64_t n,
                         float out[4]) {
  Vec16 acc0 = {}, acc1 = {}, acc2 = {}, acc3 = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Vec16 x = loadVec(a + i);
    acc0 += x * loadVec(b[0] + i);
    acc1 += x * loadVec(b[1] + i);
    acc2 += x * loadVec(b[2] + i);
    acc3 += x * loadVec(b[3] + i);
  }
  if (i < n) {
    Vec16 x = loadTail(a + i, n - i);
    acc0 += x * loadTail(b[0] + i, n - i);
    acc1 += x * loadTail(b[1] + i, n - i);
    acc2 += x * loadTail(b[2] + i, n - i);
    acc3 += x * loadTail(b[3] + i, n - i);
  }
  out[0] = reduce(acc0);
  out[1] = reduce(acc1);
  out[2] = reduce(acc2);
  out[3] = reduce(acc3);
}

LLMC_CLONES float sum16(const float *a, int64_t n) {
  Vec16 acc = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    acc += loadVec(a + i);
  if (i < n)
    acc += loadTail(a + i, n - i);
  return reduce(acc);
}

//===----------------------------------------------------------------------===//
// MATMUL and A16MATMUL
//===----------------------------------------------------------------------===//

/// Weight rows [first, first + count) of an A16MATMUL or a DEQUANTIZE,
/// dequantized: (q - zp) * scale in float32, then rounded to `activation`,
/// the type the product computes in or the output's.
static void dequantize(const LaneView &w, const LaneView &scale,
                       const LaneView *zp, DType activation, int64_t first,
                       int64_t count, int64_t k, float *out) {
  int64_t groups = scale.tensor->cols;
  std::vector<float> scales(groups), zeros(groups, 0.0f);
  for (int64_t n = 0; n < count; ++n) {
    float *row = out + n * k;
    w.load(first + n, 0, k, row);
    scale.load(first + n, 0, groups, scales.data());
    if (zp)
      zp->load(first + n, 0, groups, zeros.data());
    dequantizeGroups(row, k, scales.data(), zeros.data(), groups);
    roundElements(activation, row, k);
  }
}

void dequantizeRows(const cmd::Compute &, const LaneOperands &lane) {
  const LaneView &w = *lane.in(0), &y = *lane.out(0);
  const LaneBlock &b = lane.block;
  int64_t k = w.tensor->cols;
  std::vector<float> row(k);
  for (int64_t r = 0; r < b.rowCount; ++r) {
    dequantize(w, *lane.in(1), lane.in(2), y.dtype(), b.rowBegin + r, 1, k,
               row.data());
    y.store(b.rowBegin + r, 0, k, row.data());
  }
}

void matMul(const cmd::Compute &compute, const LaneOperands &lane) {
  bool quantized = compute.opcode() == cmd::A16MATMUL;
  const LaneView &x = *lane.in(0), &w = *lane.in(1), &y = *lane.out(0);
  const LaneView *bias = lane.in(quantized ? 4 : 2);
  const LaneBlock &b = lane.block;
  int64_t k = x.tensor->cols, m = b.rowCount, n = b.colCount;

  // Scratch that every element of is written before it is read.
  std::unique_ptr<float[]> xs(new float[m * k]), ws(new float[n * k]),
      result(new float[m * n]);
  for (int64_t r = 0; r < m; ++r)
    x.load(b.rowBegin + r, 0, k, xs.get() + r * k);
  if (quantized)
    dequantize(w, *lane.in(2), lane.in(3), x.dtype(), b.colBegin, n, k,
               ws.get());
  else
    for (int64_t c = 0; c < n; ++c)
      w.load(b.colBegin + c, 0, k, ws.get() + c * k);

  // Four weight rows at a time stay in cache while every x row streams by.
  int64_t c = 0;
  for (; c + 4 <= n; c += 4) {
    const float *rows[4] = {&ws[c * k], &ws[(c + 1) * k], &ws[(c + 2) * k],
                            &ws[(c + 3) * k]};
    float sums[4];
    for (int64_t r = 0; r < m; ++r) {
      dot16x4(&xs[r * k], rows, k, sums);
      std::copy(sums, sums + 4, &result[r * n + c]);
    }
  }
  for (; c < n; ++c)
    for (int64_t r = 0; r < m; ++r)
      result[r * n + c] = dot16(&xs[r * k], &ws[c * k], k);

  std::vector<float> biases(n), old(n);
  if (bias)
    bias->load(0, b.colBegin, n, biases.data());
  for (int64_t r = 0; r < m; ++r) {
    float *row = &result[r * n];
    if (bias)
      for (int64_t i = 0; i < n; ++i)
        row[i] += biases[i];
    if (compute.accumulate()) {
      y.load(b.rowBegin + r, b.colBegin, n, old.data());
      for (int64_t i = 0; i < n; ++i)
        row[i] = old[i] + row[i];
    }
    y.store(b.rowBegin + r, b.colBegin, n, row);
  }
}

//===----------------------------------------------------------------------===//
// I8MATMUL
//===----------------------------------------------------------------------===//

/// Rows [first, first + count) of 8-bit `view`, each element minus
/// `zeroPoint`, as int32.
static void loadIntRows(const LaneView &view, int64_t first, int64_t count,
                        int64_t k, int32_t zeroPoint, int32_t *out) {
  int64_t from = -view.block.colBegin;
  for (int64_t r = 0; r < count; ++r)
    for (int64_t i = 0; i < k; ++i)
      out[r * k + i] =
          readIntElement(view.dtype(), view.row(first + r), from + i) -
          zeroPoint;
}

void int8MatMul(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &w = *lane.in(1), &scale = *lane.in(2),
                 &y = *lane.out(0);
  const LaneView *bias = lane.in(3);
  const LaneBlock &b = lane.block;
  int64_t k = x.tensor->cols, m = b.rowCount, n = b.colCount;
  std::vector<int32_t> xs(m * k), ws(n * k);
  loadIntRows(x, b.rowBegin, m, k, compute.zero_point(), xs.data());
  loadIntRows(w, b.colBegin, n, k, 0, ws.data());
  // Per output channel: x's scale times the weight's, rounded to float32.
  std::vector<float> factors(n), biases(n, 0.0f), row(n), old(n);
  auto xScale = static_cast<float>(compute.scalar());
  for (int64_t c = 0; c < n; ++c) {
    scale.load(b.colBegin + c, 0, 1, &factors[c]);
    factors[c] = xScale * factors[c];
  }
  if (bias)
    bias->load(0, b.colBegin, n, biases.data());
  for (int64_t r = 0; r < m; ++r) {
    const int32_t *xr = &xs[r * k];
    for (int64_t c = 0; c < n; ++c) {
      // Exact: |x - zp| <= 255 and |w| <= 128, so K up to 2^16 fits int32;
      // int64 keeps it exact beyond.
      const int32_t *wr = &ws[c * k];
      int64_t acc = 0;
      for (int64_t i = 0; i < k; ++i)
        acc += int64_t(xr[i]) * wr[i];
      row[c] = static_cast<float>(acc) * factors[c] + biases[c];
    }
    if (compute.accumulate()) {
      y.load(b.rowBegin + r, b.colBegin, n, old.data());
      for (int64_t c = 0; c < n; ++c)
        row[c] = old[c] + row[c];
    }
    y.store(b.rowBegin + r, b.colBegin, n, row.data());
  }
}

} // namespace llmc::cmodel::kernels
