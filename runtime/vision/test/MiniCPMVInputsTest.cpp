//===- MiniCPMVInputsTest.cpp - a picture as MiniCPM-V's vision input -----===//
//
// The navit position ids and the resampler's 2-D sin-cos embedding on grids
// small enough to work out by hand, and the padding of the piece's inputs.
// The whole path is checked against the reference embeddings by the
// tiny-minicpmv parity tests.
//
//===----------------------------------------------------------------------===//

#include "runtime/vision/MiniCPMVInputs.h"

#include "pieces/Masks.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

namespace llmc::vision {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MiniCPMVInputsTest, PositionIdsBucketFractionalCoordinates) {
  // A table of 4 x 4: boundaries 0.25, 0.5, 0.75. A grid of the table's
  // size takes every position; one of 2 x 2 (coordinates 0 and 0.5) takes
  // every other row and column.
  std::vector<int32_t> whole = getNavitPositionIds({4, 4}, 4);
  ASSERT_EQ(whole.size(), 16u);
  for (int32_t i = 0; i < 16; ++i)
    EXPECT_EQ(whole[i], i);
  EXPECT_THAT(getNavitPositionIds({2, 2}, 4), ElementsAre(0, 2, 8, 10));
  // Three columns (0, 1/3, 2/3) in one row: buckets 0, 1, 2.
  EXPECT_THAT(getNavitPositionIds({3, 1}, 4), ElementsAre(0, 1, 2));
}

TEST(MiniCPMVInputsTest, SinCosEmbeddingEncodesColumnThenRow) {
  // Width 8: frequencies 1 and 1/100 per half; patch (row 0, column 1).
  std::vector<float> embedding = get2DSinCosEmbedding({2, 1}, 8);
  ASSERT_EQ(embedding.size(), 16u);
  absl::Span<const float> second = absl::MakeConstSpan(embedding).subspan(8, 8);
  EXPECT_FLOAT_EQ(second[0], std::sin(1.0f));
  EXPECT_FLOAT_EQ(second[1], std::sin(0.01f));
  EXPECT_FLOAT_EQ(second[2], std::cos(1.0f));
  EXPECT_FLOAT_EQ(second[3], std::cos(0.01f));
  EXPECT_THAT(second.subspan(4), ElementsAre(0, 0, 1, 1));
}

TEST(MiniCPMVInputsTest, InputsArePaddedAndMasked) {
  MiniCPMVPieceSizes sizes{/*patchSize=*/2, /*maxPatches=*/3,
                           /*positionsPerSide=*/4, /*queryNum=*/2,
                           /*embedDim=*/4};
  // One picture of 2 x 1 patches of side 2: [1, 3, 2, 4], values 1..24.
  std::vector<float> values(24);
  for (int i = 0; i < 24; ++i)
    values[i] = static_cast<float>(i + 1);
  top::Tensor pixels = top::Tensor::fromF32({1, 3, 2, 4}, values);
  auto inputs = getMiniCPMVPieceInputs(pixels, 0, {2, 1}, sizes);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_EQ(inputs->size(), 5u);
  // Each pixel row keeps its 4 values and gains 2 zeros of padding.
  EXPECT_THAT((*inputs)[0].getShape(), ElementsAre(1, 3, 2, 6));
  EXPECT_THAT((*inputs)[0].getF32().first(6), ElementsAre(1, 2, 3, 4, 0, 0));
  EXPECT_THAT((*inputs)[1].getI32(), ElementsAre(0, 2, 0));
  float m = pieces::kMaskedScore;
  EXPECT_THAT((*inputs)[2].getF32(),
              ElementsAre(0, 0, m, 0, 0, m, 0, 0, m));
  EXPECT_THAT((*inputs)[3].getShape(), ElementsAre(1, 3, 4));
  EXPECT_THAT((*inputs)[3].getF32().last(4), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT((*inputs)[4].getF32(), ElementsAre(0, 0, m, 0, 0, m));

  auto tooLarge = getMiniCPMVPieceInputs(pixels, 0, {4, 1}, sizes);
  ASSERT_FALSE(tooLarge.ok());
  EXPECT_THAT(std::string(tooLarge.status().message()),
              HasSubstr("4 x 1 patches is more than the 3"));
}

} // namespace
} // namespace llmc::vision
