//===- Float16Test.cpp - binary16 and bfloat16 rounding -------------------===//

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/test/TestSupport.h"
#include "plugins/Float16.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

namespace llmc::cmodel {
namespace {

TEST(Float16Test, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    bool nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff);
    uint16_t back = floatToHalf(halfToFloat(uint16_t(bits)));
    // A signalling NaN comes back quiet.
    EXPECT_EQ(back, nan ? (bits | 0x200) : bits) << std::hex << bits;
  }
}

TEST(Float16Test, NarrowingMatchesNumPy) {
  // numpy 1.24: np.float32(v).astype(np.float16), for normal values around
  // 1000 and 3e4 and subnormal ones around 1e-5.
  const std::pair<uint32_t, uint16_t> cases[] = {
      {0x3f9d75aau, 0x3cecu}, {0x43955f6eu, 0x5cabu}, {0xc38911a5u, 0xdc49u},
      {0xc45ea5e1u, 0xe2f5u}, {0xc3e355dcu, 0xdf1bu}, {0xc477e961u, 0xe3bfu},
      {0x4270930cu, 0x5385u}, {0x44a786e3u, 0x653cu}, {0xc3f61a6fu, 0xdfb1u},
      {0xc41b1e64u, 0xe0d9u}, {0x36a45d1cu, 0x0052u}, {0x366f80b8u, 0x003cu},
      {0x358d7c0fu, 0x0012u}, {0xb71c1b4cu, 0x809cu}, {0xb49d0b66u, 0x8005u},
      {0x36e94e17u, 0x0075u}, {0xc71d8670u, 0xf8ecu}, {0xc65681e4u, 0xf2b4u},
      {0xc75eccaeu, 0xfaf6u}, {0xc7171e22u, 0xf8b9u}};
  for (auto [input, expected] : cases)
    EXPECT_EQ(floatToHalf(floatFromBits(input)), expected) << std::hex << input;
}

TEST(Float16Test, HalfTiesRoundToEven) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: even is 1.
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3c00);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9.
  EXPECT_EQ(floatToHalf(1.0f + 3 * 0x1p-11f), 0x3c02);
  // Just above a tie rounds up.
  EXPECT_EQ(floatToHalf(std::nextafter(1.0f + 0x1p-11f, 2.0f)), 0x3c01);
  EXPECT_EQ(floatToHalf(-(1.0f + 0x1p-11f)), 0xbc00);
}

TEST(Float16Test, HalfSubnormals) {
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);     // The smallest subnormal.
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);     // Halfway to it: even is 0.
  EXPECT_EQ(floatToHalf(0x1.8p-25f), 0x0001);   // Above halfway.
  EXPECT_EQ(floatToHalf(3 * 0x1p-25f), 0x0002); // 1.5 units: even is 2.
  EXPECT_EQ(floatToHalf(5 * 0x1p-25f), 0x0002); // 2.5 units: even is 2.
  EXPECT_EQ(floatToHalf(0x1p-14f - 0x1p-25f), 0x0400); // Up to the normal.
  EXPECT_EQ(floatToHalf(0x1p-14f - 0x1p-24f), 0x03ff); // Largest subnormal.
  EXPECT_EQ(floatToHalf(-0x1p-24f), 0x8001);
  EXPECT_EQ(floatToHalf(0x1p-30f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1e-45f), 0x0000); // A float32 subnormal.
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(halfToFloat(0x83ff), -(0x1p-14f - 0x1p-24f));
}

TEST(Float16Test, HalfInfinityAndNaN) {
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.996f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // The tie rounds to infinity.
  EXPECT_EQ(floatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(floatToHalf(-1e10f), 0xfc00);
  EXPECT_EQ(floatToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalf(floatFromBits(0x7fc00000u)), 0x7e00);
  EXPECT_EQ(floatToHalf(floatFromBits(0xffc00001u)), 0xfe00);
  // A signalling NaN whose payload survives only in low bits stays a NaN.
  EXPECT_EQ(floatToHalf(floatFromBits(0x7f800001u)), 0x7e00);
  EXPECT_EQ(floatToHalf(floatFromBits(0x7f812000u)), 0x7e09);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7c01)));
}

TEST(Float16Test, NarrowingMatchesAnIndependentRounding) {
  std::mt19937 engine(11);
  for (int i = 0; i < 200000; ++i) {
    // Exponents over the whole half range and beyond.
    float value = std::ldexp(float(engine() % 0x1000000) / 0x1000000,
                             int(engine() % 50) - 30);
    if (engine() % 2)
      value = -value;
    double expected = test::roundF16(value);
    EXPECT_EQ(double(roundToHalf(value)), expected) << value;
  }
}

TEST(Float16Test, BFloat16Rounding) {
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(floatFromBits(0x3f808000u)), 0x3f80); // Tie, even.
  EXPECT_EQ(floatToBFloat16(floatFromBits(0x3f818000u)), 0x3f82); // Tie, odd.
  EXPECT_EQ(floatToBFloat16(floatFromBits(0x3f808001u)), 0x3f81);
  EXPECT_EQ(floatToBFloat16(floatFromBits(0x00018000u)), 0x0002); // Subnormal.
  EXPECT_EQ(floatToBFloat16(floatFromBits(0x00008000u)), 0x0000);
  EXPECT_EQ(floatToBFloat16(floatFromBits(0x7f7fffffu)), 0x7f80); // To inf.
  EXPECT_EQ(floatToBFloat16(-INFINITY), 0xff80);
  EXPECT_EQ(floatToBFloat16(floatFromBits(0x7f800001u)), 0x7fc0); // Quiet.
  EXPECT_EQ(floatToBFloat16(floatFromBits(0xffff0000u)), 0xffff);
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
  std::mt19937 engine(5);
  for (int i = 0; i < 200000; ++i) {
    float value = floatFromBits(engine());
    if (std::isnan(value))
      continue;
    EXPECT_EQ(double(roundToBFloat16(value)), test::roundBF16(value))
        << std::hex << floatBits(value);
  }
}

TEST(Float16Test, BulkConversionsMatchTheScalarOnes) {
  // The F16C path (when the host has it) against the integer code.
  std::vector<float> values;
  std::mt19937 engine(3);
  for (int i = 0; i < 100000; ++i)
    values.push_back(floatFromBits(engine()));
  for (float special :
       {0.0f, -0.0f, 65520.0f, 0x1p-25f, 0x1.8p-25f, 3 * 0x1p-25f, INFINITY,
        -INFINITY, floatFromBits(0x7f812000u), floatFromBits(0xff800001u)})
    values.push_back(special);
  std::vector<uint8_t> bulk(2 * values.size());
  floatToHalfArray(values.data(), values.size(), bulk.data());
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t got = uint16_t(bulk[2 * i] | (bulk[2 * i + 1] << 8));
    ASSERT_EQ(got, floatToHalf(values[i]))
        << std::hex << floatBits(values[i]) << " f16c=" << usesF16c();
  }
  std::vector<uint8_t> halves(2 * 0x10000);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    halves[2 * bits] = uint8_t(bits);
    halves[2 * bits + 1] = uint8_t(bits >> 8);
  }
  std::vector<float> widened(0x10000);
  halfToFloatArray(halves.data(), 0x10000, widened.data());
  for (uint32_t bits = 0; bits < 0x10000; ++bits)
    ASSERT_EQ(floatBits(widened[bits]), floatBits(halfToFloat(uint16_t(bits))))
        << std::hex << bits;
}

TEST(Float16Test, PackedIntegers) {
  std::vector<uint8_t> bytes = encodeInts(cmd::DTYPE_I4, {-8, 7, -1, 0, 3});
  ASSERT_EQ(bytes.size(), 3u);
  EXPECT_EQ(bytes[0], 0x78); // Low nibble first: -8 = 0x8, 7 = 0x7.
  EXPECT_EQ(bytes[1], 0x0f);
  EXPECT_EQ(decodeInts(cmd::DTYPE_I4, bytes, 5),
            (std::vector<int32_t>{-8, 7, -1, 0, 3}));
  EXPECT_EQ(decodeInts(cmd::DTYPE_U4, bytes, 2), (std::vector<int32_t>{8, 7}));
  float widened[3];
  widenElements(cmd::DTYPE_I4, bytes.data(), 1, 3, widened);
  EXPECT_EQ(widened[0], 7.0f);
  EXPECT_EQ(widened[1], -1.0f);
  EXPECT_EQ(widened[2], 0.0f);
}

} // namespace
} // namespace llmc::cmodel
