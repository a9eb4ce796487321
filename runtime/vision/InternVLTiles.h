//===- InternVLTiles.h - InternVL's dynamic tiling of an image --*- C++ -*-===//
//
// InternVL sees an image as square tiles of its vision tower's input size:
// the grid of at most `maxTiles` tiles whose aspect ratio is closest to the
// image's (`dynamic_preprocess` of the official code), the image resized to
// the grid and cut row by row, and, when there is more than one tile, a
// thumbnail of the whole image last. The tiles are normalized with the
// ImageNet mean and standard deviation into the pixel values the vision
// pieces take.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_INTERNVLTILES_H
#define LLMC_RUNTIME_VISION_INTERNVLTILES_H

#include "dialects/top/Interpreter/Tensor.h"
#include "runtime/vision/Image.h"

#include <vector>

namespace llmc::vision {

struct TilingOptions {
  /// The side of a tile in pixels (config.json's force_image_size).
  int64_t tileSize = 448;
  /// min_dynamic_patch, max_dynamic_patch.
  int64_t minTiles = 1;
  int64_t maxTiles = 12;
  /// use_thumbnail.
  bool thumbnail = true;
};

/// The grid `dynamic_preprocess` chooses for a `width` x `height` image:
/// among the grids of minTiles..maxTiles tiles, by increasing count, the
/// one whose cols/rows is closest to width/height; at an equal distance a
/// later grid wins when the image has more than half its pixels.
ImageGrid chooseTileGrid(int64_t width, int64_t height,
                        const TilingOptions &options);

/// The tiles of `image`: the grid's, row-major, then the thumbnail.
std::vector<Image> makeTiles(const Image &image, const TilingOptions &options);

/// Tiles as the vision tower's input: f32 [tiles, 3, side, side], each
/// channel scaled to [0, 1] and normalized with ImageNet's mean and standard
/// deviation, as torchvision's ToTensor and Normalize compute it.
top::Tensor getPixelValues(absl::Span<const Image> tiles);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_INTERNVLTILES_H
