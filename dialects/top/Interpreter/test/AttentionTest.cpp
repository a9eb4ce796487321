//===- AttentionTest.cpp - Rope and FAttention kernels --------------------===//
//
// Expected values come from NumPy in float64: rotary tables as Hugging Face
// builds them (theta 10000), rotation as x * cos + rotate(x) * sin, and
// attention written head by head from its definition.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/test/TestSupport.h"

#include <gtest/gtest.h>

using namespace llmc::top;
using namespace llmc::top::testing;

namespace {

TEST(Rope, HalfModeFullRotary) {
  auto results = runOk(
      R"mlir(
    func.func @main(%x: tensor<1x2x2x4xf32>, %cos: tensor<1x2x4xf32>, %sin: tensor<1x2x4xf32>) -> tensor<1x2x2x4xf32> {
      %0 = top.Rope %x, %cos, %sin : (tensor<1x2x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x2x4xf32>
      return %0 : tensor<1x2x2x4xf32>
    })mlir",
      {Tensor::fromF32({1, 2, 2, 4},
                       {-1.49000001f, -0.0f, 0.409999996f, -1.88999999f,
                        -1.40999997f, 1.71000004f, -1.72000003f, -1.48000002f,
                        1.78999996f, 0.49000001f, -0.519999981f, 0.0500000007f,
                        0.649999976f, -0.899999976f, -1.45000005f,
                        1.14999998f}),
       Tensor::fromF32({1, 2, 4}, {-0.989992499f, 0.999550045f, -0.989992499f,
                                   0.999550045f, 0.753902256f, 0.997551024f,
                                   0.753902256f, 0.997551024f}),
       Tensor::fromF32({1, 2, 4}, {0.141120002f, 0.029995501f, 0.141120002f,
                                   0.029995501f, 0.656986594f, 0.0699428469f,
                                   0.656986594f, 0.0699428469f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {1, 2, 2, 4},
             {1.41722963f, 0.0566914965f, -0.616165725f, -1.88914957f,
              1.6386158f, 1.75362396f, 1.50380793f, -1.42804178f, 1.69111803f,
              0.485302869f, 0.78397682f, 0.0841495476f, 1.44266704f,
              -0.97823017f, -0.666117037f, 1.08423509f});
}

TEST(Rope, InterleavedPartialRotaryWithSharedTables) {
  // Rotary dim 4 of head_dim 6: channels 4 and 5 pass through; one table
  // row per position serves both batches.
  auto results = runOk(
      R"mlir(
    func.func @main(%x: tensor<2x2x1x6xf32>, %cos: tensor<1x2x4xf32>, %sin: tensor<1x2x4xf32>) -> tensor<2x2x1x6xf32> {
      %0 = top.Rope %x, %cos, %sin {mode = #top<rope_mode interleaved>} : (tensor<2x2x1x6xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<2x2x1x6xf32>
      return %0 : tensor<2x2x1x6xf32>
    })mlir",
      {Tensor::fromF32(
           {2, 2, 1, 6},
           {0.680000007f,  0.0500000007f, 1.26999998f,   0.200000003f,
            1.91999996f,   -1.17999995f,  0.209999993f,  -0.0700000003f,
            -0.589999974f, 0.370000005f,  -1.05999994f,  1.21000004f,
            1.47000003f,   -1.48000002f,  -0.129999995f, -0.889999986f,
            -1.66999996f,  1.58000004f,   -0.280000001f, -1.40999997f,
            0.689999998f,  -1.19000006f,  1.61000001f,   -1.13f}),
       Tensor::fromF32({1, 2, 4}, {0.540302277f, 0.540302277f, 0.999949992f,
                                   0.999949992f, -0.416146845f, -0.416146845f,
                                   0.999800026f, 0.999800026f}),
       Tensor::fromF32({1, 2, 4}, {0.841470957f, 0.841470957f, 0.00999983307f,
                                   0.00999983307f, 0.909297407f, 0.909297407f,
                                   0.0199986659f, 0.0199986659f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {2, 2, 1, 6},
             {0.325332003f,  0.599215371f, 1.2679365f,     0.212689789f,
              1.91999996f,   -1.17999995f, -0.0237400159f, 0.220082729f,
              -0.597281496f, 0.358126802f, -1.05999994f,   1.21000004f,
              2.03962139f,   0.437314951f, -0.121093643f,  -0.891255457f,
              -1.66999996f,  1.58000004f,  1.39863043f,    0.332163762f,
              0.713660429f,  -1.17596301f, 1.61000001f,    -1.13f});
}

TEST(Rope, HalfModePartialRotaryWithPerBatchTables) {
  auto results = runOk(
      R"mlir(
    func.func @main(%x: tensor<2x1x2x4xf32>, %cos: tensor<2x1x2xf32>, %sin: tensor<2x1x2xf32>) -> tensor<2x1x2x4xf32> {
      %0 = top.Rope %x, %cos, %sin : (tensor<2x1x2x4xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>) -> tensor<2x1x2x4xf32>
      return %0 : tensor<2x1x2x4xf32>
    })mlir",
      {Tensor::fromF32({2, 1, 2, 4},
                       {-1.87f, -1.20000005f, -0.620000005f, -0.119999997f,
                        1.62f, 0.790000021f, -0.639999986f, -1.92999995f,
                        -1.36000001f, 1.99000001f, -0.159999996f, 0.75999999f,
                        -1.77999997f, -1.86000001f, 1.38f, 0.349999994f}),
       Tensor::fromF32({2, 1, 2},
                       {0.2836622f, 0.2836622f, -0.91113025f, -0.91113025f}),
       Tensor::fromF32({2, 1, 2}, {-0.958924294f, -0.958924294f, 0.412118495f,
                                   0.412118495f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {2, 1, 2, 4},
             {-1.68115751f, 1.45279378f, -0.620000005f, -0.119999997f,
              1.21708298f, -1.32936422f, -0.639999986f, -1.92999995f,
              0.419021344f, -2.37363036f, -0.159999996f, 0.75999999f,
              2.38835222f, 0.961131369f, 1.38f, 0.349999994f});
}

TEST(FAttention, GroupedQueryCausalAfterHistory) {
  // 4 query heads over 2 KV heads; 3 queries follow 2 cached keys, so query
  // i sees keys 0..2+i.
  auto results =
      runOk(R"mlir(
    func.func @main(%q: tensor<1x3x4x2xf32>, %k: tensor<1x5x2x2xf32>, %v: tensor<1x5x2x2xf32>) -> tensor<1x3x8xf32> {
      %none = top.None : none
      %0 = top.FAttention %q, %k, %v, %none {scale = 0.7 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 2 : i64, causal = true} : (tensor<1x3x4x2xf32>, tensor<1x5x2x2xf32>, tensor<1x5x2x2xf32>, none) -> tensor<1x3x8xf32>
      return %0 : tensor<1x3x8xf32>
    })mlir",
            {Tensor::fromF32(
                 {1, 3, 4, 2},
                 {-0.769999981f,  -0.730000019f, -1.63999999f,  -1.30999994f,
                  -1.89999998f,   1.36000001f,   -0.129999995f, -1.49000001f,
                  0.959999979f,   -1.22000003f,  -1.75f,        0.389999986f,
                  1.58000004f,    -1.88999999f,  1.22000003f,   -1.24000001f,
                  -1.63f,         -1.92999995f,  -0.829999983f, 0.910000026f,
                  -0.0299999993f, 1.40999997f,   -1.13f,        -0.74000001f}),
             Tensor::fromF32(
                 {1, 5, 2, 2},
                 {-0.970000029f, 1.90999997f,   1.75999999f,  -0.639999986f,
                  -0.25999999f,  -0.74000001f,  0.99000001f,  -1.84000003f,
                  -1.73000002f,  -0.379999995f, -1.01999998f, 1.38f,
                  0.970000029f,  0.180000007f,  0.649999976f, 0.769999981f,
                  1.12f,         1.71000004f,   -1.39999998f, 0.5f}),
             Tensor::fromF32({1, 5, 2, 2},
                             {-1.42999995f,  -0.230000004f,   1.14999998f,
                              1.58000004f,   1.03999996f,     -1.86000001f,
                              -0.560000002f, -1.35000002f,    2.0f,
                              -1.41999996f,  -1.01999998f,    -0.569999993f,
                              -1.75999999f,  1.48000002f,     0.550000012f,
                              -1.36000001f,  -0.00999999978f, -1.69000006f,
                              0.439999998f,  -1.07000005f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {1, 3, 8},
             {1.29776642f,     -1.41675036f,  1.67705524f,    -1.45998184f,
              -1.0107208f,     -0.564756995f, -0.226153971f,  -0.72790883f,
              -0.14205787f,    -0.303313562f, 0.532650182f,   -0.935639494f,
              0.000853949613f, -0.415063474f, 0.143964967f,   -0.21792424f,
              1.67125356f,     -1.45652262f,  -0.416349782f,  -0.676531526f,
              -0.197021869f,   -0.751203f,    -0.0252312867f, -0.880365504f});
}

TEST(FAttention, SoftcapBoundsScoresBeforeSoftmax) {
  // Two queries after one cached key; scores 0.9 q.k pass through
  // 1.5 * tanh(s / 1.5). Expected values from float64 numpy; without the
  // cap they would be (0.532, -0.973) and (0.544, -0.962).
  auto results =
      runOk(R"mlir(
    func.func @main(%q: tensor<1x2x1x2xf32>, %k: tensor<1x3x1x2xf32>, %v: tensor<1x3x1x2xf32>) -> tensor<1x2x2xf32> {
      %none = top.None : none
      %0 = top.FAttention %q, %k, %v, %none {scale = 0.9 : f64, q_head = 1 : i64, kv_head = 1 : i64, head_dim = 2 : i64, causal = true, softcap = 1.5 : f64} : (tensor<1x2x1x2xf32>, tensor<1x3x1x2xf32>, tensor<1x3x1x2xf32>, none) -> tensor<1x2x2xf32>
      return %0 : tensor<1x2x2xf32>
    })mlir",
            {Tensor::fromF32({1, 2, 1, 2}, {1.5f, -2.0f, 0.75f, 2.5f}),
             Tensor::fromF32({1, 3, 1, 2}, {2.0f, 1.0f, -1.5f, 0.5f, 1.0f, -2.5f}),
             Tensor::fromF32({1, 3, 1, 2},
                             {0.5f, -1.0f, 2.0f, 0.25f, -1.0f, 1.5f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {1, 2, 2},
             {0.643535648f, -0.88038696f, 0.734807024f, -0.657348362f});
}

TEST(FAttention, MultiQueryWithMaskSharedAcrossBatch) {
  auto results =
      runOk(R"mlir(
    func.func @main(%q: tensor<2x3x2x2xf32>, %k: tensor<2x5x1x2xf32>, %v: tensor<2x5x1x2xf32>, %mask: tensor<1x3x5xf32>) -> tensor<2x3x4xf32> {
      %0 = top.FAttention %q, %k, %v, %mask {scale = 0.5 : f64, q_head = 2 : i64, kv_head = 1 : i64, head_dim = 2 : i64} : (tensor<2x3x2x2xf32>, tensor<2x5x1x2xf32>, tensor<2x5x1x2xf32>, tensor<1x3x5xf32>) -> tensor<2x3x4xf32>
      return %0 : tensor<2x3x4xf32>
    })mlir",
            {Tensor::fromF32(
                 {2, 3, 2, 2},
                 {-1.85000002f,  -1.53999996f,  0.219999999f,  0.550000012f,
                  -0.699999988f, 0.569999993f,  -0.589999974f, -1.48000002f,
                  -0.74000001f,  -0.419999987f, 1.64999998f,   -1.53999996f,
                  -1.65999997f,  0.25f,         1.85000002f,   1.63f,
                  0.800000012f,  -1.73000002f,  1.23000002f,   0.730000019f,
                  -1.41999996f,  -0.140000001f, -1.79999995f,  1.21000004f}),
             Tensor::fromF32(
                 {2, 5, 1, 2},
                 {0.870000005f,    1.22000003f,   1.03999996f,   -0.930000007f,
                  1.15999997f,     -1.0f,         -1.45000005f,  -0.439999998f,
                  -0.00999999978f, -0.860000014f, 0.419999987f,  0.409999996f,
                  -1.03999996f,    0.49000001f,   -0.569999993f, 0.939999998f,
                  -0.839999974f,   1.20000005f,   -0.340000004f, 0.209999993f}),
             Tensor::fromF32(
                 {2, 5, 1, 2},
                 {0.689999998f,  0.0700000003f, -0.970000029f, 1.91999996f,
                  -1.62f,        -0.699999988f, 0.200000003f,  -1.88999999f,
                  -1.38f,        1.20000005f,   1.13999999f,   0.550000012f,
                  1.61000001f,   1.01999998f,   -0.800000012f, 0.579999983f,
                  -0.639999986f, 1.0f,          -0.460000008f, -1.38999999f}),
             Tensor::fromF32({1, 3, 5},
                             {0.0f, 0.0f, 0.0f, -kInf, -kInf, 0.0f, 0.0f, 0.0f,
                              0.0f, -kInf, -0.5f, 0.0f, 0.0f, 0.0f, 0.0f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {2, 3, 4},
             {-1.08202844f,   0.587861909f,  -0.360259911f, 0.357952305f,
              -0.0889790852f, -0.571056854f, -0.591878129f, -0.412392938f,
              -0.624532542f,  -0.208325207f, -1.20645046f,  0.517183836f,
              0.682806286f,   0.794415173f,  0.576926726f,  0.628436105f,
              0.640704314f,   0.725308463f,  0.331769706f,  0.733200568f,
              0.145284279f,   0.448328172f,  0.0188798153f, 0.603657961f});
}

TEST(FAttention, PerBatchMaskWithCausalAndFullyMaskedQuery) {
  // In batch 1 the mask hides key 0 from query 0, which causality already
  // limits to key 0: that query sees nothing and yields zeros.
  auto results = runOk(
      R"mlir(
    func.func @main(%q: tensor<2x2x1x2xf32>, %k: tensor<2x2x1x2xf32>, %v: tensor<2x2x1x2xf32>, %mask: tensor<2x2x2xf32>) -> tensor<2x2x2xf32> {
      %0 = top.FAttention %q, %k, %v, %mask {scale = 1.0 : f64, q_head = 1 : i64, kv_head = 1 : i64, head_dim = 2 : i64, causal = true} : (tensor<2x2x1x2xf32>, tensor<2x2x1x2xf32>, tensor<2x2x1x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
      return %0 : tensor<2x2x2xf32>
    })mlir",
      {Tensor::fromF32({2, 2, 1, 2},
                       {1.50999999f, 0.75999999f, 0.980000019f, 0.239999995f,
                        1.13f, -0.209999993f, 0.25999999f, -1.75f}),
       Tensor::fromF32({2, 2, 1, 2},
                       {0.219999999f, 1.25999999f, 0.819999993f, 1.21000004f,
                        -0.0199999996f, 1.52999997f, -1.57000005f, 1.5f}),
       Tensor::fromF32({2, 2, 1, 2}, {-0.50999999f, -1.63999999f, 0.479999989f,
                                      -0.180000007f, -0.289999992f, 1.40999997f,
                                      -1.45000005f, 0.469999999f}),
       Tensor::fromF32({2, 2, 2},
                       {0.0f, 0.0f, 1.5f, 0.0f, -kInf, 0.0f, 0.0f, 0.0f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {2, 2, 2},
             {-0.50999999f, -1.63999999f, -0.22869786f, -1.22515038f, 0.0f,
              0.0f, -0.769382967f, 1.02153448f});
}

/// A decode-shaped attention (Qwen2.5-0.5B heads) must give the same bits on
/// one and on two threads.
TEST(FAttention, ThreadCountDoesNotChangeResults) {
  const char *source = R"mlir(
    func.func @main(%q: tensor<1x3x14x64xf32>, %k: tensor<1x37x2x64xf32>, %v: tensor<1x37x2x64xf32>) -> tensor<1x3x896xf32> {
      %none = top.None : none
      %0 = top.FAttention %q, %k, %v, %none {scale = 0.125 : f64, q_head = 14 : i64, kv_head = 2 : i64, head_dim = 64 : i64, causal = true} : (tensor<1x3x14x64xf32>, tensor<1x37x2x64xf32>, tensor<1x37x2x64xf32>, none) -> tensor<1x3x896xf32>
      return %0 : tensor<1x3x896xf32>
    })mlir";
  std::vector<Tensor> inputs = {
      Tensor::fromF32({1, 3, 14, 64}, patternValues(3 * 14 * 64, 1)),
      Tensor::fromF32({1, 37, 2, 64}, patternValues(37 * 2 * 64, 2)),
      Tensor::fromF32({1, 37, 2, 64}, patternValues(37 * 2 * 64, 3))};
  MemoryWeightSource weights;
  auto one = runOk(source, inputs, weights, {/*threads=*/1});
  auto two = runOk(source, inputs, weights, {/*threads=*/2});
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  expectBitIdentical(one[0], two[0]);
}

} // namespace
