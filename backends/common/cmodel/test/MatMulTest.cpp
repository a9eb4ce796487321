//===- MatMulTest.cpp - MATMUL, A16MATMUL and DEQUANTIZE numerics ---------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc::cmodel {
namespace {

using test::Harness;

/// y[m, n] = sum_k x[m, k] w[n, k] (+ bias[n]) in double.
std::vector<double> reference(const std::vector<double> &x,
                              const std::vector<double> &w, int64_t m,
                              int64_t n, int64_t k,
                              const std::vector<double> *bias = nullptr) {
  std::vector<double> y(m * n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      double sum = bias ? (*bias)[c] : 0.0;
      for (int64_t i = 0; i < k; ++i)
        sum += x[r * k + i] * w[c * k + i];
      y[r * n + c] = sum;
    }
  return y;
}

std::vector<float> smallIntegers(size_t count, uint32_t seed, int range) {
  std::vector<float> values =
      test::randomValues(count, seed, -range, range + 1);
  for (float &value : values)
    value = std::floor(value);
  return values;
}

TEST(MatMulTest, IntegerProductsAreExactInEveryLayout) {
  // Weights split by rows over 4 lanes (3, 3, 3, 1), x replicated, y split
  // by columns the same way: each lane computes its output columns.
  Harness h(test::getSmallChip());
  int64_t m = 3, n = 10, k = 20;
  std::vector<float> x = smallIntegers(m * k, 1, 5),
                     w = smallIntegers(n * k, 2, 5);
  cmd::LocalTensor lx =
      h.local(cmd::DTYPE_F32, m, k, cmd::LAYOUT_REPLICATED, 0, 4);
  cmd::LocalTensor lw =
      h.local(cmd::DTYPE_F32, n, k, cmd::LAYOUT_ROWS, 0, 4, 3);
  cmd::LocalTensor ly =
      h.local(cmd::DTYPE_F32, m, n, cmd::LAYOUT_COLS, 0, 4, 3);
  auto outs = h.runOp(makeCompute(cmd::MATMUL, {lx, lw}, {ly}),
                      {{h.put(cmd::DTYPE_F32, m, k, x), lx},
                       {h.put(cmd::DTYPE_F32, n, k, w), lw}});
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  test::expectClose(h.get((*outs)[0]),
                    reference(test::asStored(cmd::DTYPE_F32, x),
                              test::asStored(cmd::DTYPE_F32, w), m, n, k),
                    0.0);
  EXPECT_EQ(h.getStats().macs, uint64_t(m * n * k));
}

TEST(MatMulTest, HalfPrecisionAccumulatesInFloat32) {
  for (cmd::DType type : {cmd::DTYPE_F16, cmd::DTYPE_BF16}) {
    for (cmd::DType outType : {type, cmd::DTYPE_F32}) {
      Harness h(test::getSmallChip());
      int64_t m = 5, n = 12, k = 70;
      std::vector<float> x = test::randomValues(m * k, 3),
                         w = test::randomValues(n * k, 4),
                         bias = test::randomValues(n, 5);
      cmd::LocalTensor lx = h.local(type, m, k, cmd::LAYOUT_REPLICATED, 0, 4);
      cmd::LocalTensor lw = h.local(type, n, k, cmd::LAYOUT_ROWS, 0, 4);
      cmd::LocalTensor lb =
          h.local(cmd::DTYPE_F32, 1, n, cmd::LAYOUT_COLS, 0, 4);
      cmd::LocalTensor ly = h.local(outType, m, n, cmd::LAYOUT_COLS, 0, 4);
      auto outs = h.runOp(makeCompute(cmd::MATMUL, {lx, lw, lb}, {ly}),
                          {{h.put(type, m, k, x), lx},
                           {h.put(type, n, k, w), lw},
                           {h.put(cmd::DTYPE_F32, 1, n, bias), lb}});
      ASSERT_TRUE(outs.ok()) << outs.status().message();
      std::vector<double> b = test::asStored(cmd::DTYPE_F32, bias);
      std::vector<double> want = reference(
          test::asStored(type, x), test::asStored(type, w), m, n, k, &b);
      // Float32 accumulation is close to exact; the output rounds once.
      double tolerance = outType == cmd::DTYPE_F32 ? 2e-6
                         : type == cmd::DTYPE_F16  ? 1e-3
                                                   : 8e-3;
      test::expectClose(h.get((*outs)[0]), want, tolerance);
    }
  }
}

TEST(MatMulTest, AccumulateAddsKChunks) {
  // y = x[:, :32] w[:, :32]^T, then y += x[:, 32:] w[:, 32:]^T.
  Harness h(test::getSmallChip());
  int64_t m = 2, n = 8, k = 64;
  std::vector<float> x = test::randomValues(m * k, 6),
                     w = test::randomValues(n * k, 7);
  cmd::GlobalTensor gx = h.put(cmd::DTYPE_F32, m, k, x);
  cmd::GlobalTensor gw = h.put(cmd::DTYPE_F32, n, k, w);
  StreamBuilder &b = h.getBuilder();
  cmd::LocalTensor ly = h.local(cmd::DTYPE_F32, m, n, cmd::LAYOUT_COLS, 0, 4);
  uint32_t last = 0;
  for (int chunk = 0; chunk < 2; ++chunk) {
    cmd::GlobalTensor xs = gx, ws = gw;
    for (cmd::GlobalTensor *g : {&xs, &ws}) {
      g->set_row_stride_bytes(k * 4);
      g->set_offset(g->offset() + chunk * 32 * 4);
      g->set_cols(32);
    }
    cmd::LocalTensor lx =
        h.local(cmd::DTYPE_F32, m, 32, cmd::LAYOUT_REPLICATED, 0, 4);
    cmd::LocalTensor lw =
        h.local(cmd::DTYPE_F32, n, 32, cmd::LAYOUT_ROWS, 0, 4);
    uint32_t loadX = b.load(xs, lx), loadW = b.load(ws, lw);
    cmd::Compute compute = makeCompute(cmd::MATMUL, {lx, lw}, {ly});
    compute.set_accumulate(chunk > 0);
    last = b.compute(compute, {loadX, loadW});
  }
  cmd::GlobalTensor result = h.store(ly, last);
  LLMC_ASSERT_RUN(h, stats);
  test::expectClose(h.get(result),
                    reference(test::asStored(cmd::DTYPE_F32, x),
                              test::asStored(cmd::DTYPE_F32, w), m, n, k),
                    2e-6);
}

TEST(MatMulTest, ResultsDoNotDependOnThreadsOrLanes) {
  // The same product on 64 lanes with 1 and 4 threads, and on 1 lane.
  int64_t m = 7, n = 256, k = 200;
  std::vector<float> x = test::randomValues(m * k, 8),
                     w = test::randomValues(n * k, 9);
  std::vector<std::vector<float>> results;
  for (auto [threads, lanes] :
       {std::pair(1u, 64u), std::pair(4u, 64u), std::pair(2u, 1u)}) {
    Harness h(test::getBm1684xLikeChip(), threads);
    cmd::LocalTensor lx =
        h.local(cmd::DTYPE_F16, m, k, cmd::LAYOUT_REPLICATED, 0, lanes);
    cmd::LocalTensor lw =
        h.local(cmd::DTYPE_F16, n, k, cmd::LAYOUT_ROWS, 0, lanes);
    cmd::LocalTensor ly =
        h.local(cmd::DTYPE_F16, m, n, cmd::LAYOUT_COLS, 0, lanes);
    auto outs = h.runOp(makeCompute(cmd::MATMUL, {lx, lw}, {ly}),
                        {{h.put(cmd::DTYPE_F16, m, k, x), lx},
                         {h.put(cmd::DTYPE_F16, n, k, w), lw}});
    ASSERT_TRUE(outs.ok()) << outs.status().message();
    results.push_back(h.get((*outs)[0]));
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

//===----------------------------------------------------------------------===//
// A16MATMUL
//===----------------------------------------------------------------------===//

struct QuantCase {
  cmd::DType activation;
  cmd::DType weight;
  cmd::DType scaleType;
  /// DTYPE_INVALID for symmetric (no zero point).
  cmd::DType zpType;
  int64_t groupSize;
  bool exact;
};

/// Random [rows, k] weights of `c`'s type with their scales and zero
/// points, and their dequantization in double as the kernels compute it:
/// round_act((q - zp) * scale), the product in float32. `exact` scales are
/// powers of two.
struct QuantWeights {
  std::vector<float> q, scale, zp;
  std::vector<double> dequantized;
};

QuantWeights makeQuantWeights(const QuantCase &c, int64_t rows, int64_t k,
                              uint32_t seed) {
  int64_t groups = k / c.groupSize;
  bool isSigned = c.weight == cmd::DTYPE_I4 || c.weight == cmd::DTYPE_I8;
  int bits = getDTypeBits(c.weight);
  int lo = isSigned ? -(1 << (bits - 1)) : 0;
  int hi = isSigned ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  QuantWeights weights;
  weights.q = test::randomValues(rows * k, seed, lo, hi + 1);
  for (float &v : weights.q)
    v = std::floor(v);
  weights.scale = test::randomValues(rows * groups, seed + 1, 0.01f, 0.1f);
  if (c.exact)
    for (size_t i = 0; i < weights.scale.size(); ++i)
      weights.scale[i] = std::ldexp(1.0f, -int(i % 4));
  weights.zp = test::randomValues(rows * groups, seed + 2, lo, hi + 1);
  for (float &v : weights.zp)
    v = std::floor(v);
  bool hasZp = c.zpType != cmd::DTYPE_INVALID;
  std::vector<double> qs = test::asStored(c.weight, weights.q),
                      ss = test::asStored(c.scaleType, weights.scale),
                      zs = hasZp ? test::asStored(c.zpType, weights.zp)
                                 : std::vector<double>(rows * groups, 0.0);
  weights.dequantized.resize(rows * k);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < k; ++i) {
      int64_t g = r * groups + i / c.groupSize;
      weights.dequantized[r * k + i] = test::roundTo(
          c.activation, double(float((qs[r * k + i] - zs[g]) * ss[g])));
    }
  return weights;
}

/// Runs A16MATMUL on `c` with weights in [lo, hi] and checks it against
/// dequantization in double, w = round_act((q - zp) * scale).
void checkA16(const QuantCase &c, uint32_t seed) {
  SCOPED_TRACE(testing::Message()
               << getDTypeName(c.weight) << " group " << c.groupSize << " act "
               << getDTypeName(c.activation));
  Harness h(test::getSmallChip());
  int64_t m = 3, n = 10, k = 64, groups = k / c.groupSize;
  QuantWeights weights = makeQuantWeights(c, n, k, seed);
  const std::vector<float> &q = weights.q, &scale = weights.scale,
                           &zp = weights.zp;
  std::vector<float> x = test::randomValues(m * k, seed + 3);
  // Exact: powers of two and small integers, so every step is exact and the
  // comparison checks nibble order, groups and zero points bit for bit.
  if (c.exact)
    for (float &v : x)
      v = std::floor(v * 4);
  bool hasZp = c.zpType != cmd::DTYPE_INVALID;
  const std::vector<double> &w = weights.dequantized;
  std::vector<double> want =
      reference(test::asStored(c.activation, x), w, m, n, k);

  cmd::LocalTensor lx =
      h.local(c.activation, m, k, cmd::LAYOUT_REPLICATED, 0, 4);
  cmd::LocalTensor lw = h.local(c.weight, n, k, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor ls = h.local(c.scaleType, n, groups, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor lz =
      hasZp ? h.local(c.zpType, n, groups, cmd::LAYOUT_ROWS, 0, 4) : absent();
  cmd::LocalTensor ly = h.local(cmd::DTYPE_F32, m, n, cmd::LAYOUT_COLS, 0, 4);
  std::vector<std::pair<cmd::GlobalTensor, cmd::LocalTensor>> loads = {
      {h.put(c.activation, m, k, x), lx},
      {h.put(c.weight, n, k, q), lw},
      {h.put(c.scaleType, n, groups, scale), ls}};
  if (hasZp)
    loads.push_back({h.put(c.zpType, n, groups, zp), lz});
  auto outs =
      h.runOp(makeCompute(cmd::A16MATMUL, {lx, lw, ls, lz}, {ly}), loads);
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  test::expectClose(h.get((*outs)[0]), want, c.exact ? 0.0 : 2e-6);
}

TEST(A16MatMulTest, GroupScalesAndZeroPointsAreExact) {
  checkA16(
      {cmd::DTYPE_F16, cmd::DTYPE_U4, cmd::DTYPE_F16, cmd::DTYPE_U4, 8, true},
      10);
  checkA16({cmd::DTYPE_BF16, cmd::DTYPE_U8, cmd::DTYPE_BF16, cmd::DTYPE_U8, 16,
            true},
           20);
  checkA16({cmd::DTYPE_F16, cmd::DTYPE_I4, cmd::DTYPE_F16, cmd::DTYPE_INVALID,
            32, true},
           30);
}

TEST(A16MatMulTest, DequantizedWeightsRoundToTheActivationType) {
  // With random scales, (q - zp) * scale needs more bits than f16 or bf16
  // hold: the comparison (2e-6) fails unless the kernel rounds the weight to
  // the activation type before multiplying, as the contract says.
  checkA16(
      {cmd::DTYPE_F16, cmd::DTYPE_U4, cmd::DTYPE_F16, cmd::DTYPE_U4, 16, false},
      40);
  checkA16({cmd::DTYPE_BF16, cmd::DTYPE_I8, cmd::DTYPE_BF16, cmd::DTYPE_INVALID,
            64, false},
           50);
  checkA16({cmd::DTYPE_BF16, cmd::DTYPE_U4, cmd::DTYPE_F32, cmd::DTYPE_F32, 8,
            false},
           60);
  checkA16({cmd::DTYPE_F32, cmd::DTYPE_I4, cmd::DTYPE_F32, cmd::DTYPE_INVALID,
            16, false},
           70);
}

//===----------------------------------------------------------------------===//
// DEQUANTIZE
//===----------------------------------------------------------------------===//

/// Runs DEQUANTIZE on `c`'s weight into rows of `c.activation` over 4 lanes
/// (3, 3, 3, 1 rows) and checks every element against
/// round_y((q - zp) * scale).
void checkDequantize(const QuantCase &c, uint32_t seed) {
  SCOPED_TRACE(testing::Message()
               << getDTypeName(c.weight) << " group " << c.groupSize << " to "
               << getDTypeName(c.activation));
  Harness h(test::getSmallChip());
  int64_t m = 10, k = 64, groups = k / c.groupSize;
  QuantWeights weights = makeQuantWeights(c, m, k, seed);
  const std::vector<float> &q = weights.q, &scale = weights.scale,
                           &zp = weights.zp;
  bool hasZp = c.zpType != cmd::DTYPE_INVALID;
  cmd::LocalTensor lw = h.local(c.weight, m, k, cmd::LAYOUT_ROWS, 0, 4, 3);
  cmd::LocalTensor ls =
      h.local(c.scaleType, m, groups, cmd::LAYOUT_ROWS, 0, 4, 3);
  cmd::LocalTensor lz =
      hasZp ? h.local(c.zpType, m, groups, cmd::LAYOUT_ROWS, 0, 4, 3)
            : absent();
  cmd::LocalTensor ly = h.local(c.activation, m, k, cmd::LAYOUT_ROWS, 0, 4, 3);
  std::vector<std::pair<cmd::GlobalTensor, cmd::LocalTensor>> loads = {
      {h.put(c.weight, m, k, q), lw},
      {h.put(c.scaleType, m, groups, scale), ls}};
  if (hasZp)
    loads.push_back({h.put(c.zpType, m, groups, zp), lz});
  auto outs = h.runOp(makeCompute(cmd::DEQUANTIZE, {lw, ls, lz}, {ly}), loads);
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  test::expectClose(h.get((*outs)[0]), weights.dequantized, 0.0);
}

TEST(DequantizeTest, RowsMatchTheA16Dequantization) {
  checkDequantize({cmd::DTYPE_BF16, cmd::DTYPE_I4, cmd::DTYPE_BF16,
                   cmd::DTYPE_INVALID, 64, false},
                  80);
  checkDequantize(
      {cmd::DTYPE_F16, cmd::DTYPE_U4, cmd::DTYPE_F16, cmd::DTYPE_U4, 16, false},
      90);
  checkDequantize({cmd::DTYPE_F32, cmd::DTYPE_U8, cmd::DTYPE_F32,
                   cmd::DTYPE_F32, 8, false},
                  100);
}

TEST(DequantizeTest, LanesMustHoldWholeRows) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor lw = h.local(cmd::DTYPE_I8, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor ls = h.local(cmd::DTYPE_F32, 4, 1, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor ly =
      h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_COLS, 0, 4, 4);
  auto outs = h.runOp(makeCompute(cmd::DEQUANTIZE, {lw, ls}, {ly}),
                      {{h.put(cmd::DTYPE_I8, 4, 16,
                              std::vector<float>(64, 1.0f)),
                        lw},
                       {h.put(cmd::DTYPE_F32, 4, 1, {1, 1, 1, 1}), ls}});
  ASSERT_FALSE(outs.ok());
  EXPECT_NE(std::string(outs.status().message()).find("whole rows"),
            std::string::npos);
}

} // namespace
} // namespace llmc::cmodel
