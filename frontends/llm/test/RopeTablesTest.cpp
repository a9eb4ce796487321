//===- RopeTablesTest.cpp - rotary frequencies after rope scaling ---------===//

#include "frontends/llm/RopeTables.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace llmc;
using llmc::plugins::RopeScalingType;
using ::testing::DoubleEq;
using ::testing::ElementsAre;

namespace {

/// Two rotary pairs with theta 100: frequencies 1 and 1/10.
plugins::ModelSpec twoPairs() {
  plugins::ModelSpec spec;
  spec.rotaryDim = 4;
  spec.ropeTheta = 100.0;
  return spec;
}

TEST(RopeTablesTest, PerFrequencyFactorsDivide) {
  plugins::ModelSpec spec = twoPairs();
  spec.ropeScaling.type = RopeScalingType::PerFrequency;
  spec.ropeScaling.frequencyFactors = {2.0, 4.0};
  EXPECT_THAT(llm::computeInverseFrequencies(spec, 64),
              ElementsAre(DoubleEq(0.5), DoubleEq(0.025)));
}

/// LongRoPE's short factors serve contexts up to the original length, the
/// long ones longer contexts, as llama.cpp chooses by its context.
TEST(RopeTablesTest, LongRopeChoosesFactorsByTheContext) {
  plugins::ModelSpec spec = twoPairs();
  spec.ropeScaling.type = RopeScalingType::LongRope;
  spec.ropeScaling.frequencyFactors = {2.0, 4.0};
  spec.ropeScaling.longFrequencyFactors = {8.0, 16.0};
  spec.ropeScaling.originalMaxPositions = 32;
  EXPECT_THAT(llm::computeInverseFrequencies(spec, 32),
              ElementsAre(DoubleEq(0.5), DoubleEq(0.025)));
  EXPECT_THAT(llm::computeInverseFrequencies(spec, 33),
              ElementsAre(DoubleEq(0.125), DoubleEq(0.00625)));
}

/// LongRoPE's attention factor scales cos and sin.
TEST(RopeTablesTest, AttentionFactorScalesTheTables) {
  plugins::ModelSpec spec = twoPairs();
  spec.ropeScaling.type = RopeScalingType::LongRope;
  spec.ropeScaling.frequencyFactors = {1.0, 1.0};
  spec.ropeScaling.longFrequencyFactors = {1.0, 1.0};
  spec.ropeScaling.originalMaxPositions = 32;
  spec.ropeScaling.attentionFactor = 1.5;
  plugins::OverlayWeightSource weights(
      std::make_unique<plugins::EmptyWeightSource>("none"));
  ASSERT_FALSE(static_cast<bool>(llm::addRopeTables(spec, 2, weights)));
  std::vector<float> cos(8), sin(8);
  ASSERT_FALSE(static_cast<bool>(weights.readAsF32(llm::kRopeCosName, cos)));
  ASSERT_FALSE(static_cast<bool>(weights.readAsF32(llm::kRopeSinName, sin)));
  // Position 0: cos 1.5, sin 0; position 1, pair 0 (angle 1).
  EXPECT_FLOAT_EQ(cos[0], 1.5f);
  EXPECT_FLOAT_EQ(sin[0], 0.0f);
  EXPECT_FLOAT_EQ(cos[4], static_cast<float>(1.5 * std::cos(1.0)));
  EXPECT_FLOAT_EQ(sin[4], static_cast<float>(1.5 * std::sin(1.0)));
}

} // namespace
