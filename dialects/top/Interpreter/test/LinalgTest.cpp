//===- LinalgTest.cpp - MatMul, MLP and normalization kernels -------------===//
//
// Expected values come from NumPy in float64 on the same (float32) inputs.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/test/TestSupport.h"

#include <gtest/gtest.h>

using namespace llmc::top;
using namespace llmc::top::testing;

namespace {

const std::vector<float> kX = {0.5f,         1.59000003f,   1.10000002f,
                               -1.10000002f, -0.800000012f, 1.49000001f};
const std::vector<float> kW = {-1.98000002f,  1.27999997f,   1.19000006f,
                               -0.129999995f, -0.790000021f, -0.889999986f,
                               -0.980000019f, -0.219999999f, 0.0199999996f,
                               0.209999993f,  1.98000002f,   1.16999996f};

TEST(MatMul, PlainWeight) {
  MemoryWeightSource weights;
  weights.addF32("w", {3, 4}, kW);
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
      %none = top.None : none
      %w = top.Weight "w" : () -> tensor<3x4xf32>
      %y = top.MatMul %x, %w, %none : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
      return %y : tensor<2x4xf32>
    })mlir",
                       {Tensor::fromF32({2, 3}, kX)}, weights);
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {2, 4},
             {-2.22410007f, -0.544100023f, 1.21480003f, 0.872199978f,
              2.83980009f, -0.383100008f, 2.42519998f, 2.06229995f});
}

TEST(MatMul, LinearLayoutWithBias) {
  MemoryWeightSource weights;
  weights.addF32("wt", {4, 3},
                 {0.49000001f, 1.96000004f, -1.13999999f, -1.36000001f,
                  0.449999988f, -1.82000005f, -1.86000001f, 0.0599999987f,
                  -0.140000001f, 1.66999996f, 0.519999981f, 0.0599999987f});
  weights.addF32("b", {4},
                 {-0.00999999978f, -1.00999999f, -1.95000005f, -1.23000002f});
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
      %w = top.Weight "wt" : () -> tensor<4x3xf32>
      %b = top.Weight "b" : () -> tensor<4xf32>
      %y = top.MatMul %x, %w, %b {right_transpose = true} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
      return %y : tensor<2x4xf32>
    })mlir",
                       {Tensor::fromF32({2, 3}, kX)}, weights);
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {2, 4},
             {2.09740012f, -2.9765001f, -2.93860006f, 0.497799946f,
              -3.81560007f, -2.58580003f, -0.160599989f, -3.3936f});
}

TEST(MatMul, LeftTransposeAndColumnBias) {
  MemoryWeightSource weights;
  weights.addF32("w", {3, 4}, kW);
  auto results =
      runOk(R"mlir(
    func.func @main(%xt: tensor<3x2xf32>, %x: tensor<2x3xf32>, %bias: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
      %none = top.None : none
      %w = top.Weight "w" : () -> tensor<3x4xf32>
      %0 = top.MatMul %xt, %w, %none {left_transpose = true} : (tensor<3x2xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
      %1 = top.MatMul %x, %w, %bias : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
      return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
    })mlir",
            {Tensor::fromF32({3, 2}, {0.769999981f, -1.20000005f, -0.519999981f,
                                      -1.99000001f, 1.32000005f, -1.38f}),
             Tensor::fromF32({2, 3}, kX),
             Tensor::fromF32({2, 1}, {0.689999998f, -0.800000012f})},
            weights);
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 4},
             {-1.08739998f, 1.72559993f, 4.03950014f, 1.55870001f, 3.92050017f,
              -0.0547000366f, -2.21020009f, -1.02079993f});
  expectNear(results[1], {2, 4},
             {-1.53410007f, 0.145899974f, 1.90480003f, 1.56219998f, 2.03980008f,
              -1.18310002f, 1.62519997f, 1.26229993f});
}

TEST(MatMul, BroadcastsBatchDimensions) {
  auto results = runOk(
      R"mlir(
    func.func @main(%a: tensor<2x1x2x3xf32>, %b: tensor<3x3x2xf32>) -> tensor<2x3x2x2xf32> {
      %none = top.None : none
      %y = top.MatMul %a, %b, %none : (tensor<2x1x2x3xf32>, tensor<3x3x2xf32>, none) -> tensor<2x3x2x2xf32>
      return %y : tensor<2x3x2x2xf32>
    })mlir",
      {Tensor::fromF32({2, 1, 2, 3},
                       {-0.930000007f, 1.51999998f, 0.0399999991f, 1.38999999f,
                        0.560000002f, 0.970000029f, -1.63f, 0.159999996f,
                        0.0299999993f, 1.49000001f, -0.550000012f,
                        0.389999986f}),
       Tensor::fromF32({3, 3, 2},
                       {-1.75999999f, -0.449999988f, -0.709999979f,
                        -1.39999998f, 1.26999998f, -0.479999989f, 1.90999997f,
                        0.360000014f, 0.419999987f, 0.550000012f, 0.709999979f,
                        -1.39999998f, -0.239999995f, -1.03999996f,
                        -0.389999986f, -1.61000001f, 1.87f, -1.13999999f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {2, 3, 2, 2},
             {0.608400048f,  -1.72869994f, -1.61209993f, -1.87509997f,
              -1.10950001f,  0.445199994f, 3.57879992f,  -0.549599994f,
              -0.294799976f, -1.52560002f, 1.26190008f,  -3.45299996f,
              2.79329998f,   0.495099988f, -1.73660003f, -0.0876999719f,
              -3.02479994f,  -0.54080002f, 2.89179995f,  -0.312099959f,
              0.384899993f,  1.40339994f,  0.586199978f, -1.1086999f});
}

TEST(MLP, EveryActivation) {
  MemoryWeightSource weights;
  weights.addF32("gate", {3, 4},
                 {-1.23000002f, 1.71000004f, 0.209999993f, -1.27999997f,
                  1.53999996f, 0.569999993f, 0.280000001f, -0.49000001f,
                  -0.360000014f, -1.03999996f, -1.85000002f, 1.5f});
  weights.addF32("up", {3, 4},
                 {-0.129999995f, 0.189999998f, -0.709999979f, 1.00999999f,
                  -1.89999998f, -0.50999999f, -1.88f, -1.50999999f, 1.87f,
                  0.629999995f, -0.289999992f, 0.0900000036f});
  weights.addF32("down", {4, 3},
                 {1.49000001f, -0.620000005f, 0.360000014f, 0.730000019f,
                  -0.579999983f, 0.0799999982f, 1.05999994f, 1.63999999f,
                  -1.39999998f, 1.73000002f, -1.98000002f, 1.00999999f});
  auto results =
      runOk(R"mlir(
    func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
      %g = top.Weight "gate" : () -> tensor<3x4xf32>
      %u = top.Weight "up" : () -> tensor<3x4xf32>
      %d = top.Weight "down" : () -> tensor<4x3xf32>
      %0 = top.MLP %x, %g, %u, %d : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
      %1 = top.MLP %x, %g, %u, %d {activation = #top<activation gelu>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
      %2 = top.MLP %x, %g, %u, %d {activation = #top<activation gelu_tanh>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
      %3 = top.MLP %x, %g, %u, %d {activation = #top<activation relu>} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
      return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
    })mlir",
            {Tensor::fromF32({2, 4},
                             {1.5f, 0.649999976f, -1.47000003f, 1.38f,
                              1.77999997f, 1.62f, 0.280000001f, -1.41999996f})},
            weights);
  ASSERT_EQ(results.size(), 4u);
  expectNear(results[0], {2, 4},
             {6.20119707f, 2.6915502f, -24.1525248f, 19.120138f, 1.74544949f,
              4.0080132f, -22.1734069f, 16.263075f});
  expectNear(results[1], {2, 4},
             {7.15101334f, 3.24654259f, -25.0212265f, 21.0082517f, 1.46972424f,
              3.89635206f, -22.8830472f, 16.1957488f});
  expectNear(results[2], {2, 4},
             {7.1525893f, 3.24712369f, -25.0201893f, 21.0098697f, 1.46876409f,
              3.89589028f, -22.8838087f, 16.1946792f});
  expectNear(results[3], {2, 4},
             {7.31388568f, 3.38732329f, -25.3704284f, 21.4779953f, 1.42985841f,
              3.87683419f, -22.9115275f, 16.1495312f});
}

const std::vector<float> kNormInput = {
    1.24000001f, -1.45000005f, -0.319999993f, 1.25999999f,  -1.94000006f,
    0.50999999f, 1.16999996f,  0.0500000007f, 0.899999976f, -1.09000003f};
const std::vector<float> kNormWeight = {
    -1.21000004f, -0.550000012f, -1.27999997f, -0.620000005f, 1.78999996f};
const std::vector<float> kNormBias = {
    0.289999992f, -0.639999986f, -0.910000026f, 1.80999994f, -0.219999999f};

TEST(RMSNorm, WithAndWithoutWeight) {
  // The unweighted case uses a large eps so that where eps enters shows.
  MemoryWeightSource weights;
  weights.addF32("w", {5}, kNormWeight);
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
      %none = top.None : none
      %w = top.Weight "w" : () -> tensor<5xf32>
      %0 = top.RMSNorm %x, %w {eps = 1.0e-6 : f64} : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
      %1 = top.RMSNorm %x, %none {eps = 0.1 : f64} : (tensor<2x5xf32>, none) -> tensor<2x5xf32>
      return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
    })mlir",
                       {Tensor::fromF32({2, 5}, kNormInput)}, weights);
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 5},
             {-1.11255537f, 0.591350922f, 0.303720769f, -0.579264345f,
              -2.57495312f, -0.724287311f, -0.755272843f, -0.0751164916f,
              -0.654921904f, -2.28999671f});
  expectNear(results[1], {2, 5},
             {0.895186689f, -1.04679091f, -0.231015913f, 0.90962517f,
              -1.40053404f, 0.561178703f, 1.28740994f, 0.0550175217f,
              0.99031535f, -1.19938199f});
}

TEST(LayerNorm, WithAndWithoutAffine) {
  // As for RMSNorm, a large eps on the plain case.
  MemoryWeightSource weights;
  weights.addF32("w", {5}, kNormWeight);
  weights.addF32("b", {5}, kNormBias);
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
      %none = top.None : none
      %w = top.Weight "w" : () -> tensor<5xf32>
      %b = top.Weight "b" : () -> tensor<5xf32>
      %0 = top.LayerNorm %x, %w, %b {eps = 1.0e-5 : f64} : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
      %1 = top.LayerNorm %x, %none, %none {eps = 0.1 : f64} : (tensor<2x5xf32>, none, none) -> tensor<2x5xf32>
      return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
    })mlir",
                       {Tensor::fromF32({2, 5}, kNormInput)}, weights);
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 5},
             {-1.06161907f, -0.13921609f, -0.8347468f, 1.10808847f,
              -2.51092794f, -0.0176800952f, -1.23680514f, -0.494288336f,
              1.34796374f, -3.37008887f});
  expectNear(results[1], {2, 5},
             {1.08660372f, -0.885706677f, -0.0571896486f, 1.10126772f,
              -1.24497511f, 0.236252315f, 1.00816574f, -0.301747962f,
              0.692382979f, -1.63505307f});
}

} // namespace
