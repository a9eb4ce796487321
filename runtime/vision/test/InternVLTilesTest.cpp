//===- InternVLTilesTest.cpp - pixel values against the references --------===//
//
// The reference pixel values (../shared/refdata/vlm) come from PIL and
// torchvision running InternVL's official preprocessing; decoding, the
// bicubic resize, the tiling and the normalization must reproduce them.
//
//===----------------------------------------------------------------------===//

#include "runtime/vision/ImageFile.h"
#include "runtime/vision/InternVLTiles.h"
#include "runtime/vision/Resize.h"
#include "runtime/vision/test/VisionReference.h"

#include "gtest/gtest.h"

namespace llmc::vision {
namespace {

/// tiny-internvl's config: tiles of 112, at most 6, with a thumbnail.
TilingOptions getTinyInternVLTiling() {
  TilingOptions options;
  options.tileSize = 112;
  options.minTiles = 1;
  options.maxTiles = 6;
  options.thumbnail = true;
  return options;
}

class InternVLTilesTest : public ::testing::TestWithParam<const char *> {};

TEST_P(InternVLTilesTest, PixelValuesMatchTheReference) {
  std::optional<test::VisionReference> reference =
      test::loadVisionReference("tiny-internvl", GetParam());
  ASSERT_TRUE(reference);
  std::vector<Image> tiles = makeTiles(reference->image, getTinyInternVLTiling());
  top::Tensor values = getPixelValues(tiles);
  ASSERT_EQ(values.getShape(), reference->pixelValues.getShape());
  // PIL's 8-bit resize reproduced bit for bit leaves only the float32
  // normalization, which both compute alike: measured 0 on every image.
  EXPECT_EQ(test::getLargestDifference(values, reference->pixelValues), 0.0f);

  ImageGrid chosen = chooseTileGrid(reference->image.width,
                                    reference->image.height,
                                    getTinyInternVLTiling());
  EXPECT_EQ(test::getIntegers(*reference->ids.getArray("tiles_grid_cols_rows")),
            (std::vector<int64_t>{chosen.cols, chosen.rows}));
}

INSTANTIATE_TEST_SUITE_P(Images, InternVLTilesTest,
                         ::testing::Values("chelsea", "synth_wide",
                                           "synth_tall", "synth_square"));

TEST(ResizeTest, SameSizeIsACopyAndUpscalingKeepsAFlatImage) {
  Image flat(3, 2);
  std::fill(flat.rgb.begin(), flat.rgb.end(), 77);
  EXPECT_EQ(resizeBicubic(flat, 3, 2).rgb, flat.rgb);
  Image larger = resizeBicubic(flat, 7, 5);
  EXPECT_EQ(larger.width, 7);
  EXPECT_EQ(larger.height, 5);
  for (uint8_t value : larger.rgb)
    EXPECT_EQ(value, 77);
}

TEST(ImageFileTest, BadFilesAreNamedErrors) {
  auto errorOf = [](std::string_view bytes) {
    absl::StatusOr<Image> image = decodeImage(
        absl::Span<const uint8_t>(
            reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()),
        "x.png");
    return image.ok() ? std::string("decoded")
                      : std::string(image.status().message());
  };
  EXPECT_EQ(errorOf("GIF89a"), "x.png: not a PNG or JPEG image");
  EXPECT_EQ(errorOf(std::string_view("\x89PNG\r\n\x1a\n\0\0", 10))
                .rfind("x.png: not a readable PNG file: ", 0),
            0u);
  EXPECT_EQ(errorOf("\xff\xd8\xff\xe0 broken")
                .rfind("x.png: a corrupt JPEG file: ", 0),
            0u);
  absl::StatusOr<Image> missing = readImageFile("/nonexistent/cat.jpg");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(std::string(missing.status().message())
                .rfind("/nonexistent/cat.jpg: cannot read", 0),
            0u);
}

} // namespace
} // namespace llmc::vision
