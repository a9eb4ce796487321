//===- VisionManifest.cpp - a binary's image handling, checked ------------===//

#include "runtime/api/VisionManifest.h"

#include "support/Status.h"
#include "support/Strings.h"

namespace llmc {

std::vector<std::vector<int64_t>>
getVisionInputShapes(const vision::VisionConfig &config) {
  if (config.preprocessing == vision::Preprocessing::InternVL) {
    int64_t side = config.tiling.tileSize;
    return {{1, 3, side, side}};
  }
  const vision::MiniCPMVPieceSizes &piece = config.piece;
  int64_t length = piece.maxPatches, p = piece.patchSize;
  return {{1, 3, p, length * p},
          {1, length},
          {1, length, length},
          {1, length, piece.embedDim},
          {1, piece.queryNum, length}};
}

template <typename... Pieces>
static absl::Status invalid(const Pieces &...problem) {
  return absl::InvalidArgumentError(
      support::strCat("manifest vision: ", problem...));
}

absl::StatusOr<vision::VisionConfig>
readVisionInfo(const binary::VisionInfo &info, int64_t hiddenSize) {
  // Bounds that keep a hostile manifest from sizing huge images: real
  // models tile at most 448 pixels, 12 (InternVL) or 40 tiles, and take
  // about 1000 patches a picture (MiniCPM-V).
  constexpr int64_t kMaxSide = 4096, kMaxTiles = 256, kMaxPatches = 1 << 16;
  std::optional<vision::Preprocessing> preprocessing =
      vision::symbolizePreprocessing(info.preprocessing());
  if (!preprocessing)
    return invalid("preprocessing '", info.preprocessing(),
                   "' is unknown (this build knows internvl and minicpmv)");
  vision::VisionConfig config;
  config.preprocessing = *preprocessing;
  config.tokensPerTile = info.tokens_per_tile();
  config.hiddenSize = hiddenSize;
  config.placeholder = info.placeholder();
  config.marker = info.marker();
  if (config.marker.empty())
    return invalid("has no image marker");
  if (info.tokens_per_tile() < 1 || info.tokens_per_tile() > kMaxPatches)
    return invalid("tokens_per_tile ", info.tokens_per_tile(),
                   " is outside [1, ", kMaxPatches, "]");
  if (*preprocessing == vision::Preprocessing::InternVL) {
    if (info.tile_size() < 1 || info.tile_size() > kMaxSide)
      return invalid("tile_size ", info.tile_size(), " is outside [1, ",
                     kMaxSide, "]");
    if (info.min_tiles() < 1 || info.max_tiles() < info.min_tiles() ||
        info.max_tiles() > kMaxTiles)
      return invalid("tiles [", info.min_tiles(), ", ", info.max_tiles(),
                     "] are not within [1, ", kMaxTiles, "]");
    config.tiling.tileSize = info.tile_size();
    config.tiling.minTiles = info.min_tiles();
    config.tiling.maxTiles = info.max_tiles();
    config.tiling.thumbnail = info.thumbnail();
  } else {
    if (info.patch_size() < 1 || info.scale_resolution() < info.patch_size() ||
        info.scale_resolution() > kMaxSide || info.max_slices() < 1 ||
        info.max_slices() > kMaxTiles || info.max_patches() < 1 ||
        info.max_patches() > kMaxPatches || info.positions_per_side() < 1 ||
        info.positions_per_side() > kMaxSide)
      return invalid("the slicing sizes (scale_resolution ",
                     info.scale_resolution(), ", patch ", info.patch_size(),
                     ", max_slices ", info.max_slices(), ", max_patches ",
                     info.max_patches(), ", positions ",
                     info.positions_per_side(), ") are out of bounds");
    config.slicing.scaleResolution = info.scale_resolution();
    config.slicing.maxSlices = info.max_slices();
    config.slicing.patchSize = info.patch_size();
    config.piece.patchSize = info.patch_size();
    config.piece.maxPatches = info.max_patches();
    config.piece.positionsPerSide = info.positions_per_side();
    config.piece.queryNum = info.tokens_per_tile();
    config.piece.embedDim = config.hiddenSize;
    config.useImageId = info.use_image_id();
  }
  return config;
}

absl::StatusOr<vision::VisionConfig>
readVisionConfig(const binary::Manifest &manifest, int64_t hiddenSize) {
  LLMC_ASSIGN_OR_RETURN(vision::VisionConfig config,
                        readVisionInfo(manifest.vision(), hiddenSize));
  const binary::VisionInfo &info = manifest.vision();
  const binary::Piece *piece = nullptr;
  for (const binary::Piece &candidate : manifest.pieces())
    if (candidate.name() == "vision")
      piece = &candidate;
  std::vector<std::vector<int64_t>> shapes = getVisionInputShapes(config);
  bool matches = piece &&
                 piece->inputs_size() == static_cast<int>(shapes.size()) &&
                 piece->outputs_size() == 1 && info.tokens_per_tile() >= 1;
  for (int index = 0; matches && index < piece->inputs_size(); ++index) {
    const auto &shape = piece->inputs(index).shape();
    matches = std::vector<int64_t>(shape.begin(), shape.end()) == shapes[index];
  }
  if (matches) {
    int64_t count = 1;
    for (int64_t dim : piece->outputs(0).shape())
      count = dim > 0 && count <= INT64_MAX / dim ? count * dim : -1;
    matches = count == info.tokens_per_tile() * config.hiddenSize;
  }
  if (!matches) {
    std::vector<std::string> pixels;
    for (int64_t dim : shapes.front())
      pixels.push_back(std::to_string(dim));
    return invalid(
        "needs a piece 'vision' that takes [", support::join(pixels, ", "),
        "] pixels (and the family's other inputs) to ", info.tokens_per_tile(),
        " embeddings of ", config.hiddenSize);
  }
  return config;
}

} // namespace llmc
