//===- ImagePromptTest.cpp - prompts with images against the references ---===//
//
// The reference prompts (../shared/refdata/vlm) are the official chat code's
// token ids: the chat text with its image marker expanded for the image's
// tiles or slices, encoded by the model's tokenizer.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/vision/ImagePrompt.h"
#include "runtime/vision/InternVLTiles.h"
#include "runtime/vision/MiniCPMVSlices.h"
#include "runtime/vision/test/VisionReference.h"
#include "tests/TestData.h"

#include "gtest/gtest.h"

namespace llmc::vision {
namespace {

/// The tokenizer of `model` (tiny-internvl, tiny-minicpmv).
std::unique_ptr<tokenizer::Tokenizer> loadTokenizer(llvm::StringRef model) {
  auto tokenizer = tokenizer::Tokenizer::fromFile(
      llmc::test::getRefdataPath("vlm/models/" + model.str()));
  if (!tokenizer.ok()) {
    ADD_FAILURE() << tokenizer.status().message();
    return nullptr;
  }
  return std::move(*tokenizer);
}

std::vector<int32_t> getPrompt(const llvm::json::Object &ids) {
  std::vector<int32_t> prompt;
  for (int64_t id : test::getIntegers(*ids.getArray("prompt")))
    prompt.push_back(static_cast<int32_t>(id));
  return prompt;
}

class ImagePromptTest : public ::testing::TestWithParam<const char *> {};

TEST_P(ImagePromptTest, InternVLPromptIsTheOfficialOne) {
  std::optional<test::VisionReference> reference =
      test::loadVisionReference("tiny-internvl", GetParam());
  std::unique_ptr<tokenizer::Tokenizer> tokenizer =
      loadTokenizer("tiny-internvl");
  ASSERT_TRUE(reference && tokenizer);
  TilingOptions tiling;
  tiling.tileSize = 112;
  tiling.maxTiles = 6;
  int64_t tiles = makeTiles(reference->image, tiling).size();
  std::string text = expandImageMarker(
      *reference->ids.getString("prompt_template_text"), "<image>",
      getInternVLImageText(tiles, /*tokensPerTile=*/16));
  std::vector<int32_t> ids = tokenizer->encode(text);
  EXPECT_EQ(ids, getPrompt(reference->ids));
  std::vector<int64_t> positions = findPlaceholders(
      ids, *tokenizer->tokenToId("<IMG_CONTEXT>"));
  EXPECT_EQ(static_cast<int64_t>(positions.size()),
            *reference->ids.getInteger("image_token_count"));
}

TEST_P(ImagePromptTest, MiniCPMVPromptIsTheOfficialOne) {
  std::optional<test::VisionReference> reference =
      test::loadVisionReference("tiny-minicpmv", GetParam());
  std::unique_ptr<tokenizer::Tokenizer> tokenizer =
      loadTokenizer("tiny-minicpmv");
  ASSERT_TRUE(reference && tokenizer);
  SlicingOptions slicing;
  slicing.scaleResolution = 112;
  std::optional<ImageGrid> grid = chooseSliceGrid(
      reference->image.width, reference->image.height, slicing);
  std::string text = expandImageMarker(
      *reference->ids.getString("prompt_template_text"), "(<image>./</image>)",
      getMiniCPMVImageText(/*imageId=*/0, /*queryNum=*/16, grid,
                           /*useImageId=*/true));
  std::vector<int32_t> ids = tokenizer->encode(text);
  EXPECT_EQ(ids, getPrompt(reference->ids));
  // The placeholders fill the image_bound ranges, in order.
  std::vector<int64_t> expected;
  for (const llvm::json::Value &bound : *reference->ids.getArray("image_bound")) {
    std::vector<int64_t> range = test::getIntegers(*bound.getAsArray());
    for (int64_t at = range[0]; at < range[1]; ++at)
      expected.push_back(at);
  }
  EXPECT_EQ(findPlaceholders(ids, *tokenizer->tokenToId("<unk>")),
            expected);
}

INSTANTIATE_TEST_SUITE_P(Images, ImagePromptTest,
                         ::testing::Values("chelsea", "synth_wide",
                                           "synth_tall", "synth_square"));

TEST(ImagePromptTextTest, MarkersAndTheirAbsence) {
  EXPECT_EQ(getInternVLImageText(1, 2),
            "<img><IMG_CONTEXT><IMG_CONTEXT></img>");
  EXPECT_EQ(getMiniCPMVImageText(3, 1, ImageGrid{2, 2}, true),
            "<image_id>3</image_id><image><unk></image>"
            "<slice><unk></slice><slice><unk></slice>\n"
            "<slice><unk></slice><slice><unk></slice>");
  EXPECT_EQ(getMiniCPMVImageText(0, 1, std::nullopt, false),
            "<image><unk></image>");
  EXPECT_EQ(expandImageMarker("a <image> b <image>", "<image>", "X"),
            "a X b <image>");
  EXPECT_EQ(expandImageMarker("no marker", "<image>", "X"), "no marker");
}

} // namespace
} // namespace llmc::vision
