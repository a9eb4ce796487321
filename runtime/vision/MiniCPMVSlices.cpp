//===- MiniCPMVSlices.cpp - MiniCPM-V's slicing of an image ---------------===//

#include "runtime/vision/MiniCPMVSlices.h"

#include "runtime/vision/Resize.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace llmc::vision {

/// ensure_divide: `length` rounded to a multiple of `divisor` (halves to
/// even, as Python's round), at least `divisor`.
static int64_t roundToMultiple(double length, int64_t divisor) {
  return std::max(static_cast<int64_t>(std::nearbyint(length / divisor)) *
                      divisor,
                  divisor);
}

/// find_best_resize: a picture of (width, height) scaled to about
/// scaleResolution squared when larger (or `upscale`), sides rounded to
/// patches.
static std::pair<int64_t, int64_t> findBestSize(double width, double height,
                                                const SlicingOptions &options,
                                                bool upscale) {
  double side = static_cast<double>(options.scaleResolution);
  if (width * height > side * side || upscale) {
    double ratio = width / height;
    height = static_cast<double>(static_cast<int64_t>(side / std::sqrt(ratio)));
    width = static_cast<double>(static_cast<int64_t>(height * ratio));
  }
  return {roundToMultiple(width, options.patchSize),
          roundToMultiple(height, options.patchSize)};
}

std::optional<ImageGrid> chooseSliceGrid(int64_t width, int64_t height,
                                         const SlicingOptions &options) {
  double logRatio = std::log(static_cast<double>(width) / height);
  double area = static_cast<double>(width) * height /
                (static_cast<double>(options.scaleResolution) *
                 options.scaleResolution);
  int64_t multiple =
      std::min(static_cast<int64_t>(std::ceil(area)), options.maxSlices);
  if (multiple <= 1)
    return std::nullopt;
  std::optional<ImageGrid> best;
  double smallest = std::numeric_limits<double>::infinity();
  for (int64_t count : {multiple - 1, multiple, multiple + 1}) {
    if (count == 1 || count > options.maxSlices)
      continue;
    for (int64_t cols = 1; cols <= count; ++cols) {
      if (count % cols != 0)
        continue;
      ImageGrid grid{cols, count / cols};
      double error = std::fabs(
          logRatio - std::log(static_cast<double>(grid.cols) / grid.rows));
      if (error < smallest) {
        smallest = error;
        best = grid;
      }
    }
  }
  return best;
}

SlicedImage sliceImage(const Image &image, const SlicingOptions &options) {
  SlicedImage sliced;
  sliced.grid = chooseSliceGrid(image.width, image.height, options);
  auto [width, height] = findBestSize(image.width, image.height, options,
                                      /*upscale=*/!sliced.grid);
  sliced.source = resizeBicubic(image, width, height);
  if (!sliced.grid)
    return sliced;
  // get_refine_size: the image rounded to the grid, each slice's size found
  // as a picture's, then the grid of them.
  const ImageGrid &grid = *sliced.grid;
  double sliceWidth =
      static_cast<double>(roundToMultiple(image.width, grid.cols)) / grid.cols;
  double sliceHeight =
      static_cast<double>(roundToMultiple(image.height, grid.rows)) / grid.rows;
  auto [bestWidth, bestHeight] =
      findBestSize(sliceWidth, sliceHeight, options, /*upscale=*/true);
  Image refined =
      resizeBicubic(image, bestWidth * grid.cols, bestHeight * grid.rows);
  for (int64_t row = 0; row < grid.rows; ++row)
    for (int64_t col = 0; col < grid.cols; ++col)
      sliced.slices.push_back(refined.crop(col * bestWidth, row * bestHeight,
                                           bestWidth, bestHeight));
  return sliced;
}

PatchedPixels getPatchedPixels(absl::Span<const Image> pictures,
                               int64_t patchSize) {
  PatchedPixels result;
  int64_t longest = 0;
  for (const Image &picture : pictures) {
    assert(picture.width % patchSize == 0 && picture.height % patchSize == 0 &&
           "a picture's sides are whole patches");
    ImageGrid patches{picture.width / patchSize, picture.height / patchSize};
    result.patchGrids.push_back(patches);
    longest = std::max(longest, patches.cols * patches.rows);
  }
  int64_t rowLength = longest * patchSize;
  std::vector<float> values(pictures.size() * 3 * patchSize * rowLength, 0.0f);
  for (size_t index = 0; index < pictures.size(); ++index) {
    const Image &picture = pictures[index];
    int64_t patchCols = picture.width / patchSize;
    float *base = &values[index * 3 * patchSize * rowLength];
    for (int64_t y = 0; y < picture.height; ++y)
      for (int64_t x = 0; x < picture.width; ++x) {
        int64_t patch = (y / patchSize) * patchCols + x / patchSize;
        int64_t column = patch * patchSize + x % patchSize;
        for (int channel = 0; channel < 3; ++channel) {
          float scaled =
              static_cast<float>(picture.pixel(x, y)[channel]) / 255.0f;
          base[(channel * patchSize + y % patchSize) * rowLength + column] =
              (scaled - 0.5f) / 0.5f;
        }
      }
  }
  result.values = top::Tensor::fromF32(
      {static_cast<int64_t>(pictures.size()), 3, patchSize, rowLength},
      std::move(values));
  return result;
}

} // namespace llmc::vision
