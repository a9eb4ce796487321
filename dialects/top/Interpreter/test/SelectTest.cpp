//===- SelectTest.cpp - constants, division, compare, where, scatter, cumsum
//===//
//
// The ops a sampling head is built from. Expected values come from NumPy on
// the same float32 inputs (division in float32, running sums in float64
// rounded once, np.where, np.put_along_axis for ScatterElements).
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/test/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llmc::top;
using namespace llmc::top::testing;

namespace {

TEST(Constant, FloatsOfAnyWidthIntegersAndMasks) {
  auto results = runOk(R"mlir(
    func.func @main() -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<2xf16>, tensor<1x3xi1>, tensor<2x2xi64>) {
      %0 = top.Constant dense<0.25> : tensor<1x1xf32>
      %1 = top.Constant dense<0xFF800000> : tensor<1x1xf32>
      %2 = top.Constant dense<[1.5, -2.0]> : tensor<2xf16>
      %3 = top.Constant dense<[[true, false, true]]> : tensor<1x3xi1>
      %4 = top.Constant dense<[[512, -1], [0, 2147483647]]> : tensor<2x2xi64>
      return %0, %1, %2, %3, %4 : tensor<1x1xf32>, tensor<1x1xf32>, tensor<2xf16>, tensor<1x3xi1>, tensor<2x2xi64>
    })mlir",
                       {});
  ASSERT_EQ(results.size(), 5u);
  expectNear(results[0], {1, 1}, {0.25f});
  expectNear(results[1], {1, 1}, {-kInf});
  expectNear(results[2], {2}, {1.5f, -2.0f});
  expectInts(results[3], {1, 3}, {1, 0, 1});
  expectInts(results[4], {2, 2}, {512, -1, 0, 2147483647});
}

TEST(Constant, IntegerOutOfInt32RangeIsAnError) {
  MemoryWeightSource weights;
  std::string error = runError(R"mlir(
    func.func @main() -> tensor<1xi64> {
      %0 = top.Constant dense<4294967296> : tensor<1xi64>
      return %0 : tensor<1xi64>
    })mlir",
                               {}, weights);
  EXPECT_NE(error.find("constant element 4294967296 does not fit in int32"),
            std::string::npos)
      << error;
}

TEST(Div, BroadcastsAndFollowsIEEE) {
  auto results = runOk(
      R"mlir(
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %t: tensor<1x1xf32>, %n: tensor<3xf32>, %z: tensor<1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
      %0 = top.Div %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %1 = top.Div %a, %t : (tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
      %2 = top.Div %n, %z : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
      return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>
    })mlir",
      {Tensor::fromF32({2, 3}, {1.92f, 0.06f, -0.08f, 1.59f, -0.97f, 0.32f}),
       Tensor::fromF32({3}, {-0.29f, 1.51f, -0.35f}),
       Tensor::fromF32({1, 1}, {0.7f}),
       Tensor::fromF32({3}, {1.0f, -1.0f, 0.0f}),
       Tensor::fromF32({1}, {0.0f})});
  ASSERT_EQ(results.size(), 3u);
  expectNear(results[0], {2, 3},
             {-6.62068987f, 0.0397350974f, 0.22857143f, -5.48275900f,
              -0.642384112f, -0.914285719f});
  expectNear(results[1], {2, 3},
             {2.74285722f, 0.0857142881f, -0.114285715f, 2.27142859f,
              -1.38571429f, 0.45714286f});
  ASSERT_EQ(results[2].getNumElements(), 3);
  EXPECT_EQ(results[2].getF32()[0], kInf);
  EXPECT_EQ(results[2].getF32()[1], -kInf);
  EXPECT_TRUE(std::isnan(results[2].getF32()[2]));
}

const char *kCompareAll = R"mlir(
  func.func @main(%x: tensor<5xf32>, %y: tensor<1xf32>) -> (tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi32>) {
    %0 = top.Compare %x, %y {mode = #top<compare_mode eq>} : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xi1>
    %1 = top.Compare %x, %y {mode = #top<compare_mode ne>} : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xi1>
    %2 = top.Compare %x, %y {mode = #top<compare_mode lt>} : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xi1>
    %3 = top.Compare %x, %y {mode = #top<compare_mode le>} : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xi1>
    %4 = top.Compare %x, %y {mode = #top<compare_mode gt>} : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xi1>
    %5 = top.Compare %x, %y {mode = #top<compare_mode ge>} : (tensor<5xf32>, tensor<1xf32>) -> tensor<5xi32>
    return %0, %1, %2, %3, %4, %5 : tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi32>
  })mlir";

TEST(Compare, EveryModeAndNaN) {
  auto results =
      runOk(kCompareAll, {Tensor::fromF32({5}, {-1.0f, 0.5f, 2.0f, NAN, -kInf}),
                          Tensor::fromF32({1}, {0.5f})});
  ASSERT_EQ(results.size(), 6u);
  expectInts(results[0], {5}, {0, 1, 0, 0, 0});
  expectInts(results[1], {5}, {1, 0, 1, 1, 1});
  expectInts(results[2], {5}, {1, 0, 0, 0, 1});
  expectInts(results[3], {5}, {1, 1, 0, 0, 1});
  expectInts(results[4], {5}, {0, 0, 1, 0, 0});
  expectInts(results[5], {5}, {0, 1, 1, 0, 0});
}

TEST(Compare, IntegersBroadcastBothWays) {
  auto results = runOk(
      R"mlir(
    func.func @main(%a: tensor<2x1xi32>, %b: tensor<3xi32>) -> tensor<2x3xi1> {
      %0 = top.Compare %a, %b {mode = #top<compare_mode lt>} : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi1>
      return %0 : tensor<2x3xi1>
    })mlir",
      {Tensor::fromI32({2, 1}, {-1, 7}), Tensor::fromI32({3}, {0, 7, 8})});
  ASSERT_EQ(results.size(), 1u);
  expectInts(results[0], {2, 3}, {1, 1, 1, 0, 0, 1});
}

TEST(Where, BroadcastsAllThreeOperands) {
  auto results = runOk(R"mlir(
    func.func @main(%c: tensor<2x1xi1>, %x: tensor<3xf32>, %y: tensor<1x1xf32>, %m: tensor<1x3xi32>, %ids: tensor<1x3xi32>, %spare: tensor<1x1xi32>) -> (tensor<2x3xf32>, tensor<1x3xi32>) {
      %0 = top.Where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
      %1 = top.Where %m, %spare, %ids : (tensor<1x3xi32>, tensor<1x1xi32>, tensor<1x3xi32>) -> tensor<1x3xi32>
      return %0, %1 : tensor<2x3xf32>, tensor<1x3xi32>
    })mlir",
                       {Tensor::fromI32({2, 1}, {1, 0}),
                        Tensor::fromF32({3}, {1.5f, -2.5f, 3.5f}),
                        Tensor::fromF32({1, 1}, {-kInf}),
                        // Any nonzero integer is true.
                        Tensor::fromI32({1, 3}, {0, -3, 1}),
                        Tensor::fromI32({1, 3}, {17, -1, -1}),
                        Tensor::fromI32({1, 1}, {512})});
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 3}, {1.5f, -2.5f, 3.5f, -kInf, -kInf, -kInf});
  expectInts(results[1], {1, 3}, {17, 512, 512});
}

TEST(Where, CombinesMasksAsOr) {
  auto results = runOk(
      R"mlir(
    func.func @main(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
      %0 = top.Where %a, %a, %b : (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
      return %0 : tensor<4xi1>
    })mlir",
      {Tensor::fromI32({4}, {1, 1, 0, 0}), Tensor::fromI32({4}, {1, 0, 1, 0})});
  ASSERT_EQ(results.size(), 1u);
  expectInts(results[0], {4}, {1, 1, 1, 0});
}

TEST(ScatterElements, OnnxExamplesOnBothAxes) {
  auto results = runOk(
      R"mlir(
    func.func @main(%d0: tensor<3x3xf32>, %i0: tensor<2x3xi32>, %u0: tensor<2x3xf32>, %d1: tensor<1x5xf32>, %i1: tensor<1x2xi64>, %u1: tensor<1x2xf32>) -> (tensor<3x3xf32>, tensor<1x5xf32>) {
      %0 = top.ScatterElements %d0, %i0, %u0 : (tensor<3x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<3x3xf32>
      %1 = top.ScatterElements %d1, %i1, %u1 {axis = -1 : i64} : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
      return %0, %1 : tensor<3x3xf32>, tensor<1x5xf32>
    })mlir",
      {Tensor::fromF32({3, 3}, std::vector<float>(9, 0.0f)),
       Tensor::fromI32({2, 3}, {1, 0, 2, 0, 2, 1}),
       Tensor::fromF32({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f}),
       Tensor::fromF32({1, 5}, {1, 2, 3, 4, 5}),
       Tensor::fromI32({1, 2}, {1, 3}), Tensor::fromF32({1, 2}, {1.1f, 2.1f})});
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {3, 3},
             {2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f});
  expectNear(results[1], {1, 5}, {1.0f, 1.1f, 3.0f, 2.1f, 5.0f});
}

TEST(ScatterElements, SmallerIndicesIntegersAndRepeatedIndices) {
  // Indices [1, 3] cover only the first row of a [2, 4] table; the repeated
  // index 2 takes the later update.
  auto results = runOk(R"mlir(
    func.func @main(%d: tensor<2x4xi32>, %i: tensor<1x3xi32>, %u: tensor<1x3xi32>) -> tensor<2x4xi32> {
      %0 = top.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<2x4xi32>, tensor<1x3xi32>, tensor<1x3xi32>) -> tensor<2x4xi32>
      return %0 : tensor<2x4xi32>
    })mlir",
                       {Tensor::fromI32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}),
                        Tensor::fromI32({1, 3}, {2, 0, 2}),
                        Tensor::fromI32({1, 3}, {-10, -20, -30})});
  ASSERT_EQ(results.size(), 1u);
  expectInts(results[0], {2, 4}, {-20, 1, -30, 3, 4, 5, 6, 7});
}

TEST(ScatterElements, OutOfRangeIndexIsAnError) {
  MemoryWeightSource weights;
  std::string error = runError(R"mlir(
    func.func @main(%d: tensor<1x4xf32>, %i: tensor<1x2xi32>, %u: tensor<1x2xf32>) -> tensor<1x4xf32> {
      %0 = top.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x4xf32>, tensor<1x2xi32>, tensor<1x2xf32>) -> tensor<1x4xf32> loc("penalty")
      return %0 : tensor<1x4xf32>
    })mlir",
                               {Tensor::fromF32({1, 4}, {0, 0, 0, 0}),
                                Tensor::fromI32({1, 2}, {3, -1}),
                                Tensor::fromF32({1, 2}, {1, 2})},
                               weights);
  EXPECT_NE(error.find("'top.ScatterElements' at loc(\"penalty\")"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("index -1 at position 1 is out of range for dimension "
                       "1 of f32[1, 4]"),
            std::string::npos)
      << error;
}

TEST(CumSum, InclusiveExclusiveAndReverse) {
  auto results =
      runOk(R"mlir(
    func.func @main(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
      %0 = top.CumSum %x : (tensor<3x4xf32>) -> tensor<3x4xf32>
      %1 = top.CumSum %x {exclusive = true} : (tensor<3x4xf32>) -> tensor<3x4xf32>
      %2 = top.CumSum %x {axis = 0 : i64, reverse = true} : (tensor<3x4xf32>) -> tensor<3x4xf32>
      %3 = top.CumSum %x {axis = 0 : i64, exclusive = true, reverse = true} : (tensor<3x4xf32>) -> tensor<3x4xf32>
      return %0, %1, %2, %3 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
    })mlir",
            {Tensor::fromF32({3, 4}, {0.5f, 0.25f, 0.125f, 0.0625f, 1.1f, -2.2f,
                                      3.3f, -4.4f, 0.1f, 0.2f, 0.3f, 0.4f})});
  ASSERT_EQ(results.size(), 4u);
  expectNear(results[0], {3, 4},
             {0.5f, 0.75f, 0.875f, 0.9375f, 1.10000002f, -1.10000002f,
              2.19999981f, -2.20000029f, 0.100000001f, 0.300000012f,
              0.600000024f, 1.0f});
  expectNear(results[1], {3, 4},
             {0.0f, 0.5f, 0.75f, 0.875f, 0.0f, 1.10000002f, -1.10000002f,
              2.19999981f, 0.0f, 0.100000001f, 0.300000012f, 0.600000024f});
  expectNear(results[2], {3, 4},
             {1.70000005f, -1.75f, 3.72499990f, -3.9375f, 1.20000005f, -2.0f,
              3.59999990f, -4.0f, 0.100000001f, 0.200000003f, 0.300000012f,
              0.400000006f});
  expectNear(results[3], {3, 4},
             {1.20000005f, -2.0f, 3.59999990f, -4.0f, 0.100000001f,
              0.200000003f, 0.300000012f, 0.400000006f, 0.0f, 0.0f, 0.0f,
              0.0f});
  // An exclusive sum is the inclusive sum one position back, bit for bit:
  // top-p filtering compares it with p and must not flip on rounding.
  for (int row = 0; row < 3; ++row)
    for (int col = 1; col < 4; ++col)
      EXPECT_EQ(results[1].getF32()[row * 4 + col],
                results[0].getF32()[row * 4 + col - 1]);
}

} // namespace
