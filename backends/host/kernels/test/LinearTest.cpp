//===- LinearTest.cpp - linear against a double-precision reference -------===//
//
// Every weight type, scale and zero-point type, group sizes the fast paths
// take and the ones they leave to the fallback, odd shapes (both the
// matrix-vector path, m <= 16, and the blocked ones), bias and accumulate,
// under every instruction set the host has; bit-identical results for 1, 2
// and 3 threads; and products of one x in one call giving the bits of one
// call each.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Kernels.h"
#include "backends/host/kernels/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace llmc::host::test {
namespace {

struct Case {
  WeightType type;
  ParamType scale = ParamType::None, zp = ParamType::None;
  int64_t group = 0; // 0: k.
  int64_t m, n, k;
  bool bias = false, accumulate = false;
};

std::string describe(const Case &c, Isa isa) {
  return test::describe(c.type) + " scale " + test::describe(c.scale) + " zp " +
         test::describe(c.zp) + " g" + std::to_string(c.group) + " m" +
         std::to_string(c.m) + " n" + std::to_string(c.n) + " k" +
         std::to_string(c.k) + (c.bias ? " bias" : "") +
         (c.accumulate ? " acc" : "") + " " + getIsaName(isa);
}

/// Runs `c` on every path and compares with the reference; the tolerance
/// is relative to the sum of |x w| (float32 accumulation of k terms), plus,
/// where a path takes x in 8 bits, what that rounding can move.
void check(const Case &c, WorkerPool &pool, std::mt19937 &rng) {
  const int64_t group = c.group ? c.group : c.k;
  TestWeights w = makeWeights(c.type, c.scale, c.zp, c.n, c.k, group, rng);
  const int64_t xStride = c.k + 3, yStride = c.n + 2;
  std::vector<float> x = randomFloats(c.m * xStride, rng);
  std::vector<float> bias = randomFloats(c.n, rng);
  std::vector<float> initial = randomFloats(c.m * yStride, rng);
  std::vector<double> product, magnitude, rounding, spread;
  referenceProduct(x.data(), c.m, xStride, w, product, magnitude);
  eightBitXBound(x.data(), c.m, xStride, w, rounding, spread);
  for (Isa isa : getTestIsas()) {
    const bool eightBitX = takesEightBitX(w.w, c.m, isa);
    std::vector<float> y = initial;
    linear(x.data(), c.m, xStride, w.w, c.bias ? bias.data() : nullptr,
           y.data(), yStride, c.accumulate, pool, isa);
    int failures = 0;
    // With x in 8 bits: the mean square of each error over its spread.
    double squares = 0;
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double expected = product[i * c.n + j];
        double scale = magnitude[i * c.n + j];
        if (c.bias) {
          expected += bias[j];
          scale += std::fabs(bias[j]);
        }
        if (c.accumulate) {
          expected += initial[i * yStride + j];
          scale += std::fabs(initial[i * yStride + j]);
        }
        double tolerance = 2e-5 * scale + 1e-30;
        if (eightBitX)
          tolerance += rounding[i * c.n + j];
        double got = y[i * yStride + j];
        if (eightBitX && spread[i * c.n + j] > 0)
          squares += std::pow((got - expected) / spread[i * c.n + j], 2);
        if (!(std::fabs(got - expected) <= tolerance) && failures++ < 3)
          ADD_FAILURE() << describe(c, isa) << ": y[" << i << ", " << j
                        << "] = " << got << ", expected " << expected
                        << " (scale " << scale << ")";
      }
    // x rounded to nearest gives a ratio near 1: measured 0.81 to 1.15 over
    // these cases, the highest where the outputs of a row share its
    // errors (19 rows, unsigned weights); x rounded down gives 2.9 to 38.
    if (eightBitX)
      EXPECT_LE(std::sqrt(squares / double(c.m * c.n)), 1.4)
          << describe(c, isa);

    // Padding between rows of y is left alone.
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = c.n; j < yStride; ++j)
        if (y[i * yStride + j] != initial[i * yStride + j] && failures++ < 3)
          ADD_FAILURE() << describe(c, isa) << ": wrote past row " << i;
  }
}

class LinearTest : public ::testing::Test {
protected:
  WorkerPool pool{2};
  std::mt19937 rng{20240611};
};

TEST_F(LinearTest, FloatWeights) {
  for (WeightType type : {WeightType::F32, WeightType::F16, WeightType::BF16})
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 7, 40},
                           {1, 33, 16},
                           {2, 5, 3},
                           {4, 9, 100},
                           {5, 35, 64},
                           {17, 33, 300},
                           {37, 70, 520}})
      for (int flags = 0; flags < 4; ++flags)
        check({type, ParamType::None, ParamType::None, 0, m, n, k,
               bool(flags & 1), bool(flags & 2)},
              pool, rng);
}

TEST_F(LinearTest, EveryParameterType) {
  const ParamType scales[] = {ParamType::F32, ParamType::F16, ParamType::BF16};
  const ParamType zps[] = {ParamType::None, ParamType::F32, ParamType::F16,
                           ParamType::BF16, ParamType::I8,  ParamType::U8,
                           ParamType::I4,   ParamType::U4};
  const int64_t groups[] = {32, 64, 16, 128, 0};
  int variant = 0;
  for (WeightType type :
       {WeightType::I8, WeightType::U8, WeightType::I4, WeightType::U4})
    for (ParamType scale : scales)
      for (ParamType zp : zps) {
        int64_t group = groups[variant % 5];
        int64_t m = variant % 3 == 0 ? 1 : variant % 3 == 1 ? 3 : 19;
        ++variant;
        check({type, scale, zp, group, m, 13, 256, variant % 2 == 0,
               variant % 4 == 1},
              pool, rng);
      }
}

TEST_F(LinearTest, GroupSizes) {
  // Powers of two take the fast paths; 24, 40 and 96 (and odd ones) the
  // fallbacks, which dequantize whole rows first.
  for (WeightType type :
       {WeightType::I8, WeightType::U8, WeightType::I4, WeightType::U4})
    for (auto [group, k] : {std::pair<int64_t, int64_t>{8, 136},
                            {16, 208},
                            {24, 192},
                            {32, 96},
                            {40, 120},
                            {64, 576},
                            {96, 384},
                            {128, 896},
                            {256, 512},
                            {3, 21},
                            {7, 7}})
      for (int64_t m : {1, 2, 6})
        check({type, ParamType::F16, m == 2 ? ParamType::U8 : ParamType::None,
               group, m, 11, k, true, false},
              pool, rng);
}

TEST_F(LinearTest, ManyRowsOfOneInput) {
  // Decode products: more rows than a batch of widened parameters (and
  // than the 16 summed together), which the integer-dot paths scale by
  // x's units, with and without zero points.
  for (WeightType type : {WeightType::I8, WeightType::I4, WeightType::U4})
    for (auto [group, zp] : {std::pair<int64_t, ParamType>{64, ParamType::None},
                             {32, ParamType::U8},
                             {128, ParamType::F16},
                             {256, ParamType::None}})
      check({type, ParamType::F16, zp, group, 1, 301, 512, true, false}, pool,
            rng);
}

TEST_F(LinearTest, ManyRowsOfSymmetricIntegerWeights) {
  // Prefill products that run by integer dot products where the host has
  // AVX-512 VNNI: groups spanning whole 64-column blocks, K blocks of 256
  // with a short last one (k = 576), edge tiles of rows and columns.
  for (WeightType type :
       {WeightType::I8, WeightType::U8, WeightType::I4, WeightType::U4})
    for (auto [group, k] : {std::pair<int64_t, int64_t>{64, 576},
                            {128, 768},
                            {256, 768},
                            {0, 320}})
      for (int64_t m : {17, 31})
        check({type, ParamType::BF16, ParamType::None, group, m, 70, k,
               m == 17, group == 128},
              pool, rng);
}

TEST_F(LinearTest, ManyRowsOfGroupsWithinBlocks) {
  // Prefill with groups of 16, 32 and 96 columns (GGUF's Q4_0 and Q8_0
  // have 32), which the integer-dot path takes in chunks of 16 or 32 with
  // a scale each.
  for (WeightType type :
       {WeightType::I8, WeightType::U8, WeightType::I4, WeightType::U4})
    for (auto [group, k] : {std::pair<int64_t, int64_t>{32, 576},
                            {16, 320},
                            {96, 384}})
      for (int64_t m : {17, 31})
        check({type, ParamType::F16, ParamType::None, group, m, 70, k,
               m == 31, group == 16},
              pool, rng);
}

TEST_F(LinearTest, ManyRowsOfWeightsWithZeroPoints) {
  // Prefill with zero points: integer ones (llmc's --asymmetric) and float
  // ones (GGUF's Q4_1 serves -m / d), per chunk of 16, 32 or 64 columns.
  for (WeightType type :
       {WeightType::I8, WeightType::U8, WeightType::I4, WeightType::U4})
    for (auto [group, zp] :
         {std::pair<int64_t, ParamType>{32, ParamType::F32},
          {64, ParamType::U8},
          {16, ParamType::U4},
          {128, ParamType::F16},
          {0, ParamType::I8}})
      for (int64_t m : {17, 31})
        check({type, ParamType::F16, zp, group, m, 70, 512, m == 17,
               group == 32},
              pool, rng);
}

TEST_F(LinearTest, OddShapes) {
  for (WeightType type :
       {WeightType::F32, WeightType::F16, WeightType::I8, WeightType::I4})
    for (int64_t m = 1; m <= 37; m += (m < 6 ? 1 : 7))
      for (auto [n, k] : {std::pair<int64_t, int64_t>{1, 1},
                          {3, 17},
                          {31, 33},
                          {33, 258},
                          {65, 31}})
        check({type, ParamType::F16, ParamType::None, 0, m, n, k, m % 2 == 1,
               m % 3 == 0},
              pool, rng);
}

TEST_F(LinearTest, EmptyProductIsBias) {
  TestWeights w = makeWeights(WeightType::F32, ParamType::None, ParamType::None,
                              3, 0, 1, rng);
  std::vector<float> x(2), bias = {1, 2, 3}, y = {10, 20, 30, 40, 50, 60};
  linear(x.data(), 2, 0, w.w, bias.data(), y.data(), 3, true, pool);
  EXPECT_EQ(y, (std::vector<float>{11, 22, 33, 41, 52, 63}));
}

TEST_F(LinearTest, NonFiniteInputsGiveNonFiniteOutputs) {
  // Every kernel turns x into something else first (laid out, in pieces,
  // packed): a NaN or infinity must still reach every output it touches.
  for (WeightType type : {WeightType::F16, WeightType::I8, WeightType::I4})
    for (int64_t m : {1, 6, 19})
      for (float bad : {std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::infinity()}) {
        const int64_t n = 19, k = 256;
        TestWeights w = makeWeights(
            type, type == WeightType::F16 ? ParamType::None : ParamType::F16,
            ParamType::None, n, k, 64, rng);
        std::vector<float> x = randomFloats(m * k, rng);
        x[(m - 1) * k + 130] = bad;
        for (Isa isa : getTestIsas()) {
          std::vector<float> y(m * n, 0.0f);
          linear(x.data(), m, k, w.w, nullptr, y.data(), n, false, pool, isa);
          for (int64_t j = 0; j < n; ++j)
            EXPECT_FALSE(std::isfinite(y[(m - 1) * n + j]))
                << getIsaName(isa) << " m " << m << " column " << j;
        }
      }
}

/// Outputs of `c` on each path with pools of 1, 2 and 3 threads are the
/// same bits.
void checkThreadCounts(const Case &c, std::mt19937 &rng) {
  TestWeights w = makeWeights(c.type, c.scale, c.zp, c.n, c.k,
                              c.group ? c.group : c.k, rng);
  std::vector<float> x = randomFloats(c.m * c.k, rng);
  std::vector<float> bias = randomFloats(c.n, rng);
  for (Isa isa : getTestIsas()) {
    std::vector<float> first;
    for (unsigned threads : {1u, 2u, 3u}) {
      WorkerPool pool(threads);
      std::vector<float> y(c.m * c.n, 0.5f);
      linear(x.data(), c.m, c.k, w.w, c.bias ? bias.data() : nullptr, y.data(),
             c.n, c.accumulate, pool, isa);
      if (first.empty())
        first = y;
      else
        EXPECT_EQ(0, std::memcmp(first.data(), y.data(), 4 * y.size()))
            << describe(c, isa) << ", " << threads << " threads";
    }
  }
}

TEST(LinearThreads, BitIdenticalForAnyThreadCount) {
  std::mt19937 rng(7);
  checkThreadCounts(
      {WeightType::F16, ParamType::None, ParamType::None, 0, 1, 203, 96, true},
      rng);
  checkThreadCounts({WeightType::I4, ParamType::F16, ParamType::U4, 32, 1, 77,
                     256, true, true},
                    rng);
  checkThreadCounts(
      {WeightType::I8, ParamType::BF16, ParamType::None, 64, 3, 61, 320}, rng);
  checkThreadCounts({WeightType::U8, ParamType::F16, ParamType::U8, 64, 23, 97,
                     640, true, true},
                    rng);
  checkThreadCounts(
      {WeightType::F32, ParamType::None, ParamType::None, 0, 9, 150, 70}, rng);
  checkThreadCounts({WeightType::I4, ParamType::F16, ParamType::None, 128, 29,
                     133, 512, true},
                    rng);
}

/// linearProducts of `c`'s layout with products of n = 40, 8 and 200 (the
/// claims' pieces straddle them) gives the bits of a linear call per
/// product, on each path, with 1 to 3 threads.
void checkProductsOfOneInput(const Case &c, std::mt19937 &rng) {
  const int64_t group = c.group ? c.group : c.k;
  std::vector<TestWeights> weights;
  for (int64_t n : {40, 8, 200})
    weights.push_back(makeWeights(c.type, c.scale, c.zp, n, c.k, group, rng));
  const int64_t xStride = c.k + 5;
  std::vector<float> x = randomFloats(c.m * xStride, rng);
  std::vector<float> bias = randomFloats(200, rng);
  std::vector<float> initial = randomFloats(c.m * 200, rng);
  for (Isa isa : getTestIsas())
    for (unsigned threads : {1u, 2u, 3u}) {
      WorkerPool pool(threads);
      std::vector<std::vector<float>> batched, separate;
      std::vector<LinearProduct> products;
      for (const TestWeights &w : weights) {
        batched.emplace_back(initial.begin(), initial.begin() + c.m * w.w.n);
        separate.push_back(batched.back());
        // The middle product takes no bias, the last one accumulates.
        const bool hasBias = &w != &weights[1], accumulate = &w == &weights[2];
        products.push_back({&w.w, hasBias ? bias.data() : nullptr,
                            batched.back().data(), w.w.n, accumulate});
        linear(x.data(), c.m, xStride, w.w, products.back().bias,
               separate.back().data(), w.w.n, accumulate, pool, isa);
      }
      linearProducts(x.data(), c.m, xStride, products, pool, isa);
      for (size_t p = 0; p < weights.size(); ++p)
        EXPECT_EQ(0, std::memcmp(batched[p].data(), separate[p].data(),
                                 4 * batched[p].size()))
            << describe(c, isa) << ", product " << p << ", " << threads
            << " threads";
    }
}

TEST(LinearProducts, SameBitsAsOneCallEach) {
  std::mt19937 rng(11);
  for (int64_t m : {1, 3, 9}) {
    checkProductsOfOneInput(
        {WeightType::F16, ParamType::None, ParamType::None, 0, m, 0, 96}, rng);
    checkProductsOfOneInput(
        {WeightType::I4, ParamType::F16, ParamType::None, 64, m, 0, 256}, rng);
    checkProductsOfOneInput(
        {WeightType::U4, ParamType::F16, ParamType::U4, 32, m, 0, 256}, rng);
    checkProductsOfOneInput(
        {WeightType::I8, ParamType::BF16, ParamType::None, 64, m, 0, 320}, rng);
    checkProductsOfOneInput(
        {WeightType::U8, ParamType::F32, ParamType::U8, 128, m, 0, 256}, rng);
  }
}

} // namespace
} // namespace llmc::host::test
