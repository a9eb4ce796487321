//===- InterpreterTest.cpp - inputs, weights, errors and determinism ------===//

#include "dialects/top/Interpreter/test/TestSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llmc;
using namespace llmc::top;
using namespace llmc::top::testing;

namespace {

const char *kScale = R"mlir(
  func.func @main(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
    %0 = top.Input %x {role = "hidden"} : (tensor<3x2xf32>) -> tensor<3x2xf32>
    %1 = top.MulConst %0 {const_val = 2.0 : f64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
    return %1 : tensor<3x2xf32>
  })mlir";

Tensor threeByTwo() {
  return Tensor::fromF32({3, 2}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
}

TEST(Interpreter, RunsInputAndComputeOps) {
  auto results = runOk(kScale, {threeByTwo()});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {3, 2}, {2.0f, 4.0f, 6.0f, 8.0f, 10.0f, 12.0f});
}

TEST(Interpreter, RejectsWrongInputs) {
  MemoryWeightSource weights;
  std::string error = runError(kScale, {threeByTwo(), threeByTwo()}, weights);
  EXPECT_NE(error.find("@main takes 1 inputs, 2 were given"), std::string::npos)
      << error;
  error = runError(kScale, {Tensor::fromF32({2, 3}, std::vector<float>(6))},
                   weights);
  EXPECT_NE(error.find("input #0 of @main is f32[2, 3], the argument is "
                       "tensor<3x2xf32>"),
            std::string::npos)
      << error;
  error = runError(kScale, {Tensor::fromI32({3, 2}, std::vector<int32_t>(6))},
                   weights);
  EXPECT_NE(error.find("is i32[3, 2]"), std::string::npos) << error;
}

TEST(Interpreter, DynamicArgumentTakesAnySize) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
      %0 = top.Add %x, %x : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
      return %0 : tensor<?x2xf32>
    })mlir",
                       {threeByTwo()});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {3, 2}, {2.0f, 4.0f, 6.0f, 8.0f, 10.0f, 12.0f});
}

const char *kWeighted = R"mlir(
  func.func @main(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
    %w = top.Weight "layer0.scale" : () -> tensor<3x2xf32> loc("layer0")
    %0 = top.Mul %x, %w : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  })mlir";

TEST(Interpreter, UnknownWeightNamesOpAndLocation) {
  MemoryWeightSource weights;
  std::string error = runError(kWeighted, {threeByTwo()}, weights);
  EXPECT_NE(error.find("'top.Weight' at loc(\"layer0\")"), std::string::npos)
      << error;
  EXPECT_NE(error.find("no tensor 'layer0.scale'"), std::string::npos) << error;
}

TEST(Interpreter, WeightIsReadRowMajorInTheOpsShape) {
  MemoryWeightSource weights;
  weights.addF32("layer0.scale", {6}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> results = runOk(kWeighted, {threeByTwo()}, weights);
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {3, 2}, {1, 4, 9, 16, 25, 36});
}

TEST(Interpreter, WeightMustHoldTheOpsElementCount) {
  MemoryWeightSource weights;
  weights.addF32("layer0.scale", {2, 2}, std::vector<float>(4, 1.0f));
  std::string error = runError(kWeighted, {threeByTwo()}, weights);
  EXPECT_NE(error.find("weight 'layer0.scale' is stored as [2, 2] (f32) but "
                       "the op reads it as [3, 2]"),
            std::string::npos)
      << error;
}

/// Runs kWeighted three times on one interpreter; returns the source reads.
int readsOverThreeRuns(InterpreterOptions options,
                       uint64_t *cachedBytes = nullptr) {
  MemoryWeightSource weights;
  weights.addF32("layer0.scale", {3, 2}, {1, -1, 2, -2, 3, -3});
  TestModule module(kWeighted);
  Interpreter interpreter(weights, options);
  for (int run = 0; run < 3; ++run) {
    llvm::Expected<std::vector<Tensor>> results =
        interpreter.run(module.lookup(), threeByTwo());
    if (!results) {
      ADD_FAILURE() << toString(results.takeError());
      return -1;
    }
    expectNear(results->front(), {3, 2}, {1, -2, 6, -8, 15, -18});
  }
  if (cachedBytes)
    *cachedBytes = interpreter.getCachedWeightBytes();
  return weights.getDataReads();
}

TEST(Interpreter, CachesWeightsAcrossRunsWithinItsBound) {
  uint64_t cached = 0;
  EXPECT_EQ(readsOverThreeRuns({}, &cached), 1);
  EXPECT_EQ(cached, 24u);

  InterpreterOptions uncached;
  uncached.cacheWeights = false;
  EXPECT_EQ(readsOverThreeRuns(uncached, &cached), 3);
  EXPECT_EQ(cached, 0u);

  InterpreterOptions tooSmall;
  tooSmall.weightCacheBytes = 20;
  EXPECT_EQ(readsOverThreeRuns(tooSmall, &cached), 3);
  EXPECT_EQ(cached, 0u);
}

TEST(Interpreter, ConvertsStoredTypes) {
  MemoryWeightSource weights;
  // bf16 1.5, -3.0 and 3.140625, little endian.
  weights.addRaw("scale", plugins::WeightType::BF16, {3},
                 {0xc0, 0x3f, 0x40, 0xc0, 0x49, 0x40});
  // i64 positions 2 and 0 pick rows of a table.
  weights.addRaw("positions", plugins::WeightType::I64, {2},
                 {2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  auto results = runOk(R"mlir(
    func.func @main(%table: tensor<3x2xf32>) -> (tensor<3xbf16>, tensor<2x2xf32>) {
      %s = top.Weight "scale" : () -> tensor<3xbf16>
      %0 = top.MulConst %s {const_val = 2.0 : f64} : (tensor<3xbf16>) -> tensor<3xbf16>
      %p = top.Weight "positions" : () -> tensor<2xi64>
      %1 = top.Gather %table, %p : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
      return %0, %1 : tensor<3xbf16>, tensor<2x2xf32>
    })mlir",
                       {threeByTwo()}, weights);
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {3}, {3.0f, -6.0f, 6.28125f});
  expectNear(results[1], {2, 2}, {5.0f, 6.0f, 1.0f, 2.0f});
}

TEST(Interpreter, IntegerWeightOutOfInt32RangeIsAnError) {
  MemoryWeightSource weights;
  weights.addRaw("positions", plugins::WeightType::I64, {1},
                 {0, 0, 0, 0, 1, 0, 0, 0});
  std::string error = runError(R"mlir(
    func.func @main(%table: tensor<3x2xf32>) -> tensor<1x2xf32> {
      %p = top.Weight "positions" : () -> tensor<1xi64>
      %0 = top.Gather %table, %p : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
      return %0 : tensor<1x2xf32>
    })mlir",
                               {threeByTwo()}, weights);
  EXPECT_NE(error.find("holds 4294967296 at element 0, which does not fit in "
                       "int32"),
            std::string::npos)
      << error;
}

TEST(Interpreter, RejectsOpsAndTypesItCannotRun) {
  MemoryWeightSource weights;
  std::string error = runError(R"mlir(
    func.func private @helper(tensor<3x2xf32>) -> tensor<3x2xf32>
    func.func @main(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
      %0 = func.call @helper(%x) : (tensor<3x2xf32>) -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    })mlir",
                               {threeByTwo()}, weights);
  EXPECT_NE(error.find("'func.call' at loc("), std::string::npos) << error;
  EXPECT_NE(error.find("runs only top ops"), std::string::npos) << error;

  error = runError(R"mlir(
    func.func @main(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
      return %x : tensor<2xcomplex<f32>>
    })mlir",
                   {Tensor::fromF32({2}, {1.0f, 2.0f})}, weights);
  EXPECT_NE(error.find("argument #0 of @main has the unsupported type "
                       "tensor<2xcomplex<f32>>"),
            std::string::npos)
      << error;

  error = runError(R"mlir(
    func.func @main() -> none {
      %0 = top.None : none
      return %0 : none
    })mlir",
                   {}, weights);
  EXPECT_NE(error.find("result #0 is none"), std::string::npos) << error;
}

/// c = a b^T in double, for checking the float kernels independently.
std::vector<double> referenceProduct(const std::vector<float> &a,
                                     const std::vector<float> &b, int m, int n,
                                     int k) {
  std::vector<double> c(m * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p)
        c[i * n + j] += double(a[i * k + p]) * double(b[j * k + p]);
  return c;
}

TEST(Interpreter, MatMulBitsDoNotDependOnThreadCount) {
  // 64x96 times a [80, 96] Linear weight: packed tiles, edge tiles and K
  // accumulation all run; two and three threads split the tiles
  // differently than one does.
  const char *source = R"mlir(
    func.func @main(%x: tensor<64x96xf32>) -> tensor<64x80xf32> {
      %none = top.None : none
      %w = top.Weight "w" : () -> tensor<80x96xf32>
      %0 = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<64x96xf32>, tensor<80x96xf32>, none) -> tensor<64x80xf32>
      return %0 : tensor<64x80xf32>
    })mlir";
  std::vector<float> x = patternValues(64 * 96, 5),
                     w = patternValues(80 * 96, 6);
  MemoryWeightSource weights;
  weights.addF32("w", {80, 96}, w);
  Tensor input = Tensor::fromF32({64, 96}, x);
  auto one = runOk(source, input, weights, {/*threads=*/1});
  auto two = runOk(source, input, weights, {/*threads=*/2});
  auto three = runOk(source, input, weights, {/*threads=*/3});
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  ASSERT_EQ(three.size(), 1u);
  expectBitIdentical(one[0], two[0]);
  expectBitIdentical(one[0], three[0]);

  std::vector<double> expected = referenceProduct(x, w, 64, 80, 96);
  for (auto [index, got] : llvm::enumerate(one[0].getF32()))
    ASSERT_NEAR(got, expected[index], 1e-5) << "element " << index;
}

} // namespace
