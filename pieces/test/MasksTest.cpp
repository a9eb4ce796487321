//===- MasksTest.cpp - the attention masks of each phase ------------------===//

#include "pieces/Masks.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc::pieces;
using ::testing::ElementsAreArray;

namespace {

constexpr float M = kMaskedScore;

TEST(MasksTest, PrefillIsCausal) {
  EXPECT_THAT(buildPrefillMask(3), ElementsAreArray({0.0f, M, M, //
                                                     0.0f, 0.0f, M, //
                                                     0.0f, 0.0f, 0.0f}));
}

/// A window of 2: each query sees itself and the position before.
TEST(MasksTest, PrefillWindow) {
  EXPECT_THAT(buildPrefillMask(4, 2),
              ElementsAreArray({0.0f, M, M, M,    //
                                0.0f, 0.0f, M, M, //
                                M, 0.0f, 0.0f, M, //
                                M, M, 0.0f, 0.0f}));
}

/// 3 history slots, 2 of them valid, then 2 new keys.
TEST(MasksTest, PrefillKVSeesTheValidHistory) {
  EXPECT_THAT(buildPrefillKVMask(2, 3, 2),
              ElementsAreArray({0.0f, 0.0f, M, 0.0f, M, //
                                0.0f, 0.0f, M, 0.0f, 0.0f}));
}

/// Queries at positions 3 and 4 with a window of 3 see positions 1..3 and
/// 2..4: the window cuts into the history and then into the new keys.
TEST(MasksTest, PrefillKVWindowSpansHistoryAndNewKeys) {
  EXPECT_THAT(buildPrefillKVMask(2, 4, 3, 3),
              ElementsAreArray({M, 0.0f, 0.0f, M, 0.0f, M, //
                                M, M, 0.0f, M, 0.0f, 0.0f}));
  // A window of 1 leaves each query only itself.
  EXPECT_THAT(buildPrefillKVMask(2, 4, 3, 1),
              ElementsAreArray({M, M, M, M, 0.0f, M, //
                                M, M, M, M, M, 0.0f}));
}

TEST(MasksTest, DecodeWindow) {
  EXPECT_THAT(buildDecodeMask(5, 4), ElementsAreArray({0.0f, 0.0f, 0.0f, 0.0f,
                                                       M, 0.0f}));
  // The token at position 4 with a window of 3 sees positions 2, 3, 4.
  EXPECT_THAT(buildDecodeMask(5, 4, 3),
              ElementsAreArray({M, M, 0.0f, 0.0f, M, 0.0f}));
  // A window longer than the history changes nothing.
  EXPECT_EQ(buildDecodeMask(5, 4, 64), buildDecodeMask(5, 4));
}

} // namespace
