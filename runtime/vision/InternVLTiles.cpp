//===- InternVLTiles.cpp - InternVL's dynamic tiling of an image ----------===//

#include "runtime/vision/InternVLTiles.h"

#include "runtime/vision/Resize.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace llmc::vision {

/// The candidate grids by tile count, and within one count by columns. The
/// official code orders grids of one count as CPython iterates a set, which
/// differs; but the order within a count decides only an exact tie between
/// two of its grids, and none decides the choice: for at most 6 or 12
/// tiles and every image up to 1200 x 1200 both orders choose alike.
static std::vector<ImageGrid> getCandidateGrids(const TilingOptions &options) {
  std::vector<ImageGrid> grids;
  for (int64_t cols = 1; cols <= options.maxTiles; ++cols)
    for (int64_t rows = 1; rows <= options.maxTiles; ++rows)
      if (cols * rows >= options.minTiles && cols * rows <= options.maxTiles)
        grids.push_back({cols, rows});
  std::stable_sort(grids.begin(), grids.end(),
                   [](const ImageGrid &a, const ImageGrid &b) {
                     return a.cols * a.rows < b.cols * b.rows;
                   });
  return grids;
}

ImageGrid chooseTileGrid(int64_t width, int64_t height,
                        const TilingOptions &options) {
  double aspectRatio = static_cast<double>(width) / height;
  double bestDifference = std::numeric_limits<double>::infinity();
  ImageGrid best;
  double area = static_cast<double>(width) * height;
  double tileArea = static_cast<double>(options.tileSize) * options.tileSize;
  for (const ImageGrid &grid : getCandidateGrids(options)) {
    double difference =
        std::fabs(aspectRatio - static_cast<double>(grid.cols) / grid.rows);
    if (difference < bestDifference) {
      bestDifference = difference;
      best = grid;
    } else if (difference == bestDifference &&
               area > 0.5 * tileArea * grid.cols * grid.rows) {
      best = grid;
    }
  }
  return best;
}

std::vector<Image> makeTiles(const Image &image, const TilingOptions &options) {
  ImageGrid grid = chooseTileGrid(image.width, image.height, options);
  int64_t side = options.tileSize;
  Image resized = resizeBicubic(image, side * grid.cols, side * grid.rows);
  std::vector<Image> tiles;
  for (int64_t row = 0; row < grid.rows; ++row)
    for (int64_t col = 0; col < grid.cols; ++col)
      tiles.push_back(resized.crop(col * side, row * side, side, side));
  if (options.thumbnail && tiles.size() != 1)
    tiles.push_back(resizeBicubic(image, side, side));
  return tiles;
}

top::Tensor getPixelValues(absl::Span<const Image> tiles) {
  static const float mean[3] = {0.485f, 0.456f, 0.406f};
  static const float deviation[3] = {0.229f, 0.224f, 0.225f};
  assert(!tiles.empty() && "no tiles");
  int64_t side = tiles.front().width;
  std::vector<float> values;
  values.reserve(tiles.size() * 3 * side * side);
  for (const Image &tile : tiles) {
    assert(tile.width == side && tile.height == side && "tiles differ");
    for (int channel = 0; channel < 3; ++channel)
      for (int64_t y = 0; y < side; ++y)
        for (int64_t x = 0; x < side; ++x) {
          float scaled = static_cast<float>(tile.pixel(x, y)[channel]) / 255.0f;
          values.push_back((scaled - mean[channel]) / deviation[channel]);
        }
  }
  return top::Tensor::fromF32(
      {static_cast<int64_t>(tiles.size()), 3, side, side}, std::move(values));
}

} // namespace llmc::vision
