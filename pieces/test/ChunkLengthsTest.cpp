//===- ChunkLengthsTest.cpp - prefill lengths and their piece names -------===//

#include "pieces/ChunkLengths.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::pieces {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;

TEST(ChunkLengthsTest, DefaultsGrowFourfoldBelowL) {
  EXPECT_THAT(getDefaultPrefillLengths(512), ElementsAre(16, 64, 256));
  EXPECT_THAT(getDefaultPrefillLengths(128), ElementsAre(16, 64));
  EXPECT_THAT(getDefaultPrefillLengths(17), ElementsAre(16));
  EXPECT_THAT(getDefaultPrefillLengths(16), IsEmpty());
  EXPECT_THAT(getDefaultPrefillLengths(1), IsEmpty());
}

TEST(ChunkLengthsTest, ChecksLengthsAscendBelowL) {
  EXPECT_EQ(checkPrefillLengths({}, 8), std::nullopt);
  EXPECT_EQ(checkPrefillLengths({1, 2, 7}, 8), std::nullopt);
  EXPECT_EQ(checkPrefillLengths({2, 8}, 8),
            "prefill length 8 is outside [1, 8): every one must be shorter "
            "than the max input length");
  EXPECT_EQ(checkPrefillLengths({0}, 8),
            "prefill length 0 is outside [1, 8): every one must be shorter "
            "than the max input length");
  EXPECT_EQ(checkPrefillLengths({4, 2}, 8),
            "prefill lengths must ascend without repeats (4 then 2)");
  EXPECT_EQ(checkPrefillLengths({4, 4}, 8),
            "prefill lengths must ascend without repeats (4 then 4)");
}

TEST(ChunkLengthsTest, NamesAShorterChunkByItsLength) {
  EXPECT_EQ(getChunkPieceName("embed.prefill", 16, 128), "embed.prefill.16");
  EXPECT_EQ(getChunkPieceName("block.3.prefill_kv", 64, 128),
            "block.3.prefill_kv.64");
  EXPECT_EQ(getChunkPieceName("block.3.prefill", 128, 128), "block.3.prefill");
}

TEST(ChunkLengthsTest, ReadsTheLengthBackFromPrefillPiecesOnly) {
  EXPECT_THAT(getChunkLengthOfName("embed.prefill.16"), Optional(16));
  EXPECT_THAT(getChunkLengthOfName("block.12.prefill.64"), Optional(64));
  EXPECT_THAT(getChunkLengthOfName("block.0.prefill_kv.1"), Optional(1));
  for (const char *name :
       {"embed.prefill", "block.3.prefill", "block.3.prefill_kv",
        "block.3.decode", "block.3.decode.16", "embed.decode.16", "lm_head",
        "block.3.prefill.", "block.3.prefill.0", "block.3.prefill.-4",
        "block.3.prefill.16x", "block.3.prefill.99999999999999999999",
        "prefill.16", "vision"})
    EXPECT_EQ(getChunkLengthOfName(name), std::nullopt) << name;
}

} // namespace
} // namespace llmc::pieces
