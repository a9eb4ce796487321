//===- MiniCPMVSlicesTest.cpp - pixel values against the references -------===//
//
// The reference pixel values (../shared/refdata/vlm) come from PIL and the
// official MiniCPM-V 2.6 image processor: slicing, resizing, the patch
// layout and the padding must reproduce them.
//
//===----------------------------------------------------------------------===//

#include "runtime/vision/ImageFile.h"
#include "runtime/vision/MiniCPMVSlices.h"

#include "dialects/top/Interpreter/NpyFile.h"
#include "tests/TestData.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <utility>

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
  std::string image = GetParam();
  std::string refs =
      test::getRefdataPath("vlm/refs") + "/tiny-minicpmv." + image;
  llvm::Expected<Image> decoded =
      readImageFile(test::getRefdataPath("vlm/images/" + image + ".png"));
  ASSERT_TRUE(static_cast<bool>(decoded)) << toString(decoded.takeError());
  llvm::Expected<top::Tensor> reference =
      top::readNpyFile(refs + ".pixel_values.npy");
  ASSERT_TRUE(static_cast<bool>(reference)) << toString(reference.takeError());
  auto ids = llvm::MemoryBuffer::getFile(refs + ".ids.json");
  ASSERT_TRUE(static_cast<bool>(ids));
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*ids)->getBuffer());
  ASSERT_TRUE(static_cast<bool>(json)) << toString(json.takeError());
  const llvm::json::Object &expected = *json->getAsObject();

  SlicedImage sliced = sliceImage(*decoded, getTinyMiniCPMVSlicing());
  const llvm::json::Array *grid = expected.getArray("slice_grid_cols_rows");
  ASSERT_EQ(static_cast<bool>(sliced.grid), grid != nullptr);
  if (grid) {
    EXPECT_EQ(sliced.grid->cols, (*grid)[0].getAsInteger());
    EXPECT_EQ(sliced.grid->rows, (*grid)[1].getAsInteger());
  }
  std::vector<Image> pictures = {sliced.source};
  pictures.insert(pictures.end(), sliced.slices.begin(), sliced.slices.end());
  PatchedPixels pixels = getPatchedPixels(pictures, 14);

  const llvm::json::Array *sizes = expected.getArray("tgt_sizes");
  ASSERT_TRUE(sizes);
  ASSERT_EQ(pixels.patchGrids.size(), sizes->size());
  for (auto [ours, theirs] : llvm::zip(pixels.patchGrids, *sizes)) {
    EXPECT_EQ(ours.rows, (*theirs.getAsArray())[0].getAsInteger());
    EXPECT_EQ(ours.cols, (*theirs.getAsArray())[1].getAsInteger());
  }
  ASSERT_EQ(pixels.values.getShape().vec(), reference->getShape().vec());
  llvm::ArrayRef<float> ours = std::as_const(pixels.values).getF32();
  llvm::ArrayRef<float> theirs = std::as_const(*reference).getF32();
  float largest = 0;
  for (size_t i = 0; i < ours.size(); ++i)
    largest = std::max(largest, std::fabs(ours[i] - theirs[i]));
  // PIL's resize reproduced bit for bit: measured 0 on every image.
  EXPECT_EQ(largest, 0.0f) << image;
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
