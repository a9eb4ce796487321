//===- ImageEmbedding.cpp - an image into embeddings in a prompt ----------===//

#include "runtime/vision/ImageEmbedding.h"

#include "runtime/vision/ImagePrompt.h"

#include "support/Strings.h"

namespace llmc::vision {

using top::Tensor;

using support::strCat;

static absl::Status embeddingError(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

std::string_view stringifyPreprocessing(Preprocessing preprocessing) {
  return preprocessing == Preprocessing::InternVL ? "internvl" : "minicpmv";
}

std::optional<Preprocessing> symbolizePreprocessing(std::string_view name) {
  if (name == "internvl")
    return Preprocessing::InternVL;
  if (name == "minicpmv")
    return Preprocessing::MiniCPMV;
  return std::nullopt;
}

PreparedImage preprocessImage(const Image &image, const VisionConfig &config) {
  PreparedImage prepared;
  if (config.preprocessing == Preprocessing::InternVL) {
    prepared.pixelValues = getPixelValues(makeTiles(image, config.tiling));
    return prepared;
  }
  SlicedImage sliced = sliceImage(image, config.slicing);
  std::vector<Image> pictures = {std::move(sliced.source)};
  for (Image &slice : sliced.slices)
    pictures.push_back(std::move(slice));
  PatchedPixels patched = getPatchedPixels(pictures, config.slicing.patchSize);
  prepared.pixelValues = std::move(patched.values);
  prepared.patchGrids = std::move(patched.patchGrids);
  prepared.sliceGrid = sliced.grid;
  return prepared;
}

/// The vision piece's inputs for tile or picture `index` of `image`.
static absl::StatusOr<std::vector<Tensor>>
getPieceInputs(const PreparedImage &image, int64_t index,
               const VisionConfig &config) {
  if (config.preprocessing == Preprocessing::MiniCPMV)
    return getMiniCPMVPieceInputs(image.pixelValues, index,
                                  image.patchGrids[index], config.piece);
  return std::vector<Tensor>{image.pixelValues.getOuterSlice(index)};
}

absl::StatusOr<Tensor> embedImage(session::PieceRunner &runner,
                                  const PreparedImage &image,
                                  const VisionConfig &config) {
  const Tensor &pixelValues = image.pixelValues;
  absl::Span<const int64_t> shape = pixelValues.getShape();
  if (config.preprocessing == Preprocessing::InternVL) {
    int64_t side = config.tiling.tileSize;
    if (!pixelValues.isF32() || shape.size() != 4 || shape[0] < 1 ||
        shape[1] != 3 || shape[2] != side || shape[3] != side)
      return embeddingError(strCat("pixel values must be f32 [tiles, 3, ", side,
                                   ", ", side, "], not ",
                                   pixelValues.describe()));
  } else if (shape.empty() ||
             static_cast<int64_t>(image.patchGrids.size()) != shape[0]) {
    return embeddingError("MiniCPM-V's pixel values need each picture's size "
                          "in patches");
  }
  int64_t tileValues = config.tokensPerTile * config.hiddenSize;
  std::vector<float> rows;
  rows.reserve(shape[0] * tileValues);
  for (int64_t tile = 0; tile < shape[0]; ++tile) {
    LLMC_ASSIGN_OR_RETURN(std::vector<Tensor> inputs,
                          getPieceInputs(image, tile, config));
    LLMC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                          runner.run("vision", inputs));
    if (outputs.empty() || !outputs[0].isF32() ||
        outputs[0].getNumElements() != tileValues)
      return absl::InternalError(strCat("piece vision returned ",
                                        outputs.empty() ? std::string("nothing")
                                                        : outputs[0].describe(),
                                        ", not ", config.tokensPerTile,
                                        " embeddings of ", config.hiddenSize));
    absl::Span<const float> values = std::as_const(outputs[0]).getF32();
    rows.insert(rows.end(), values.begin(), values.end());
  }
  return Tensor::fromF32({shape[0], config.tokensPerTile, config.hiddenSize},
                         std::move(rows));
}

std::string getImageText(const PreparedImage &image, int64_t index,
                         const VisionConfig &config) {
  if (config.preprocessing == Preprocessing::InternVL)
    return getInternVLImageText(image.getRuns(), config.tokensPerTile);
  return getMiniCPMVImageText(index, config.tokensPerTile, image.sliceGrid,
                              config.useImageId);
}

absl::StatusOr<session::PlacedEmbeddings>
placeEmbeddings(absl::Span<const int32_t> ids, int32_t placeholder,
                std::vector<float> rows, int64_t hidden) {
  session::PlacedEmbeddings placed;
  placed.positions = findPlaceholders(ids, placeholder);
  int64_t count = static_cast<int64_t>(rows.size()) / hidden;
  if (static_cast<int64_t>(placed.positions.size()) != count)
    return embeddingError(strCat("the prompt holds ", placed.positions.size(),
                                 " image placeholder tokens (id ", placeholder,
                                 ") but the images give ", count,
                                 " embeddings"));
  placed.rows = std::move(rows);
  return placed;
}

} // namespace llmc::vision
