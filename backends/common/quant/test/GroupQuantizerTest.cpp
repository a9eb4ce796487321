//===- GroupQuantizerTest.cpp - group-wise quantization, exact and bounded ===//
//
// The exact values come from a numpy model of the formulas in
// GroupQuantizer.h (float32 arithmetic, round half away from zero, scales
// rounded to their storage type with astype).
//
//===----------------------------------------------------------------------===//

#include "backends/common/quant/GroupQuantizer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace llmc::quant;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

namespace {

/// A hand-made [2, 8] weight: a wide row with an exact maximum, and a row of
/// small values whose quotients land near .5.
const std::vector<float> kWeight = {0.5f,  -1.25f, 0.1f,   0.0f,
                                    2.0f,  -0.3f,  0.75f,  -2.1f,
                                    0.02f, 0.04f,  -0.01f, 0.03f,
                                    0.2f,  0.1f,   0.3f,   0.25f};

QuantizedTensor quantizeOrDie(llvm::ArrayRef<float> weight, int64_t rows,
                              int64_t cols, QuantScheme scheme) {
  llvm::Expected<QuantizedTensor> result =
      quantize(weight, rows, cols, scheme);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

std::vector<int64_t> valuesOf(const QuantizedTensor &q) {
  std::vector<int64_t> values;
  for (int64_t row = 0; row < q.rows; ++row)
    for (int64_t col = 0; col < q.cols; ++col)
      values.push_back(q.getValue(row, col));
  return values;
}

std::string errorOf(llvm::Expected<QuantizedTensor> result) {
  EXPECT_FALSE(static_cast<bool>(result)) << "expected an error";
  return result ? "" : llvm::toString(result.takeError());
}

//===----------------------------------------------------------------------===//
// Exact values
//===----------------------------------------------------------------------===//

TEST(GroupQuantizerTest, SymmetricInt4GroupOfFour) {
  QuantizedTensor q = quantizeOrDie(kWeight, 2, 8, {4, 4, false});
  EXPECT_EQ(q.groupSize, 4);
  EXPECT_EQ(q.groups, 2);
  EXPECT_THAT(valuesOf(q), ElementsAre(3, -7, 1, 0, 7, -1, 3, -7, //
                                       4, 7, -2, 5, 5, 2, 7, 6));
  EXPECT_THAT(q.scales, ElementsAre(1.25f / 7, 2.1f / 7, 0.04f / 7, 0.3f / 7));
  EXPECT_TRUE(q.zeroPoints.empty());
  std::vector<float> w = dequantize(q);
  EXPECT_EQ(w[1], -1.25f) << "the group maximum is exact";
  EXPECT_EQ(w[0], 3 * (1.25f / 7));
  EXPECT_EQ(w[12], 5 * (0.3f / 7));
}

TEST(GroupQuantizerTest, AsymmetricInt4PerChannel) {
  QuantizedTensor q = quantizeOrDie(kWeight, 2, 8, {4, 0, true});
  EXPECT_EQ(q.groupSize, 8);
  EXPECT_EQ(q.groups, 1);
  EXPECT_THAT(valuesOf(q), ElementsAre(10, 3, 8, 8, 15, 7, 11, 0, //
                                       1, 2, 0, 1, 10, 5, 15, 12));
  EXPECT_THAT(q.scales, ElementsAre(4.1f / 15, 0.31f / 15));
  // The second row is all but nonnegative: its range still reaches 0.
  EXPECT_THAT(q.zeroPoints, ElementsAre(8, 0));
  std::vector<float> w = dequantize(q);
  EXPECT_EQ(w[3], 0.0f) << "0 stays exact";
  EXPECT_EQ(w[7], -8 * (4.1f / 15));
  EXPECT_EQ(w[14], 15 * (0.31f / 15));
}

TEST(GroupQuantizerTest, SymmetricInt8PerChannel) {
  QuantizedTensor q = quantizeOrDie(kWeight, 2, 8, {8, 0, false});
  EXPECT_THAT(valuesOf(q), ElementsAre(30, -76, 6, 0, 121, -18, 45, -127, //
                                       8, 17, -4, 13, 85, 42, 127, 106));
  EXPECT_THAT(q.scales, ElementsAre(2.1f / 127, 0.3f / 127));
}

TEST(GroupQuantizerTest, HalfScalesAreRoundedBeforeQuantizing) {
  // 2.1 / 7 rounds up to 0.300048828125 in f16, so 0.75 / scale drops below
  // 2.5; with the f32 scale it is 2.5 and rounds away to 3.
  QuantizedTensor q =
      quantizeOrDie(kWeight, 2, 8, {4, 4, false, FloatType::F16});
  EXPECT_THAT(valuesOf(q), ElementsAre(3, -7, 1, 0, 7, -1, 2, -7, //
                                       3, 7, -2, 5, 5, 2, 7, 6));
  EXPECT_THAT(q.scales, ElementsAre(0.1785888671875f, 0.300048828125f,
                                    0.00571441650390625f, 0.0428466796875f));
  EXPECT_EQ(dequantize(q)[6], 2 * 0.300048828125f);
}

TEST(GroupQuantizerTest, AsymmetricInt8HalfScales) {
  QuantizedTensor q =
      quantizeOrDie(kWeight, 2, 8, {8, 4, true, FloatType::F16});
  EXPECT_THAT(valuesOf(q),
              ElementsAre(255, 0, 197, 182, 255, 112, 178, 0, //
                          153, 255, 0, 204, 170, 85, 255, 212));
  EXPECT_THAT(q.zeroPoints, ElementsAre(182, 131, 51, 0));
  EXPECT_THAT(q.scales,
              ElementsAre(0.006862640380859375f, 0.016082763671875f,
                          0.00019609928131103516f, 0.0011768341064453125f));
}

TEST(GroupQuantizerTest, AllZeroGroupsDequantizeToZero) {
  std::vector<float> zeros(16, 0.0f);
  for (bool asymmetric : {false, true}) {
    QuantizedTensor q = quantizeOrDie(zeros, 2, 8, {4, 4, asymmetric});
    EXPECT_THAT(q.scales, ElementsAre(1.0f, 1.0f, 1.0f, 1.0f));
    EXPECT_THAT(dequantize(q), ElementsAreArray(zeros));
  }
}

//===----------------------------------------------------------------------===//
// Error bounds on random weights
//===----------------------------------------------------------------------===//

std::vector<float> randomWeight(int64_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> values(count);
  for (float &value : values)
    value = normal(engine);
  return values;
}

TEST(GroupQuantizerTest, RoundTripErrorIsHalfAStep) {
  const int64_t rows = 16, cols = 256;
  std::vector<float> weight = randomWeight(rows * cols, 7);
  for (int64_t bits : {4, 8})
    for (bool asymmetric : {false, true})
      for (int64_t group : {32, 64, 0})
        for (FloatType scaleType : {FloatType::F32, FloatType::BF16}) {
          QuantScheme scheme{bits, group, asymmetric, scaleType};
          QuantizedTensor q = quantizeOrDie(weight, rows, cols, scheme);
          std::vector<float> back = dequantize(q);
          double error2 = 0, norm2 = 0;
          for (int64_t i = 0; i < rows * cols; ++i) {
            float scale = q.scales[(i / cols) * q.groups +
                                   (i % cols) / q.groupSize];
            // Half a step, plus what a scale rounded down to bf16 (8
            // significant bits) may clip at the group's extreme.
            float bound = scale * (0.5f + 0.01f * (1 << bits));
            ASSERT_LE(std::fabs(back[i] - weight[i]), bound)
                << "element " << i << " of " << bits << "-bit group " << group
                << (asymmetric ? " asym" : " sym");
            error2 += (back[i] - weight[i]) * (back[i] - weight[i]);
            norm2 += weight[i] * weight[i];
          }
          // Uniform rounding error: RMS about step / sqrt(12).
          double relative = std::sqrt(error2 / norm2);
          EXPECT_LT(relative, bits == 8 ? 0.02 : 0.3)
              << bits << "-bit group " << group;
        }
}

TEST(GroupQuantizerTest, SmallerGroupsAndAsymmetryReduceError) {
  const int64_t rows = 32, cols = 256;
  std::vector<float> weight = randomWeight(rows * cols, 11);
  auto errorOf = [&](QuantScheme scheme) {
    std::vector<float> back =
        dequantize(quantizeOrDie(weight, rows, cols, scheme));
    double error2 = 0;
    for (size_t i = 0; i < back.size(); ++i)
      error2 += (back[i] - weight[i]) * (back[i] - weight[i]);
    return error2;
  };
  EXPECT_LT(errorOf({4, 32, false}), errorOf({4, 64, false}));
  EXPECT_LT(errorOf({4, 64, false}), errorOf({4, 0, false}));
  EXPECT_LT(errorOf({4, 64, true}), errorOf({4, 64, false}));
  EXPECT_LT(errorOf({8, 0, false}), errorOf({4, 32, true}));
}

TEST(GroupQuantizerTest, GroupOfKIsPerChannel) {
  std::vector<float> weight = randomWeight(4 * 64, 3);
  QuantizedTensor perChannel = quantizeOrDie(weight, 4, 64, {4, 0, false});
  QuantizedTensor wholeRow = quantizeOrDie(weight, 4, 64, {4, 64, false});
  EXPECT_EQ(perChannel.values, wholeRow.values);
  EXPECT_EQ(perChannel.scales, wholeRow.scales);
  EXPECT_EQ(wholeRow.groups, 1);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(GroupQuantizerTest, GroupMustDivideK) {
  std::vector<float> weight(2 * 64, 1.0f);
  EXPECT_THAT(errorOf(quantize(weight, 2, 64, {4, 48, false})),
              HasSubstr("group size 48 does not divide K = 64"));
  EXPECT_THAT(errorOf(quantize(weight, 2, 64, {4, -1, false})),
              HasSubstr("group size must be positive"));
}

TEST(GroupQuantizerTest, RejectsBadBitsSizesAndValues) {
  std::vector<float> weight(16, 1.0f);
  EXPECT_THAT(errorOf(quantize(weight, 2, 8, {3, 0, false})),
              HasSubstr("4 or 8 bits, got 3"));
  EXPECT_THAT(errorOf(quantize(weight, 3, 8, {4, 0, false})),
              HasSubstr("a [3, 8] weight needs 24 values, got 16"));
  weight[9] = NAN;
  EXPECT_THAT(errorOf(quantize(weight, 2, 8, {4, 4, false})),
              HasSubstr("non-finite value at [1, 1]"));
}

//===----------------------------------------------------------------------===//
// 4-bit packing
//===----------------------------------------------------------------------===//

TEST(GroupQuantizerTest, PacksInt4LowNibbleFirst) {
  // Two rows of five: 1, -2, 7, -7, 3 and 15, 0, 8, 4, 9 (unsigned).
  std::vector<uint8_t> values = {1,  0xfe, 7, 0xf9, 3, //
                                 15, 0,    8, 4,    9};
  std::vector<uint8_t> packed = packInt4(values, 2, 5);
  EXPECT_THAT(packed, ElementsAre(0xe1, 0x97, 0x03, 0x0f, 0x48, 0x09));
  std::vector<uint8_t> signedBack = unpackInt4(packed, 2, 5, true);
  EXPECT_THAT(llvm::ArrayRef(signedBack).take_front(5),
              ElementsAre(1, 0xfe, 7, 0xf9, 3));
  std::vector<uint8_t> unsignedBack = unpackInt4(packed, 2, 5, false);
  EXPECT_THAT(llvm::ArrayRef(unsignedBack).drop_front(5),
              ElementsAre(15, 0, 8, 4, 9));
}

TEST(GroupQuantizerTest, PackedQuantizedValuesRoundTrip) {
  std::vector<float> weight = randomWeight(8 * 64, 5);
  QuantizedTensor q = quantizeOrDie(weight, 8, 64, {4, 32, false});
  std::vector<uint8_t> packed = packInt4(q.values, 8, 64);
  EXPECT_EQ(packed.size(), 8u * 32u);
  EXPECT_EQ(unpackInt4(packed, 8, 64, true), q.values);
}

} // namespace
