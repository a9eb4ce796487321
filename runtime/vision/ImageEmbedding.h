//===- ImageEmbedding.h - an image into embeddings in a prompt --*- C++ -*-===//
//
// What runs between an image file and a vision-language model's prefill:
// the family's preprocessing into pixel values (InternVL's tiles,
// MiniCPM-V's source picture and slices), the `vision` piece once per tile
// or picture, the placeholder text that stands for the image in a prompt,
// and the embeddings placed, in order, at the prompt's placeholder tokens
// (Session::feed then uses them in place of those tokens' embeddings). The
// same steps serve the interpreter and compiled binaries: they need a
// PieceRunner and a VisionConfig, whichever says it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_IMAGEEMBEDDING_H
#define LLMC_RUNTIME_VISION_IMAGEEMBEDDING_H

#include "runtime/session/PieceRunner.h"
#include "runtime/session/Session.h"
#include "runtime/vision/Image.h"
#include "runtime/vision/InternVLTiles.h"
#include "runtime/vision/MiniCPMVInputs.h"
#include "runtime/vision/MiniCPMVSlices.h"

#include <optional>
#include <string>
#include <string_view>

namespace llmc::vision {

/// How a family turns an image into the vision piece's inputs.
enum class Preprocessing { InternVL, MiniCPMV };

/// "internvl" or "minicpmv".
std::string_view stringifyPreprocessing(Preprocessing preprocessing);
std::optional<Preprocessing> symbolizePreprocessing(std::string_view name);

/// A vision-language model's image handling: how an image becomes pieces'
/// inputs, what the vision piece makes of each, and the tokens that stand
/// for an image in a prompt.
struct VisionConfig {
  Preprocessing preprocessing = Preprocessing::InternVL;
  /// InternVL.
  TilingOptions tiling;
  /// MiniCPM-V.
  SlicingOptions slicing;
  MiniCPMVPieceSizes piece;
  bool useImageId = true;
  /// Embeddings per tile (InternVL) or picture (MiniCPM-V, its query_num),
  /// each of the language model's hidden size.
  int64_t tokensPerTile = 0;
  int64_t hiddenSize = 0;
  /// What a chat message writes where an image stands (`<image>`,
  /// `(<image>./</image>)`), and the token that stands for one embedding
  /// (`<IMG_CONTEXT>`, `<unk>`).
  std::string marker;
  std::string placeholder;
};

/// An image as the family's preprocessing gives it.
struct PreparedImage {
  /// InternVL: f32 [tiles, 3, S, S]. MiniCPM-V: f32 [pictures, 3, P,
  /// longest · P] as the official code pads them (the source picture, then
  /// the slices).
  top::Tensor pixelValues;
  /// MiniCPM-V: each picture's size in patches, and the slice grid.
  std::vector<ImageGrid> patchGrids;
  std::optional<ImageGrid> sliceGrid;

  /// Tiles or pictures: the vision piece's runs.
  int64_t getRuns() const { return pixelValues.getShape()[0]; }
};

/// `image` as the family's preprocessing prepares it.
PreparedImage preprocessImage(const Image &image, const VisionConfig &config);

/// Runs the `vision` piece on each tile or picture of `image`; returns the
/// embeddings, f32 [runs, tokensPerTile, hiddenSize]. Fails when the pixel
/// values or what the piece returns have another shape.
absl::StatusOr<top::Tensor> embedImage(session::PieceRunner &runner,
                                       const PreparedImage &image,
                                       const VisionConfig &config);

/// The prompt text that stands for `image`, the `index`th of its prompt:
/// InternVL's `<img>` + placeholders + `</img>`, MiniCPM-V's image and
/// slice placeholders.
std::string getImageText(const PreparedImage &image, int64_t index,
                         const VisionConfig &config);

/// The embeddings `rows` (each `hidden` wide, row-major) placed, in order,
/// at the tokens of `ids` equal to `placeholder`; an error when the counts
/// differ.
absl::StatusOr<session::PlacedEmbeddings>
placeEmbeddings(absl::Span<const int32_t> ids, int32_t placeholder,
                std::vector<float> rows, int64_t hidden);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_IMAGEEMBEDDING_H
