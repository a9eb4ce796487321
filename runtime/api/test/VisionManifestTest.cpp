//===- VisionManifestTest.cpp - a binary's image handling, checked --------===//
//
// Manifests a broken or hostile writer could produce: each size out of
// bounds, an unknown preprocessing, and a vision piece that does not take
// what the manifest says, are errors before any image is read.
//
//===----------------------------------------------------------------------===//

#include "runtime/api/VisionManifest.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <functional>

namespace llmc {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kHidden = 128;

void addTensor(google::protobuf::RepeatedPtrField<binary::Tensor> &tensors,
               std::vector<int64_t> shape) {
  binary::Tensor &tensor = *tensors.Add();
  for (int64_t dim : shape)
    tensor.add_shape(dim);
}

/// An InternVL manifest: tiles of 112 pixels into 16 embeddings.
binary::Manifest makeInternVL() {
  binary::Manifest manifest;
  binary::VisionInfo &vision = *manifest.mutable_vision();
  vision.set_preprocessing("internvl");
  vision.set_tile_size(112);
  vision.set_min_tiles(1);
  vision.set_max_tiles(6);
  vision.set_thumbnail(true);
  vision.set_tokens_per_tile(16);
  vision.set_placeholder("<IMG_CONTEXT>");
  vision.set_marker("<image>");
  binary::Piece &piece = *manifest.add_pieces();
  piece.set_name("vision");
  addTensor(*piece.mutable_inputs(), {1, 3, 112, 112});
  addTensor(*piece.mutable_outputs(), {1, 16, kHidden});
  return manifest;
}

/// A MiniCPM-V manifest: pictures of up to 81 patches into 16 embeddings.
binary::Manifest makeMiniCPMV() {
  binary::Manifest manifest;
  binary::VisionInfo &vision = *manifest.mutable_vision();
  vision.set_preprocessing("minicpmv");
  vision.set_tokens_per_tile(16);
  vision.set_placeholder("<unk>");
  vision.set_marker("(<image>./</image>)");
  vision.set_scale_resolution(112);
  vision.set_max_slices(9);
  vision.set_patch_size(14);
  vision.set_positions_per_side(20);
  vision.set_max_patches(81);
  vision.set_use_image_id(true);
  binary::Piece &piece = *manifest.add_pieces();
  piece.set_name("vision");
  for (std::vector<int64_t> shape :
       std::vector<std::vector<int64_t>>{{1, 3, 14, 81 * 14},
                                         {1, 81},
                                         {1, 81, 81},
                                         {1, 81, kHidden},
                                         {1, 16, 81}})
    addTensor(*piece.mutable_inputs(), shape);
  addTensor(*piece.mutable_outputs(), {1, 16, kHidden});
  return manifest;
}

std::string errorOf(const binary::Manifest &manifest) {
  absl::StatusOr<vision::VisionConfig> config =
      readVisionConfig(manifest, kHidden);
  return config.ok() ? std::string() : std::string(config.status().message());
}

TEST(VisionManifestTest, ReadsBothFamilies) {
  absl::StatusOr<vision::VisionConfig> intern =
      readVisionConfig(makeInternVL(), kHidden);
  ASSERT_TRUE(intern.ok()) << intern.status().message();
  EXPECT_EQ(intern->tiling.maxTiles, 6);
  EXPECT_EQ(intern->tokensPerTile, 16);
  absl::StatusOr<vision::VisionConfig> minicpm =
      readVisionConfig(makeMiniCPMV(), kHidden);
  ASSERT_TRUE(minicpm.ok()) << minicpm.status().message();
  EXPECT_EQ(minicpm->preprocessing, vision::Preprocessing::MiniCPMV);
  EXPECT_EQ(minicpm->piece.maxPatches, 81);
  EXPECT_EQ(minicpm->piece.embedDim, kHidden);
}

TEST(VisionManifestTest, RefusesSizesOutOfBounds) {
  using Edit = std::function<void(binary::Manifest &)>;
  const std::pair<Edit, const char *> internvl[] = {
      {[](binary::Manifest &m) { m.mutable_vision()->set_preprocessing("x"); },
       "preprocessing 'x' is unknown"},
      {[](binary::Manifest &m) { m.mutable_vision()->set_tile_size(1 << 30); },
       "tile_size 1073741824 is outside [1, 4096]"},
      {[](binary::Manifest &m) { m.mutable_vision()->set_max_tiles(100000); },
       "tiles [1, 100000] are not within [1, 256]"},
      {[](binary::Manifest &m) { m.mutable_vision()->set_min_tiles(0); },
       "tiles [0, 6]"},
      {[](binary::Manifest &m) {
         m.mutable_vision()->set_tokens_per_tile(INT64_MAX);
       },
       "tokens_per_tile 9223372036854775807 is outside"},
      {[](binary::Manifest &m) { m.mutable_vision()->clear_marker(); },
       "has no image marker"},
  };
  for (const auto &[edit, message] : internvl) {
    binary::Manifest manifest = makeInternVL();
    edit(manifest);
    EXPECT_THAT(errorOf(manifest), HasSubstr(message));
  }
  binary::Manifest patches = makeMiniCPMV();
  patches.mutable_vision()->set_max_patches(int64_t(1) << 40);
  EXPECT_THAT(errorOf(patches), HasSubstr("are out of bounds"));
}

TEST(VisionManifestTest, RefusesAPieceThatTakesOtherInputs) {
  binary::Manifest missing = makeInternVL();
  missing.clear_pieces();
  EXPECT_THAT(errorOf(missing),
              HasSubstr("needs a piece 'vision' that takes [1, 3, 112, 112]"));
  binary::Manifest otherSize = makeInternVL();
  otherSize.mutable_vision()->set_tile_size(224);
  EXPECT_THAT(errorOf(otherSize), HasSubstr("[1, 3, 224, 224]"));
  binary::Manifest otherTokens = makeMiniCPMV();
  otherTokens.mutable_vision()->set_tokens_per_tile(64);
  EXPECT_THAT(errorOf(otherTokens), HasSubstr("to 64 embeddings of 128"));
}

} // namespace
} // namespace llmc
