//===- DataTest.cpp - gather, data movement and selection kernels ---------===//
//
// Expected values come from NumPy (take, broadcast_to, transpose,
// concatenate, slicing, argmax/argmin, stable argsort for top-k).
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/test/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llmc::top;
using namespace llmc::top::testing;

namespace {

/// arange(24) as [2, 3, 4].
Tensor arange234() {
  std::vector<float> values(24);
  for (int i = 0; i < 24; ++i)
    values[i] = static_cast<float>(i);
  return Tensor::fromF32({2, 3, 4}, values);
}

TEST(Gather, EmbeddingRowsAndOtherAxes) {
  MemoryWeightSource weights;
  weights.addF32("table", {4, 2},
                 {-2.0f, -0.5f, 1.0f, 2.5f, 4.0f, 5.5f, 7.0f, 8.5f});
  // The IR may carry i64 indices; the interpreter holds them as int32.
  auto results =
      runOk(R"mlir(
    func.func @main(%ids: tensor<2x2xi32>, %t: tensor<2x3x4xf32>, %pos: tensor<2xi64>, %last: tensor<2x1xi32>) -> (tensor<2x2x2xf32>, tensor<2x2x4xf32>, tensor<2x3x2x1xf32>) {
      %table = top.Weight "table" : () -> tensor<4x2xf32>
      %0 = top.Gather %table, %ids : (tensor<4x2xf32>, tensor<2x2xi32>) -> tensor<2x2x2xf32>
      %1 = top.Gather %t, %pos {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x2x4xf32>
      %2 = top.Gather %t, %last {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi32>) -> tensor<2x3x2x1xf32>
      return %0, %1, %2 : tensor<2x2x2xf32>, tensor<2x2x4xf32>, tensor<2x3x2x1xf32>
    })mlir",
            {Tensor::fromI32({2, 2}, {1, 3, 0, 3}), arange234(),
             Tensor::fromI32({2}, {2, 0}), Tensor::fromI32({2, 1}, {3, 1})},
            weights);
  ASSERT_EQ(results.size(), 3u);
  expectNear(results[0], {2, 2, 2},
             {1.0f, 2.5f, 7.0f, 8.5f, -2.0f, -0.5f, 7.0f, 8.5f});
  expectNear(results[1], {2, 2, 4},
             {8.0f, 9.0f, 10.0f, 11.0f, 0.0f, 1.0f, 2.0f, 3.0f, 20.0f, 21.0f,
              22.0f, 23.0f, 12.0f, 13.0f, 14.0f, 15.0f});
  expectNear(results[2], {2, 3, 2, 1},
             {3.0f, 1.0f, 7.0f, 5.0f, 11.0f, 9.0f, 15.0f, 13.0f, 19.0f, 17.0f,
              23.0f, 21.0f});
}

const char *kEmbedding = R"mlir(
  func.func @main(%ids: tensor<1x3xi32>) -> tensor<1x3x2xf32> {
    %table = top.Weight "table" : () -> tensor<4x2xf32>
    %0 = top.Gather %table, %ids : (tensor<4x2xf32>, tensor<1x3xi32>) -> tensor<1x3x2xf32> loc("model.embed_tokens")
    return %0 : tensor<1x3x2xf32>
  })mlir";

TEST(Gather, OutOfRangeIndexIsAnError) {
  MemoryWeightSource weights;
  weights.addF32("table", {4, 2}, std::vector<float>(8, 1.0f));
  std::string error =
      runError(kEmbedding, {Tensor::fromI32({1, 3}, {0, 4, 1})}, weights);
  EXPECT_NE(error.find("'top.Gather' at loc(\"model.embed_tokens\")"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("index 4 at position 1 is out of range"),
            std::string::npos)
      << error;
  error = runError(kEmbedding, {Tensor::fromI32({1, 3}, {0, 1, -1})}, weights);
  EXPECT_NE(error.find("index -1 at position 2 is out of range"),
            std::string::npos)
      << error;
}

TEST(Reshape, StaticAndInferredDimensions) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x?xf32>) {
      %0 = top.Reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
      %1 = top.Reshape %x : (tensor<2x3x4xf32>) -> tensor<4x?xf32>
      return %0, %1 : tensor<6x4xf32>, tensor<4x?xf32>
    })mlir",
                       {arange234()});
  ASSERT_EQ(results.size(), 2u);
  Tensor source = arange234();
  std::vector<float> ordered(source.getF32().begin(), source.getF32().end());
  expectNear(results[0], {6, 4}, ordered);
  expectNear(results[1], {4, 6}, ordered);
}

TEST(Expand, BroadcastsFloatsAndIntegers) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<3x1xf32>, %ids: tensor<1x3xi32>) -> (tensor<2x3x4xf32>, tensor<2x3xi32>, tensor<3x1xf32>) {
      %0 = top.Expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
      %1 = top.Expand %ids : (tensor<1x3xi32>) -> tensor<2x3xi32>
      %2 = top.Expand %x : (tensor<3x1xf32>) -> tensor<3x1xf32>
      return %0, %1, %2 : tensor<2x3x4xf32>, tensor<2x3xi32>, tensor<3x1xf32>
    })mlir",
                       {Tensor::fromF32({3, 1}, {-1.5f, 0.0f, 2.5f}),
                        Tensor::fromI32({1, 3}, {7, -8, 9})});
  ASSERT_EQ(results.size(), 3u);
  std::vector<float> expanded;
  for (int b = 0; b < 2; ++b)
    for (float value : {-1.5f, 0.0f, 2.5f})
      expanded.insert(expanded.end(), 4, value);
  expectNear(results[0], {2, 3, 4}, expanded);
  expectInts(results[1], {2, 3}, {7, -8, 9, 7, -8, 9});
  expectNear(results[2], {3, 1}, {-1.5f, 0.0f, 2.5f});
}

TEST(Expand, DynamicDimensionTakesTheInputs) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x1xf32>) -> tensor<3x?x2xf32> {
      %0 = top.Expand %x : (tensor<2x1xf32>) -> tensor<3x?x2xf32>
      return %0 : tensor<3x?x2xf32>
    })mlir",
                       {Tensor::fromF32({2, 1}, {1.0f, 2.0f})});
  ASSERT_EQ(results.size(), 1u);
  expectNear(
      results[0], {3, 2, 2},
      {1.0f, 1.0f, 2.0f, 2.0f, 1.0f, 1.0f, 2.0f, 2.0f, 1.0f, 1.0f, 2.0f, 2.0f});

  MemoryWeightSource weights;
  std::string error =
      runError(R"mlir(
    func.func @main(%x: tensor<1x2xf32>) -> tensor<?x2xf32> {
      %0 = top.Expand %x : (tensor<1x2xf32>) -> tensor<?x2xf32>
      return %0 : tensor<?x2xf32>
    })mlir",
               {Tensor::fromF32({1, 2}, {1.0f, 2.0f})}, weights);
  EXPECT_NE(error.find("dimension 0 of the expanded shape is dynamic"),
            std::string::npos)
      << error;
}

TEST(Permute, MovesTheLastDimensionFirst) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
      %0 = top.Permute %x {order = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
      return %0 : tensor<4x2x3xf32>
    })mlir",
                       {arange234()});
  ASSERT_EQ(results.size(), 1u);
  expectNear(results[0], {4, 2, 3},
             {0.0f,  4.0f,  8.0f,  12.0f, 16.0f, 20.0f, 1.0f,  5.0f,
              9.0f,  13.0f, 17.0f, 21.0f, 2.0f,  6.0f,  10.0f, 14.0f,
              18.0f, 22.0f, 3.0f,  7.0f,  11.0f, 15.0f, 19.0f, 23.0f});
}

TEST(Concat, FloatsAndIntegers) {
  auto results =
      runOk(R"mlir(
    func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x3xf32>, %c: tensor<1x2xi32>, %d: tensor<1x1xi32>) -> (tensor<2x5xf32>, tensor<1x3xi32>) {
      %0 = top.Concat %a, %b {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
      %1 = top.Concat %c, %d {axis = -1 : i64} : (tensor<1x2xi32>, tensor<1x1xi32>) -> tensor<1x3xi32>
      return %0, %1 : tensor<2x5xf32>, tensor<1x3xi32>
    })mlir",
            {Tensor::fromF32({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f}),
             Tensor::fromF32({2, 3}, {5.0f, 6.0f, 7.0f, 8.0f, 9.0f, 10.0f}),
             Tensor::fromI32({1, 2}, {7, 8}), Tensor::fromI32({1, 1}, {9})});
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 5},
             {1.0f, 2.0f, 5.0f, 6.0f, 7.0f, 3.0f, 4.0f, 8.0f, 9.0f, 10.0f});
  expectInts(results[1], {1, 3}, {7, 8, 9});
}

TEST(Slice, NegativeStartsClampedEndsAndSteps) {
  std::vector<float> values(20);
  for (int i = 0; i < 20; ++i)
    values[i] = static_cast<float>(i);
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<4x5xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
      %0 = top.Slice %x {starts = array<i64: -3, 0>, ends = array<i64: 100, 5>, steps = array<i64: 2, 2>} : (tensor<4x5xf32>) -> tensor<2x3xf32>
      %1 = top.Slice %x {starts = array<i64: 1, -2>, ends = array<i64: -1, 5>, steps = array<i64: 1, 1>} : (tensor<4x5xf32>) -> tensor<2x2xf32>
      return %0, %1 : tensor<2x3xf32>, tensor<2x2xf32>
    })mlir",
                       {Tensor::fromF32({4, 5}, values)});
  ASSERT_EQ(results.size(), 2u);
  expectNear(results[0], {2, 3}, {5.0f, 7.0f, 9.0f, 15.0f, 17.0f, 19.0f});
  expectNear(results[1], {2, 2}, {8.0f, 9.0f, 13.0f, 14.0f});
}

const std::vector<float> kArgInput = {3, 1, 3, -2, 0, -5, 7, -5, 2, 2, 2, 2};

TEST(Arg, MaxAndMinTakeTheFirstOnTies) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<3x4xf32>) -> (tensor<3x1xi32>, tensor<3xi32>, tensor<4xi64>, tensor<1x4xi32>) {
      %0 = top.Arg %x {axis = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x1xi32>
      %1 = top.Arg %x {axis = -1 : i64, keepdims = false, mode = #top<arg_mode argmin>} : (tensor<3x4xf32>) -> tensor<3xi32>
      %2 = top.Arg %x {axis = 0 : i64, keepdims = false} : (tensor<3x4xf32>) -> tensor<4xi64>
      %3 = top.Arg %x {axis = 0 : i64, mode = #top<arg_mode argmin>} : (tensor<3x4xf32>) -> tensor<1x4xi32>
      return %0, %1, %2, %3 : tensor<3x1xi32>, tensor<3xi32>, tensor<4xi64>, tensor<1x4xi32>
    })mlir",
                       {Tensor::fromF32({3, 4}, kArgInput)});
  ASSERT_EQ(results.size(), 4u);
  expectInts(results[0], {3, 1}, {0, 2, 0});
  expectInts(results[1], {3}, {3, 1, 0});
  expectInts(results[2], {4}, {0, 2, 1, 2});
  expectInts(results[3], {1, 4}, {1, 1, 2, 1});
}

TEST(Arg, NaNWinsAsInNumPy) {
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<4xf32>) -> (tensor<1xi32>, tensor<1xi32>) {
      %0 = top.Arg %x {axis = 0 : i64} : (tensor<4xf32>) -> tensor<1xi32>
      %1 = top.Arg %x {axis = 0 : i64, mode = #top<arg_mode argmin>} : (tensor<4xf32>) -> tensor<1xi32>
      return %0, %1 : tensor<1xi32>, tensor<1xi32>
    })mlir",
                       {Tensor::fromF32({4}, {1.0f, NAN, 5.0f, NAN})});
  ASSERT_EQ(results.size(), 2u);
  expectInts(results[0], {1}, {1});
  expectInts(results[1], {1}, {1});
}

const std::vector<float> kTopKInput = {1, 5, 3, 5, 0, 3, 4, -1, 4, 4, 9, -2};

TEST(TopK, LargestAndSmallestKeepLowerIndicesFirstOnTies) {
  std::vector<float> transposed(12);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 6; ++c)
      transposed[c * 2 + r] = kTopKInput[r * 6 + c];
  auto results = runOk(R"mlir(
    func.func @main(%x: tensor<2x6xf32>, %xt: tensor<6x2xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x2xf32>, tensor<2x2xi32>) {
      %v0, %i0 = top.TopK %x {k = 3 : i64} : (tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
      %v1, %i1 = top.TopK %x {k = 4 : i64, largest = false} : (tensor<2x6xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
      %v2, %i2 = top.TopK %xt {k = 2 : i64, axis = 0 : i64} : (tensor<6x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
      return %v0, %i0, %v1, %i1, %v2, %i2 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x2xf32>, tensor<2x2xi32>
    })mlir",
                       {Tensor::fromF32({2, 6}, kTopKInput),
                        Tensor::fromF32({6, 2}, transposed)});
  ASSERT_EQ(results.size(), 6u);
  expectNear(results[0], {2, 3}, {5.0f, 5.0f, 3.0f, 9.0f, 4.0f, 4.0f});
  expectInts(results[1], {2, 3}, {1, 3, 2, 4, 0, 2});
  expectNear(results[2], {2, 4},
             {0.0f, 1.0f, 3.0f, 3.0f, -2.0f, -1.0f, 4.0f, 4.0f});
  expectInts(results[3], {2, 4}, {4, 0, 2, 5, 5, 1, 0, 2});
  expectNear(results[4], {2, 2}, {5.0f, 9.0f, 5.0f, 4.0f});
  expectInts(results[5], {2, 2}, {1, 4, 3, 0});
}

} // namespace
