//===- StoredBlocksTest.cpp - Q8_0 and Q4_0 blocks served unpacked --------===//
//
// The unpacked integers times their scale must be exactly what ggml's
// dequantization (Dequantize.h, tested against an independent numpy
// implementation) gives, element by element, or a pass-through binary would
// compute with other weights than llama.cpp.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/StoredBlocks.h"
#include "frontends/gguf/Dequantize.h"

#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace llmc::gguf;
using llmc::plugins::StoredQuantizedTensor;
using llmc::plugins::WeightType;

namespace {

/// `blocks` blocks of `type` with byte i = (73 i + 41) mod 256 and the given
/// half-precision scales, one per block.
std::vector<uint8_t> makeBlocks(GgmlType type,
                                const std::vector<uint16_t> &scales) {
  int64_t blockBytes = getGgmlTypeTraits(type).blockBytes;
  std::vector<uint8_t> bytes(blockBytes * scales.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 73 + 41);
  for (size_t block = 0; block < scales.size(); ++block) {
    bytes[block * blockBytes] = scales[block] & 0xff;
    bytes[block * blockBytes + 1] = scales[block] >> 8;
  }
  return bytes;
}

void expectExactPassThrough(GgmlType type, int64_t bits) {
  // 0.1, -0.5 (ggml's Q4_0 scale takes the sign of the extreme value), 0
  // (an all-zero block) and 2^-24, a subnormal half.
  std::vector<uint16_t> scales = {0x2E66, 0xB800, 0x0000, 0x0001};
  std::vector<uint8_t> blocks = makeBlocks(type, scales);
  const int64_t rows = 2, cols = 64;
  StoredQuantizedTensor stored = unpackBlocks(type, blocks.data(), rows, cols);

  EXPECT_EQ(stored.quantization.bits, bits);
  EXPECT_EQ(stored.quantization.groupSize, 32);
  EXPECT_FALSE(stored.quantization.asymmetric);
  EXPECT_EQ(stored.quantization.scaleType, WeightType::F16);
  ASSERT_EQ(stored.values.size(), size_t(rows * cols));
  ASSERT_EQ(stored.scales.size(), scales.size());
  EXPECT_TRUE(stored.zeroPoints.empty());
  EXPECT_EQ(stored.scales[0], llmc::halfToFloat(0x2E66));
  EXPECT_EQ(stored.scales[1], -0.5f);

  std::vector<float> dequantized(rows * cols);
  dequantize(type, blocks.data(), rows * cols, dequantized.data());
  int64_t limit = int64_t(1) << (bits - 1);
  for (int64_t i = 0; i < rows * cols; ++i) {
    int64_t q = static_cast<int8_t>(stored.values[i]);
    EXPECT_GE(q, -limit) << i;
    EXPECT_LT(q, limit) << i;
    float value = float(q) * stored.scales[i / 32];
    EXPECT_EQ(llvm::bit_cast<uint32_t>(value),
              llvm::bit_cast<uint32_t>(dequantized[i]))
        << "element " << i;
  }
}

TEST(StoredBlocksTest, OnlyQ8_0AndQ4_0CompileAsStored) {
  EXPECT_EQ(getStoredQuantization(GgmlType::Q8_0)->bits, 8);
  EXPECT_EQ(getStoredQuantization(GgmlType::Q4_0)->bits, 4);
  EXPECT_TRUE(getStoredQuantization(GgmlType::Q4_1)->floatZeroPoints);
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q5_0,
                        GgmlType::Q5_1, GgmlType::Q4_K, GgmlType::Q6_K})
    EXPECT_FALSE(getStoredQuantization(type)) << stringifyGgmlType(type).str();
}

TEST(StoredBlocksTest, Q8_0ReproducesGgmlBitForBit) {
  expectExactPassThrough(GgmlType::Q8_0, 8);
}

TEST(StoredBlocksTest, Q4_0ReproducesGgmlBitForBit) {
  expectExactPassThrough(GgmlType::Q4_0, 4);
}

TEST(StoredBlocksTest, Q4_1KeepsItsIntegersAndScales) {
  // d = 0.1, 0.5, 0 (a block of one value m) and -0.5; m = -0.5, 0.25,
  // 0.75 and 0.
  std::vector<uint16_t> scales = {0x2E66, 0x3800, 0x0000, 0xB800};
  std::vector<uint16_t> offsets = {0xB800, 0x3400, 0x3A00, 0x0000};
  std::vector<uint8_t> blocks = makeBlocks(GgmlType::Q4_1, scales);
  for (size_t block = 0; block < offsets.size(); ++block) {
    blocks[block * 20 + 2] = offsets[block] & 0xff;
    blocks[block * 20 + 3] = offsets[block] >> 8;
  }
  for (int j = 0; j < 16; ++j)
    blocks[2 * 20 + 4 + j] = 0; // d = 0 blocks hold q = 0
  StoredQuantizedTensor stored =
      unpackBlocks(GgmlType::Q4_1, blocks.data(), 2, 64);
  EXPECT_EQ(stored.quantization.bits, 4);
  EXPECT_TRUE(stored.quantization.asymmetric);
  EXPECT_TRUE(stored.quantization.floatZeroPoints);
  ASSERT_EQ(stored.floatZeroPoints.size(), 4u);
  EXPECT_TRUE(stored.zeroPoints.empty());
  std::vector<float> dequantized(128);
  dequantize(GgmlType::Q4_1, blocks.data(), 128, dequantized.data());
  for (int64_t i = 0; i < 128; ++i) {
    int64_t q = stored.values[i];
    EXPECT_LE(q, 15) << i;
    float value =
        (float(q) - stored.floatZeroPoints[i / 32]) * stored.scales[i / 32];
    // The offset's division rounds: a few ulp of the value, never more.
    EXPECT_NEAR(value, dequantized[i], 4e-7f * (1.0f + std::abs(value)))
        << "element " << i;
  }
  EXPECT_EQ(stored.scales[2], 0.75f) << "a one-value block scales by m";
  EXPECT_EQ(stored.floatZeroPoints[2], -1.0f);
}

TEST(StoredBlocksTest, Q4_0NibblesHoldElementsJAndJPlus16) {
  std::vector<uint8_t> block = makeBlocks(GgmlType::Q4_0, {0x3C00});
  block[2] = 0xF0; // element 0: 0 - 8, element 16: 15 - 8
  block[3] = 0x39; // element 1: 9 - 8, element 17: 3 - 8
  StoredQuantizedTensor stored =
      unpackBlocks(GgmlType::Q4_0, block.data(), 1, 32);
  EXPECT_EQ(static_cast<int8_t>(stored.values[0]), -8);
  EXPECT_EQ(static_cast<int8_t>(stored.values[16]), 7);
  EXPECT_EQ(static_cast<int8_t>(stored.values[1]), 1);
  EXPECT_EQ(static_cast<int8_t>(stored.values[17]), -5);
}

} // namespace
