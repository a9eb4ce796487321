//===- ImagePromptTest.cpp - prompts with images against the references ---===//
//
// The reference prompts (../shared/refdata/vlm) are the official chat code's
// token ids: the chat text with its image marker expanded for the image's
// tiles or slices, encoded by the model's tokenizer.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/vision/ImageFile.h"
#include "runtime/vision/ImagePrompt.h"
#include "runtime/vision/InternVLTiles.h"
#include "runtime/vision/MiniCPMVSlices.h"

#include "tests/TestData.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

namespace llmc::vision {
namespace {

struct Reference {
  llvm::json::Object ids;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  Image image;
};

Reference load(llvm::StringRef model, llvm::StringRef image) {
  Reference reference;
  std::string path = test::getRefdataPath("vlm/refs") + "/" + model.str() +
                     "." + image.str() + ".ids.json";
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text) {
    ADD_FAILURE() << "cannot read " << path;
    return reference;
  }
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*text)->getBuffer());
  if (!json) {
    ADD_FAILURE() << toString(json.takeError());
    return reference;
  }
  reference.ids = std::move(*json->getAsObject());
  auto tokenizer = tokenizer::Tokenizer::fromFile(
      test::getRefdataPath("vlm/models/" + model.str()));
  if (!tokenizer) {
    ADD_FAILURE() << toString(tokenizer.takeError());
    return reference;
  }
  reference.tokenizer = std::move(*tokenizer);
  llvm::Expected<Image> decoded =
      readImageFile(test::getRefdataPath("vlm/images/" + image.str() + ".png"));
  if (!decoded) {
    ADD_FAILURE() << toString(decoded.takeError());
    return reference;
  }
  reference.image = std::move(*decoded);
  return reference;
}

std::vector<int32_t> getPrompt(const llvm::json::Object &ids) {
  std::vector<int32_t> prompt;
  for (const llvm::json::Value &id : *ids.getArray("prompt"))
    prompt.push_back(static_cast<int32_t>(*id.getAsInteger()));
  return prompt;
}

class ImagePromptTest : public ::testing::TestWithParam<const char *> {};

TEST_P(ImagePromptTest, InternVLPromptIsTheOfficialOne) {
  Reference reference = load("tiny-internvl", GetParam());
  ASSERT_TRUE(reference.tokenizer);
  TilingOptions tiling;
  tiling.tileSize = 112;
  tiling.maxTiles = 6;
  int64_t tiles = makeTiles(reference.image, tiling).size();
  std::string text = expandImageMarker(
      *reference.ids.getString("prompt_template_text"), "<image>",
      getInternVLImageText(tiles, /*tokensPerTile=*/16));
  std::vector<int32_t> ids = reference.tokenizer->encode(text);
  EXPECT_EQ(ids, getPrompt(reference.ids));
  std::vector<int64_t> positions = findPlaceholders(
      ids, *reference.tokenizer->tokenToId("<IMG_CONTEXT>"));
  EXPECT_EQ(static_cast<int64_t>(positions.size()),
            *reference.ids.getInteger("image_token_count"));
}

TEST_P(ImagePromptTest, MiniCPMVPromptIsTheOfficialOne) {
  Reference reference = load("tiny-minicpmv", GetParam());
  ASSERT_TRUE(reference.tokenizer);
  SlicingOptions slicing;
  slicing.scaleResolution = 112;
  std::optional<ImageGrid> grid = chooseSliceGrid(
      reference.image.width, reference.image.height, slicing);
  std::string text = expandImageMarker(
      *reference.ids.getString("prompt_template_text"), "(<image>./</image>)",
      getMiniCPMVImageText(/*imageId=*/0, /*queryNum=*/16, grid,
                           /*useImageId=*/true));
  std::vector<int32_t> ids = reference.tokenizer->encode(text);
  EXPECT_EQ(ids, getPrompt(reference.ids));
  // The placeholders fill the image_bound ranges, in order.
  std::vector<int64_t> expected;
  for (const llvm::json::Value &bound : *reference.ids.getArray("image_bound"))
    for (int64_t at = *(*bound.getAsArray())[0].getAsInteger();
         at < *(*bound.getAsArray())[1].getAsInteger(); ++at)
      expected.push_back(at);
  EXPECT_EQ(findPlaceholders(ids, *reference.tokenizer->tokenToId("<unk>")),
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
