//===- ImageEmbedding.h - an image into embeddings in a prompt --*- C++ -*-===//
//
// What runs between an image file and a vision-language model's prefill:
// the family's preprocessing into pixel values, the `vision` piece once per
// tile, and the embeddings placed, in order, at the prompt's placeholder
// tokens (Session::feed then uses them in place of those tokens'
// embeddings). The same steps serve the interpreter and compiled binaries:
// they need a PieceRunner and a VisionConfig, whichever says it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_IMAGEEMBEDDING_H
#define LLMC_RUNTIME_VISION_IMAGEEMBEDDING_H

#include "runtime/session/PieceRunner.h"
#include "runtime/session/Session.h"
#include "runtime/vision/Image.h"
#include "runtime/vision/InternVLTiles.h"

#include <string>

namespace llmc::vision {

/// A vision-language model's image handling (InternVL's): how an image is
/// tiled, what the vision piece makes of a tile, and the token that stands
/// for one embedding in a prompt.
struct VisionConfig {
  TilingOptions tiling;
  /// Embeddings per tile, each of the language model's hidden size.
  int64_t tokensPerTile = 0;
  int64_t hiddenSize = 0;
  /// The placeholder token's text (`<IMG_CONTEXT>`).
  std::string placeholder;
};

/// `image` as the vision piece's input: InternVL's tiles, f32
/// [tiles, 3, tileSize, tileSize].
top::Tensor preprocessImage(const Image &image, const VisionConfig &config);

/// Runs the `vision` piece on each tile of `pixelValues` [tiles, 3, S, S];
/// returns the embeddings, f32 [tiles, tokensPerTile, hiddenSize]. Fails
/// when the pixel values or what the piece returns have another shape.
llvm::Expected<top::Tensor> embedImage(session::PieceRunner &runner,
                                       const top::Tensor &pixelValues,
                                       const VisionConfig &config);

/// The rows of `embeddings` (f32 [..., hidden]) placed, in order, at the
/// tokens of `ids` equal to `placeholder`; an error when the counts differ.
llvm::Expected<session::PlacedEmbeddings>
placeEmbeddings(llvm::ArrayRef<int32_t> ids, int32_t placeholder,
                const top::Tensor &embeddings);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_IMAGEEMBEDDING_H
