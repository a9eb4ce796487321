//===- NormTest.cpp - RMSNORM, ROPE, SOFTMAX and ARGMAX -------------------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc::cmodel {
namespace {

using test::Harness;

std::vector<double> rmsNormReference(const std::vector<double> &x,
                                     const std::vector<double> &w, int64_t rows,
                                     int64_t cols, int64_t group, double eps) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t g = 0; g < cols; g += group) {
      double sum = 0;
      for (int64_t i = 0; i < group; ++i)
        sum += x[r * cols + g + i] * x[r * cols + g + i];
      double inverse = 1 / std::sqrt(sum / group + eps);
      for (int64_t i = 0; i < group; ++i)
        y[r * cols + g + i] = x[r * cols + g + i] * inverse * w[i];
    }
  return y;
}

TEST(NormTest, RMSNormOfWholeRows) {
  // Rows split over lanes, the weight replicated on each.
  Harness h(test::getSmallChip());
  int64_t rows = 7, cols = 96;
  std::vector<float> x = test::randomValues(rows * cols, 1, -3, 3),
                     w = test::randomValues(cols, 2, 0.5, 1.5);
  cmd::LocalTensor lx =
      h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor lw =
      h.local(cmd::DTYPE_F32, 1, cols, cmd::LAYOUT_REPLICATED, 0, 4);
  cmd::LocalTensor ly =
      h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_ROWS, 0, 4);
  cmd::Compute compute = makeCompute(cmd::RMSNORM, {lx, lw}, {ly});
  compute.set_eps(1e-6);
  auto outs = h.runOp(compute, {{h.put(cmd::DTYPE_F32, rows, cols, x), lx},
                                {h.put(cmd::DTYPE_F32, 1, cols, w), lw}});
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  test::expectClose(h.get((*outs)[0]),
                    rmsNormReference(test::asStored(cmd::DTYPE_F32, x),
                                     test::asStored(cmd::DTYPE_F32, w), rows,
                                     cols, cols, 1e-6),
                    2e-6);
}

TEST(NormTest, RMSNormPerHead) {
  // Qwen3's query norm: heads of 16 columns, 2 heads per lane.
  Harness h(test::getSmallChip());
  int64_t rows = 3, cols = 64, group = 16;
  std::vector<float> x = test::randomValues(rows * cols, 3, -3, 3),
                     w = test::randomValues(group, 4, 0.5, 1.5);
  cmd::LocalTensor lx =
      h.local(cmd::DTYPE_F16, rows, cols, cmd::LAYOUT_COLS, 0, 2);
  cmd::LocalTensor lw =
      h.local(cmd::DTYPE_F16, 1, group, cmd::LAYOUT_REPLICATED, 0, 2);
  cmd::Compute compute = makeCompute(cmd::RMSNORM, {lx, lw}, {lx}); // In place.
  compute.set_eps(1e-5);
  compute.set_group(group);
  auto outs = h.runOp(compute, {{h.put(cmd::DTYPE_F16, rows, cols, x), lx},
                                {h.put(cmd::DTYPE_F16, 1, group, w), lw}});
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  test::expectClose(h.get((*outs)[0]),
                    rmsNormReference(test::asStored(cmd::DTYPE_F16, x),
                                     test::asStored(cmd::DTYPE_F16, w), rows,
                                     cols, group, 1e-5),
                    1e-3);
}

std::vector<double> layerNormReference(const std::vector<double> &x,
                                       const std::vector<double> &w,
                                       const std::vector<double> &b,
                                       int64_t rows, int64_t cols,
                                       int64_t group, double eps) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t g = 0; g < cols; g += group) {
      const double *v = &x[r * cols + g];
      double mean = 0, variance = 0;
      for (int64_t i = 0; i < group; ++i)
        mean += v[i] / group;
      for (int64_t i = 0; i < group; ++i)
        variance += (v[i] - mean) * (v[i] - mean) / group;
      for (int64_t i = 0; i < group; ++i)
        y[r * cols + g + i] =
            (v[i] - mean) / std::sqrt(variance + eps) * w[i] + b[i];
    }
  return y;
}

TEST(NormTest, LayerNormPerGroupWithWeightAndBias) {
  // Groups of 32 over lanes holding columns, an offset the mean removes.
  Harness h(test::getSmallChip());
  int64_t rows = 5, cols = 128, group = 32;
  std::vector<float> x = test::randomValues(rows * cols, 7, 2, 6),
                     w = test::randomValues(group, 8, 0.5, 1.5),
                     b = test::randomValues(group, 9, -1, 1);
  cmd::LocalTensor lx =
      h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_COLS, 0, 4);
  cmd::LocalTensor lw =
      h.local(cmd::DTYPE_F32, 1, group, cmd::LAYOUT_REPLICATED, 0, 4);
  cmd::LocalTensor lb =
      h.local(cmd::DTYPE_F32, 1, group, cmd::LAYOUT_REPLICATED, 0, 4);
  cmd::LocalTensor ly =
      h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_COLS, 0, 4);
  cmd::Compute compute = makeCompute(cmd::LAYERNORM, {lx, lw, lb}, {ly});
  compute.set_eps(1e-6);
  compute.set_group(group);
  auto outs = h.runOp(compute, {{h.put(cmd::DTYPE_F32, rows, cols, x), lx},
                                {h.put(cmd::DTYPE_F32, 1, group, w), lw},
                                {h.put(cmd::DTYPE_F32, 1, group, b), lb}});
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  // Measured 4.8e-7: float32 sums of values near 4.
  test::expectClose(h.get((*outs)[0]),
                    layerNormReference(test::asStored(cmd::DTYPE_F32, x),
                                       test::asStored(cmd::DTYPE_F32, w),
                                       test::asStored(cmd::DTYPE_F32, b), rows,
                                       cols, group, 1e-6),
                    2e-6);
}

TEST(NormTest, LayerNormRejectsARowOfAnotherWidth) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor lx = h.local(cmd::DTYPE_F32, 2, 64, cmd::LAYOUT_ROWS, 0, 2);
  cmd::LocalTensor lb =
      h.local(cmd::DTYPE_F32, 1, 32, cmd::LAYOUT_REPLICATED, 0, 2);
  cmd::LocalTensor ly = h.local(cmd::DTYPE_F32, 2, 64, cmd::LAYOUT_ROWS, 0, 2);
  cmd::Compute compute = makeCompute(cmd::LAYERNORM, {lx, lb}, {ly});
  auto outs = h.runOp(compute,
                      {{h.put(cmd::DTYPE_F32, 2, 64, std::vector<float>(128)), lx},
                       {h.put(cmd::DTYPE_F32, 1, 32, std::vector<float>(32)), lb}});
  ASSERT_FALSE(outs.ok());
  EXPECT_NE(std::string(outs.status().message()).find("[1, 64]"),
            std::string::npos);
}

TEST(NormTest, RopeRotatesPairsOfEveryHead) {
  int64_t rows = 5, heads = 4, headDim = 16, rotary = 12;
  int64_t cols = heads * headDim;
  std::vector<float> x = test::randomValues(rows * cols, 5),
                     angles = test::randomValues(rows * rotary / 2, 6, -3, 3);
  std::vector<float> cos(rows * rotary), sin(rows * rotary);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < rotary; ++i) {
      double a = angles[r * rotary / 2 + i % (rotary / 2)];
      cos[r * rotary + i] = float(std::cos(a));
      sin[r * rotary + i] = float(std::sin(a));
    }
  for (bool interleaved : {false, true}) {
    std::vector<double> want(x.begin(), x.end());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < rotary / 2; ++i) {
          int64_t a = interleaved ? 2 * i : i;
          int64_t b = interleaved ? 2 * i + 1 : i + rotary / 2;
          double xa = x[r * cols + h * headDim + a],
                 xb = x[r * cols + h * headDim + b];
          want[r * cols + h * headDim + a] =
              xa * cos[r * rotary + a] - xb * sin[r * rotary + a];
          want[r * cols + h * headDim + b] =
              xb * cos[r * rotary + b] + xa * sin[r * rotary + b];
        }
    Harness h(test::getSmallChip());
    // One head per lane; the tables replicated.
    cmd::LocalTensor lx =
        h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_COLS, 0, 4);
    cmd::LocalTensor lc =
        h.local(cmd::DTYPE_F32, rows, rotary, cmd::LAYOUT_REPLICATED, 0, 4);
    cmd::LocalTensor ls =
        h.local(cmd::DTYPE_F32, rows, rotary, cmd::LAYOUT_REPLICATED, 0, 4);
    cmd::LocalTensor ly =
        h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_COLS, 0, 4);
    cmd::Compute compute = makeCompute(cmd::ROPE, {lx, lc, ls}, {ly});
    compute.set_group(headDim);
    compute.set_interleaved(interleaved);
    auto outs =
        h.runOp(compute, {{h.put(cmd::DTYPE_F32, rows, cols, x), lx},
                          {h.put(cmd::DTYPE_F32, rows, rotary, cos), lc},
                          {h.put(cmd::DTYPE_F32, rows, rotary, sin), ls}});
    ASSERT_TRUE(outs.ok()) << outs.status().message();
    test::expectClose(h.get((*outs)[0]), want, 1e-6);
  }
}

TEST(NormTest, SoftmaxOfRows) {
  Harness h(test::getSmallChip());
  int64_t rows = 6, cols = 45;
  std::vector<float> x = test::randomValues(rows * cols, 7, -8, 8);
  for (int64_t c = 0; c < cols; ++c)
    x[5 * cols + c] = -INFINITY; // A row that sees nothing: zeros.
  std::vector<double> want(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double max = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      max = std::max(max, double(x[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c)
      sum += r == 5 ? 0 : std::exp(x[r * cols + c] - max);
    for (int64_t c = 0; c < cols; ++c)
      want[r * cols + c] = r == 5 ? 0 : std::exp(x[r * cols + c] - max) / sum;
  }
  cmd::LocalTensor lx =
      h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor ly =
      h.local(cmd::DTYPE_F32, rows, cols, cmd::LAYOUT_ROWS, 0, 4);
  auto outs = h.runOp(makeCompute(cmd::SOFTMAX, {lx}, {ly}),
                      {{h.put(cmd::DTYPE_F32, rows, cols, x), lx}});
  ASSERT_TRUE(outs.ok()) << outs.status().message();
  test::expectClose(h.get((*outs)[0]), want, 1e-6);
}

TEST(NormTest, ArgMaxInTwoStages) {
  // Greedy sampling over a vocabulary split across 4 lanes: each lane finds
  // its maximum, then one lane picks among the 4 candidates, mapping back
  // to vocabulary indices. Ties resolve to the lowest index overall.
  Harness h(test::getSmallChip());
  int64_t rows = 3, vocab = 100, lanes = 4;
  std::vector<float> logits = test::randomValues(rows * vocab, 8, -5, 5);
  logits[0 * vocab + 60] = 9;   // Row 0: the maximum on lane 2.
  logits[1 * vocab + 30] = 7;   // Row 1: a tie across lanes 1 and 3 ...
  logits[1 * vocab + 80] = 7;   // ... resolves to 30.
  logits[2 * vocab + 99] = NAN; // Row 2: a NaN counts as the maximum.
  StreamBuilder &b = h.getBuilder();
  cmd::LocalTensor lx =
      h.local(cmd::DTYPE_F16, rows, vocab, cmd::LAYOUT_COLS, 0, 4);
  cmd::LocalTensor values =
      h.local(cmd::DTYPE_F16, rows, lanes, cmd::LAYOUT_COLS, 0, 4, 1);
  cmd::LocalTensor indices =
      h.local(cmd::DTYPE_I32, rows, lanes, cmd::LAYOUT_COLS, 0, 4, 1);
  uint32_t load = b.load(h.put(cmd::DTYPE_F16, rows, vocab, logits), lx);
  uint32_t first =
      b.compute(makeCompute(cmd::ARGMAX, {lx}, {values, indices}), {load});
  cmd::GlobalTensor partialValues = h.store(values, first);
  cmd::GlobalTensor partialIndices = h.store(indices, first);
  cmd::LocalTensor v2 =
      h.local(cmd::DTYPE_F16, rows, lanes, cmd::LAYOUT_ROWS, 0, 1);
  cmd::LocalTensor i2 =
      h.local(cmd::DTYPE_I32, rows, lanes, cmd::LAYOUT_ROWS, 0, 1);
  uint32_t loadV = b.load(partialValues, v2),
           loadI = b.load(partialIndices, i2);
  cmd::LocalTensor best =
      h.local(cmd::DTYPE_F16, rows, 1, cmd::LAYOUT_ROWS, 0, 1);
  cmd::LocalTensor token =
      h.local(cmd::DTYPE_I32, rows, 1, cmd::LAYOUT_ROWS, 0, 1);
  uint32_t second = b.compute(makeCompute(cmd::ARGMAX, {v2, i2}, {best, token}),
                              {loadV, loadI});
  cmd::GlobalTensor tokens = h.store(token, second);
  LLMC_ASSERT_RUN(h, stats);
  EXPECT_EQ(h.getInts(partialIndices)[2], 60); // Row 0, lane 2.
  EXPECT_EQ(h.getInts(tokens), (std::vector<int32_t>{60, 30, 99}));
}

} // namespace
} // namespace llmc::cmodel
