//===- MiniCPMVSlicesTest.cpp - pixel values against the references -------===//
//
// The reference pixel values (../shared/refdata/vlm) come from PIL and the
// official MiniCPM-V 2.6 image processor: slicing, resizing, the patch
// layout and the padding must reproduce them.
//
//===----------------------------------------------------------------------===//

#include "runtime/vision/MiniCPMVSlices.h"
#include "runtime/vision/test/VisionReference.h"

#include "gtest/gtest.h"

namespace llmc::vision {
namespace {

/// tiny-minicpmv's preprocessor_config.json.
SlicingOptions getTinyMiniCPMVSlicing() {
  SlicingOptions options;
  options.scaleResolution = 112;
  options.maxSlices = 9;
  options.patchSize = 14;
  return options;
}

class MiniCPMVSlicesTest : public ::testing::TestWithParam<const char *> {};

TEST_P(MiniCPMVSlicesTest, PixelValuesMatchTheReference) {
  std::optional<test::VisionReference> reference =
      test::loadVisionReference("tiny-minicpmv", GetParam());
  ASSERT_TRUE(reference);
  SlicedImage sliced = sliceImage(reference->image, getTinyMiniCPMVSlicing());
  const llvm::json::Array *grid =
      reference->ids.getArray("slice_grid_cols_rows");
  ASSERT_EQ(static_cast<bool>(sliced.grid), grid != nullptr);
  if (grid)
    EXPECT_EQ(test::getIntegers(*grid),
              (std::vector<int64_t>{sliced.grid->cols, sliced.grid->rows}));
  std::vector<Image> pictures = {sliced.source};
  pictures.insert(pictures.end(), sliced.slices.begin(), sliced.slices.end());
  PatchedPixels pixels = getPatchedPixels(pictures, 14);

  const llvm::json::Array *sizes = reference->ids.getArray("tgt_sizes");
  ASSERT_TRUE(sizes);
  ASSERT_EQ(pixels.patchGrids.size(), sizes->size());
  for (auto [ours, theirs] : llvm::zip(pixels.patchGrids, *sizes))
    EXPECT_EQ(test::getIntegers(*theirs.getAsArray()),
              (std::vector<int64_t>{ours.rows, ours.cols}));
  ASSERT_EQ(pixels.values.getShape(), reference->pixelValues.getShape());
  // PIL's resize reproduced bit for bit: measured 0 on every image.
  EXPECT_EQ(test::getLargestDifference(pixels.values, reference->pixelValues),
            0.0f);
}

INSTANTIATE_TEST_SUITE_P(Images, MiniCPMVSlicesTest,
                         ::testing::Values("chelsea", "synth_wide",
                                           "synth_tall", "synth_square"));

TEST(MiniCPMVSliceGridTest, SmallImagesAreNotSliced) {
  EXPECT_FALSE(chooseSliceGrid(112, 112, getTinyMiniCPMVSlicing()));
  std::optional<ImageGrid> wide =
      chooseSliceGrid(4000, 1000, getTinyMiniCPMVSlicing());
  ASSERT_TRUE(wide);
  EXPECT_GT(wide->cols, wide->rows);
  EXPECT_LE(wide->cols * wide->rows, 9);
}

} // namespace
} // namespace llmc::vision
