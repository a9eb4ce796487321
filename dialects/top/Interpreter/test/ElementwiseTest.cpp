//===- ElementwiseTest.cpp - arithmetic, activations, softmax, means ------===//
//
// Expected values come from NumPy in float64 on the same float32 inputs.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/test/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llmc::top;
using namespace llmc::top::testing;

namespace {

const std::vector<float> kE1 = {1.91999996f, 0.0599999987f, 0.0799999982f,
                                1.59000003f, 0.970000029f,  0.319999993f};

TEST(Add, BroadcastsTrailingAndInnerDimensions) {
  auto results = runOk(
      R"mlir(
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1x3xf32>, %d: tensor<4x1xf32>) -> (tensor<2x3xf32>, tensor<2x4x3xf32>) {
      %0 = top.Add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %1 = top.Add %c, %d : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
      return %0, %1 : tensor<2x3xf32>, tensor<2x4x3xf32>
    })mlir",
      {Tensor::fromF32({2, 3}, kE1),
       Tensor::fromF32({3}, {-0.289999992f, 1.50999999f, -0.349999994f}),
       Tensor::fromF32({2, 1, 3}, {1.69000006f, -1.73000002f, -0.280000001f,
                                   0.0799999982f, 1.79999995f, -1.0f}),
       Tensor::fromF32(
           {4, 1}, {1.22000003f, 0.709999979f, 0.870000005f, 0.519999981f})});
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 3},
             {1.62999997f, 1.56999999f, -0.269999996f, 1.30000004f, 2.48000002f,
              -0.0300000012f});
  expectNear(results[1], {2, 4, 3},
             {2.91000009f,   -0.50999999f,  0.940000027f, 2.40000004f,
              -1.02000004f,  0.429999977f,  2.56000006f,  -0.860000014f,
              0.590000004f,  2.21000004f,   -1.21000004f, 0.23999998f,
              1.30000003f,   3.01999998f,   0.220000029f, 0.789999977f,
              2.50999993f,   -0.290000021f, 0.950000003f, 2.66999996f,
              -0.129999995f, 0.599999979f,  2.31999993f,  -0.480000019f});
}

TEST(Mul, BroadcastsAColumnAndMulConstScales) {
  auto results = runOk(R"mlir(
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
      %0 = top.Mul %a, %b : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
      %1 = top.MulConst %a {const_val = -1.25 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
                       {Tensor::fromF32({2, 3}, kE1),
                        Tensor::fromF32({2, 1}, {1.88999999f, -0.670000017f})});
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 3},
             {3.62879989f, 0.113399997f, 0.151199995f, -1.06530005f,
              -0.649900035f, -0.214400001f});
  expectNear(results[1], {2, 3},
             {-2.39999995f, -0.0749999983f, -0.0999999978f, -1.98750004f,
              -1.21250004f, -0.399999991f});
}

TEST(Activations, SiLUAndBothGELUs) {
  auto results = runOk(
      R"mlir(
    func.func @main(%x: tensor<7xf32>) -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) {
      %0 = top.SiLU %x : (tensor<7xf32>) -> tensor<7xf32>
      %1 = top.GELU %x : (tensor<7xf32>) -> tensor<7xf32>
      %2 = top.GELU %x {approximation = #top<gelu_approximation tanh>} : (tensor<7xf32>) -> tensor<7xf32>
      return %0, %1, %2 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
    })mlir",
      {Tensor::fromF32({7}, {-3.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 3.0f})});
  ASSERT_EQ(results.size(), 3u);
  expectNear(results[0], {7},
             {-0.14227762f, -0.268941421f, -0.188770334f, 0.0f, 0.311229666f,
              0.731058579f, 2.85772238f});
  expectNear(results[1], {7},
             {-0.00404969409f, -0.158655254f, -0.154268769f, 0.0f, 0.345731231f,
              0.841344746f, 2.99595031f});
  expectNear(results[2], {7},
             {-0.00363739208f, -0.158808009f, -0.15428599f, 0.0f, 0.34571401f,
              0.841191991f, 2.99636261f});
}

TEST(Softmax, LastAndFirstAxis) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
      %0 = top.Softmax %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %1 = top.Softmax %x {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
                       {Tensor::fromF32({2, 3}, kE1)});
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 3},
             {0.760751278f, 0.118428157f, 0.120820565f, 0.549820305f,
              0.295772773f, 0.154406922f});
  expectNear(results[1], {2, 3},
             {0.581759358f, 0.286999831f, 0.440286352f, 0.418240642f,
              0.713000169f, 0.559713648f});
}

TEST(Softmax, LargeLogitsDoNotOverflow) {
  // exp(1000) overflows float and double: only a max-shifted softmax gives
  // the right answer, [e^-2, e^-1, 1] / (e^-2 + e^-1 + 1).
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %0 = top.Softmax %x : (tensor<3xf32>) -> tensor<3xf32>
      return %0 : tensor<3xf32>
    })mlir",
                       {Tensor::fromF32({3}, {998.0f, 999.0f, 1000.0f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {3}, {0.0900305732f, 0.244728471f, 0.665240956f});
}

TEST(Activations, Sigmoid) {
  auto results = runOk(
      R"mlir(
    func.func @main(%x: tensor<7xf32>) -> tensor<7xf32> {
      %0 = top.Sigmoid %x : (tensor<7xf32>) -> tensor<7xf32>
      return %0 : tensor<7xf32>
    })mlir",
      {Tensor::fromF32({7}, {-3.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 3.0f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {7},
             {0.0474258732f, 0.268941421f, 0.377540669f, 0.5f, 0.622459331f,
              0.731058579f, 0.952574127f});
}

TEST(Activations, Tanh) {
  auto results = runOk(
      R"mlir(
    func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
      %0 = top.Tanh %x : (tensor<5xf32>) -> tensor<5xf32>
      return %0 : tensor<5xf32>
    })mlir",
      {Tensor::fromF32({5}, {-3.0f, -0.5f, 0.0f, 0.25f, 2.0f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {5},
             {-0.995054754f, -0.462117157f, 0.0f, 0.244918662f, 0.96402758f});
}

TEST(Sqrt, RootsAndNaNForNegatives) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
      %0 = top.Sqrt %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
      return %0 : tensor<2x4xf32>
    })mlir",
                       {Tensor::fromF32({2, 4}, {0.0f, 0.25f, 2.0f, 1e-6f, 9.0f,
                                                 1.5e4f, kInf, -1.0f})});
  ASSERT_EQ(results.size(), 1u);
  llvm::ArrayRef<float> roots = results[0].getF32();
  ASSERT_EQ(roots.size(), 8u);
  EXPECT_TRUE(std::isnan(roots[7]));
  expectNear(
      Tensor::fromF32({7}, roots.drop_back()), {7},
      {0.0f, 0.5f, 1.41421356f, 0.000999999999f, 3.0f, 122.474487f, kInf});
}

TEST(Pow, SquareIsExactOtherExponentsUsePow) {
  const std::vector<float> x = {0.0f, 0.25f, 2.0f, 1e-6f, 9.0f, 1.5e4f};
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<6xf32>, %e: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
      %0 = top.Pow %e {exponent = 2.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %1 = top.Pow %x {exponent = 0.5 : f64} : (tensor<6xf32>) -> tensor<6xf32>
      %2 = top.Pow %x {exponent = -1.0 : f64} : (tensor<6xf32>) -> tensor<6xf32>
      %3 = top.Pow %x {exponent = 3.0 : f64} : (tensor<6xf32>) -> tensor<6xf32>
      return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
    })mlir",
                       {Tensor::fromF32({6}, x), Tensor::fromF32({2, 3}, kE1)});
  ASSERT_EQ(results.size(), 4u);
  // The square is the float product itself, bit for bit.
  std::vector<float> squares;
  for (float value : kE1)
    squares.push_back(value * value);
  expectBitIdentical(results[0], Tensor::fromF32({2, 3}, squares));
  expectNear(results[1], {6},
             {0.0f, 0.5f, 1.41421356f, 0.000999999999f, 3.0f, 122.474487f});
  expectNear(results[2], {6},
             {kInf, 4.0f, 0.5f, 1000000.0f, 0.111111111f, 6.66666667e-05f});
  expectNear(results[3], {6},
             {0.0f, 0.015625f, 8.0f, 9.99999992e-19f, 729.0f, 3.375e+12f});
}

TEST(Pow, NegativeBaseToAFractionIsNaN) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0 = top.Pow %x {exponent = 0.5 : f64} : (tensor<2xf32>) -> tensor<2xf32>
      %1 = top.Pow %x {exponent = 2.0 : f64} : (tensor<2xf32>) -> tensor<2xf32>
      return %0, %1 : tensor<2xf32>, tensor<2xf32>
    })mlir",
                       {Tensor::fromF32({2}, {-4.0f, -1.5f})});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(std::isnan(results[0].getF32()[0]));
  EXPECT_TRUE(std::isnan(results[0].getF32()[1]));
  expectNear(results[1], {2}, {16.0f, 2.25f});
}

TEST(ReduceMean, OneOrSeveralAxesWithAndWithoutKeepdims) {
  std::vector<float> values(24);
  for (int i = 0; i < 24; ++i)
    values[i] = static_cast<float>(i);
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<3xf32>, tensor<2x1x4xf32>, tensor<1x1x1xf32>) {
      %0 = top.ReduceMean %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
      %1 = top.ReduceMean %x {axes = array<i64: 2, 0>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
      %2 = top.ReduceMean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
      %3 = top.ReduceMean %x {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
      return %0, %1, %2, %3 : tensor<2x3x1xf32>, tensor<3xf32>, tensor<2x1x4xf32>, tensor<1x1x1xf32>
    })mlir",
                       {Tensor::fromF32({2, 3, 4}, values)});
  ASSERT_EQ(results.size(), 4u);
  expectNear(results[0], {2, 3, 1}, {1.5f, 5.5f, 9.5f, 13.5f, 17.5f, 21.5f});
  expectNear(results[1], {3}, {7.5f, 11.5f, 15.5f});
  expectNear(results[2], {2, 1, 4},
             {4.0f, 5.0f, 6.0f, 7.0f, 16.0f, 17.0f, 18.0f, 19.0f});
  expectNear(results[3], {1, 1, 1}, {11.5f});
}

TEST(ReduceMean, AccumulatesInDouble) {
  // In float, 1e8 + 1 rounds back to 1e8 and the mean would be 0.25.
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<1x4xf32>) -> tensor<1x1xf32> {
      %0 = top.ReduceMean %x {axes = array<i64: 1>} : (tensor<1x4xf32>) -> tensor<1x1xf32>
      return %0 : tensor<1x1xf32>
    })mlir",
                       {Tensor::fromF32({1, 4}, {1e8f, 1.0f, -1e8f, 1.0f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {1, 1}, {0.5f}, 0.0f);
}

} // namespace
