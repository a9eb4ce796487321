//===- ImageEmbedding.cpp - an image into embeddings in a prompt ----------===//

#include "runtime/vision/ImageEmbedding.h"

#include "runtime/vision/ImagePrompt.h"

#include "llvm/ADT/Twine.h"

namespace llmc::vision {

using top::Tensor;

static llvm::Error embeddingError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Tensor preprocessImage(const Image &image, const VisionConfig &config) {
  return getPixelValues(makeTiles(image, config.tiling));
}

llvm::Expected<Tensor> embedImage(session::PieceRunner &runner,
                                  const Tensor &pixelValues,
                                  const VisionConfig &config) {
  int64_t side = config.tiling.tileSize;
  llvm::ArrayRef<int64_t> shape = pixelValues.getShape();
  if (!pixelValues.isF32() || shape.size() != 4 || shape[0] < 1 ||
      shape[1] != 3 || shape[2] != side || shape[3] != side)
    return embeddingError("pixel values must be f32 [tiles, 3, " +
                          llvm::Twine(side) + ", " + llvm::Twine(side) +
                          "], not " + pixelValues.describe());
  int64_t tileValues = config.tokensPerTile * config.hiddenSize;
  std::vector<float> rows;
  rows.reserve(shape[0] * tileValues);
  for (int64_t tile = 0; tile < shape[0]; ++tile) {
    llvm::Expected<std::vector<Tensor>> outputs =
        runner.run("vision", {pixelValues.getOuterSlice(tile)});
    if (!outputs)
      return outputs.takeError();
    if (outputs->empty() || !(*outputs)[0].isF32() ||
        (*outputs)[0].getNumElements() != tileValues)
      return embeddingError(
          "piece vision returned " +
          (outputs->empty() ? std::string("nothing")
                            : (*outputs)[0].describe()) +
          ", not " + llvm::Twine(config.tokensPerTile) + " embeddings of " +
          llvm::Twine(config.hiddenSize));
    llvm::ArrayRef<float> values = std::as_const((*outputs)[0]).getF32();
    rows.insert(rows.end(), values.begin(), values.end());
  }
  return Tensor::fromF32({shape[0], config.tokensPerTile, config.hiddenSize},
                         std::move(rows));
}

llvm::Expected<session::PlacedEmbeddings>
placeEmbeddings(llvm::ArrayRef<int32_t> ids, int32_t placeholder,
                const Tensor &embeddings) {
  llvm::ArrayRef<int64_t> shape = embeddings.getShape();
  if (!embeddings.isF32() || shape.empty() || shape.back() < 1)
    return embeddingError("image embeddings must be f32 [..., hidden], not " +
                          embeddings.describe());
  int64_t hidden = shape.back();
  int64_t rows = embeddings.getNumElements() / hidden;
  session::PlacedEmbeddings placed;
  placed.positions = findPlaceholders(ids, placeholder);
  if (static_cast<int64_t>(placed.positions.size()) != rows)
    return embeddingError(
        "the prompt holds " + llvm::Twine(placed.positions.size()) +
        " image placeholder tokens (id " + llvm::Twine(placeholder) +
        ") but the images give " + llvm::Twine(rows) + " embeddings");
  llvm::ArrayRef<float> values = embeddings.getF32();
  placed.rows.assign(values.begin(), values.end());
  return placed;
}

} // namespace llmc::vision
