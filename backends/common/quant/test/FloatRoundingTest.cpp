//===- FloatRoundingTest.cpp - float32 to half and bfloat16 ---------------===//

#include "backends/common/quant/FloatRounding.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace llmc;
using namespace llmc::quant;

namespace {

TEST(FloatRoundingTest, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00) << "tie";
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02)
      << "tie to even, upward";
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11) +
                            std::ldexp(1.0f, -20)),
            0x3c01);
  EXPECT_EQ(floatToHalf(0.1f), 0x2e66);
}

TEST(FloatRoundingTest, HalfRangeEnds) {
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00) << "ties away to infinity";
  EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(floatToHalf(NAN) & 0x7c00, 0x7c00);
  EXPECT_NE(floatToHalf(NAN) & 0x03ff, 0);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000) << "tie to 0";
  EXPECT_EQ(floatToHalf(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(floatToHalf(1023.5f * std::ldexp(1.0f, -24)), 0x0400)
      << "rounds up into the normals";
  EXPECT_EQ(floatToHalf(1e-30f), 0x0000);
}

TEST(FloatRoundingTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(floatToBFloat16(-0.1f), 0xbdcd);
  EXPECT_EQ(floatToBFloat16(3.4e38f), 0x7f80) << "overflows";
  EXPECT_NE(floatToBFloat16(NAN) & 0x007f, 0);
}

TEST(FloatRoundingTest, RoundTripsThroughTheType) {
  EXPECT_EQ(roundToFloatType(0.1f, FloatType::F32), 0.1f);
  EXPECT_EQ(roundToFloatType(0.1f, FloatType::F16), 0.0999755859375f);
  EXPECT_EQ(roundToFloatType(0.1f, FloatType::BF16), 0.10009765625f);
  EXPECT_EQ(smallestPositive(FloatType::F16), std::ldexp(1.0f, -24));
  EXPECT_EQ(largestFinite(FloatType::F16), 65504.0f);
  EXPECT_EQ(symbolizeFloatType("bf16"), FloatType::BF16);
  EXPECT_EQ(symbolizeFloatType("f64"), std::nullopt);
}

} // namespace
