//===- VisionManifest.cpp - a binary's image handling, checked ------------===//

#include "runtime/api/VisionManifest.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

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

static llvm::Error invalid(const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "manifest vision: " + problem);
}

llvm::Expected<vision::VisionConfig>
readVisionInfo(const binary::VisionInfo &info, int64_t hiddenSize) {
  // Bounds that keep a hostile manifest from sizing huge images: real
  // models tile at most 448 pixels, 12 (InternVL) or 40 tiles, and take
  // about 1000 patches a picture (MiniCPM-V).
  constexpr int64_t kMaxSide = 4096, kMaxTiles = 256, kMaxPatches = 1 << 16;
  std::optional<vision::Preprocessing> preprocessing =
      vision::symbolizePreprocessing(info.preprocessing());
  if (!preprocessing)
    return invalid("preprocessing '" + info.preprocessing() +
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
    return invalid("tokens_per_tile " + llvm::Twine(info.tokens_per_tile()) +
                   " is outside [1, " + llvm::Twine(kMaxPatches) + "]");
  if (*preprocessing == vision::Preprocessing::InternVL) {
    if (info.tile_size() < 1 || info.tile_size() > kMaxSide)
      return invalid("tile_size " + llvm::Twine(info.tile_size()) +
                     " is outside [1, " + llvm::Twine(kMaxSide) + "]");
    if (info.min_tiles() < 1 || info.max_tiles() < info.min_tiles() ||
        info.max_tiles() > kMaxTiles)
      return invalid("tiles [" + llvm::Twine(info.min_tiles()) + ", " +
                     llvm::Twine(info.max_tiles()) + "] are not within [1, " +
                     llvm::Twine(kMaxTiles) + "]");
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
      return invalid("the slicing sizes (scale_resolution " +
                     llvm::Twine(info.scale_resolution()) + ", patch " +
                     llvm::Twine(info.patch_size()) + ", max_slices " +
                     llvm::Twine(info.max_slices()) + ", max_patches " +
                     llvm::Twine(info.max_patches()) + ", positions " +
                     llvm::Twine(info.positions_per_side()) +
                     ") are out of bounds");
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

llvm::Expected<vision::VisionConfig>
readVisionConfig(const binary::Manifest &manifest, int64_t hiddenSize) {
  llvm::Expected<vision::VisionConfig> read =
      readVisionInfo(manifest.vision(), hiddenSize);
  if (!read)
    return read.takeError();
  const vision::VisionConfig &config = *read;
  const binary::VisionInfo &info = manifest.vision();
  const binary::Piece *piece = nullptr;
  for (const binary::Piece &candidate : manifest.pieces())
    if (candidate.name() == "vision")
      piece = &candidate;
  std::vector<std::vector<int64_t>> shapes = getVisionInputShapes(config);
  bool matches = piece && piece->inputs_size() ==
                              static_cast<int>(shapes.size()) &&
                 piece->outputs_size() == 1 && info.tokens_per_tile() >= 1;
  for (int index = 0; matches && index < piece->inputs_size(); ++index)
    matches = llvm::ArrayRef<int64_t>(piece->inputs(index).shape().data(),
                                      piece->inputs(index).shape().size()) ==
              llvm::ArrayRef<int64_t>(shapes[index]);
  if (matches) {
    int64_t count = 1;
    for (int64_t dim : piece->outputs(0).shape())
      count = dim > 0 && count <= INT64_MAX / dim ? count * dim : -1;
    matches = count == info.tokens_per_tile() * config.hiddenSize;
  }
  if (!matches)
    return invalid("needs a piece 'vision' that takes [" +
                   llvm::join(llvm::map_range(shapes.front(),
                                              [](int64_t dim) {
                                                return std::to_string(dim);
                                              }),
                              ", ") +
                   "] pixels (and the family's other inputs) to " +
                   llvm::Twine(info.tokens_per_tile()) + " embeddings of " +
                   llvm::Twine(config.hiddenSize));
  return read;
}

} // namespace llmc
