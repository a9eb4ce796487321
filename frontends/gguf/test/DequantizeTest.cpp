//===- DequantizeTest.cpp - ggml block dequantization ---------------------===//
//
// Each format is decoded from one deterministic block: byte i is
// (73·i + 41) mod 256, with the half-precision scales overwritten by chosen
// values (d = 0x2E66 ≈ 0.1, m = 0xB800 = −0.5, dmin = 0x2A66 ≈ 0.05). The
// expected float bit patterns were computed by an independent numpy
// implementation written from ggml's block layouts.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/Dequantize.h"

#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <utility>
#include <vector>

using namespace llmc::gguf;

namespace {

std::vector<uint8_t> makeBlock(GgmlType type,
                               std::vector<std::pair<int, uint16_t>> halves) {
  std::vector<uint8_t> block(getGgmlTypeTraits(type).blockBytes);
  for (size_t i = 0; i < block.size(); ++i)
    block[i] = static_cast<uint8_t>(i * 73 + 41);
  for (auto [offset, bits] : halves) {
    block[offset] = bits & 0xff;
    block[offset + 1] = bits >> 8;
  }
  return block;
}

void expectElements(GgmlType type, std::vector<std::pair<int, uint16_t>> halves,
                    std::vector<std::pair<int, uint32_t>> expected) {
  ASSERT_TRUE(isDequantizable(type));
  std::vector<uint8_t> block = makeBlock(type, std::move(halves));
  std::vector<float> values(getGgmlTypeTraits(type).blockSize);
  dequantize(type, block.data(), values.size(), values.data());
  for (auto [index, bits] : expected)
    EXPECT_EQ(llvm::bit_cast<uint32_t>(values[index]), bits)
        << stringifyGgmlType(type).str() << " element " << index << " is "
        << values[index] << ", expected " << llvm::bit_cast<float>(bits);
}

constexpr uint16_t kD = 0x2E66, kMin = 0xB800, kDMin = 0x2A66;

TEST(DequantizeTest, Q4_0NibblesAreElementsJAndJPlus16) {
  // d = 2; byte j holds element j (low nibble) and element j + 16 (high).
  std::vector<uint8_t> block(18, 0);
  block[1] = 0x40;
  block[2] = 0xF0; // element 0: 0 - 8, element 16: 15 - 8
  block[17] = 0x19; // element 15: 9 - 8, element 31: 1 - 8
  std::vector<float> values(32);
  dequantize(GgmlType::Q4_0, block.data(), 32, values.data());
  EXPECT_EQ(values[0], -16.0f);
  EXPECT_EQ(values[16], 14.0f);
  EXPECT_EQ(values[15], 2.0f);
  EXPECT_EQ(values[31], -14.0f);
  EXPECT_EQ(values[1], -16.0f);
}

TEST(DequantizeTest, Q8_0IsScaleTimesSignedByte) {
  std::vector<uint8_t> block(34, 0);
  block[1] = 0x38; // d = 0.5
  block[2] = 0x80; // -128
  block[33] = 0x7f;
  std::vector<float> values(32);
  dequantize(GgmlType::Q8_0, block.data(), 32, values.data());
  EXPECT_EQ(values[0], -64.0f);
  EXPECT_EQ(values[31], 63.5f);
  EXPECT_EQ(values[1], 0.0f);
}

TEST(DequantizeTest, Blocks32) {
  expectElements(GgmlType::Q4_0, {{0, kD}},
                 {{0, 0x3e999000}, {1, 0xbeccc000}, {15, 0xbf199000},
                  {16, 0x3e999000}, {17, 0xbf4cc000}, {31, 0xbf4cc000}});
  expectElements(GgmlType::Q4_1, {{0, kD}, {2, kMin}},
                 {{0, 0x3f4cb800}, {1, 0x3dcc8000}, {15, 0xbdcd0000},
                  {16, 0xbdcd0000}, {17, 0x3eccb000}, {31, 0x3eccb000}});
  expectElements(GgmlType::Q5_0, {{0, kD}},
                 {{0, 0x3fbff400}, {1, 0x3f4cc000}, {15, 0xbf7ff000},
                  {16, 0x3fa65c00}, {17, 0xbfb32800}, {31, 0x3e4cc000}});
  expectElements(GgmlType::Q5_1, {{0, kD}, {2, kMin}},
                 {{0, 0x3f998c00}, {1, 0x3effe000}, {15, 0x3ff32000},
                  {16, 0x3fe65400}, {17, 0x400cc200}, {31, 0x3f198800}});
  expectElements(GgmlType::Q8_0, {{0, kD}},
                 {{0, 0xc0dcbf00}, {1, 0x3eccc000}, {15, 0x3e4cc000},
                  {16, 0x40eff100}, {17, 0xc12cc200}, {31, 0xc12ff500}});
}

TEST(DequantizeTest, KQuants) {
  expectElements(GgmlType::Q4_K, {{0, kD}, {2, kDMin}},
                 {{0, 0x4113f6c0}, {31, 0xc01cc300}, {32, 0x41aa5bc0},
                  {63, 0x41872ac0}, {64, 0x41ddf220}, {100, 0x426d8ac0},
                  {128, 0x418d2a60}, {160, 0x428577a8}, {200, 0x40acc200},
                  {255, 0xbf932a00}});
  expectElements(GgmlType::Q5_K, {{0, kD}, {2, kDMin}},
                 {{0, 0x41f05760}, {31, 0xc01cc300}, {32, 0x41cd8cc0},
                  {63, 0x41aa5bc0}, {64, 0x41ddf220}, {100, 0x4286c460},
                  {128, 0x424cf330}, {160, 0x4297dce8}, {200, 0x40acc200},
                  {255, 0xbf932a00}});
  expectElements(GgmlType::Q6_K, {{208, kD}},
                 {{0, 0x4180c4c0}, {15, 0x42932a00}, {16, 0xc20bf740},
                  {31, 0xc31ff600}, {32, 0x42dd5890}, {64, 0x40265c00},
                  {96, 0xc21b2980}, {127, 0xc0999000}, {128, 0xc2092aa0},
                  {200, 0xc229f560}, {255, 0x41e65800}});
}

TEST(DequantizeTest, ConsecutiveBlocksAndSupportedTypes) {
  std::vector<uint8_t> blocks(2 * 18, 0);
  blocks[1] = 0x3c; // d = 1
  blocks[18 + 1] = 0x40; // d = 2
  blocks[18 + 2] = 0x0a;
  std::vector<float> values(64);
  dequantize(GgmlType::Q4_0, blocks.data(), 64, values.data());
  EXPECT_EQ(values[0], -8.0f);
  EXPECT_EQ(values[32], 4.0f);
  EXPECT_EQ(values[48], -16.0f);
  EXPECT_FALSE(isDequantizable(GgmlType::F32));
  EXPECT_FALSE(isDequantizable(GgmlType::Q2_K));
  EXPECT_FALSE(isDequantizable(GgmlType::IQ4_NL));
}

} // namespace
