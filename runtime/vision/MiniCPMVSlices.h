//===- MiniCPMVSlices.h - MiniCPM-V's slicing of an image -------*- C++ -*-===//
//
// MiniCPM-V 2.6 sees an image as a downscaled source image plus, when the
// image has more pixels than a few slices of `scaleResolution` squared, the
// slices of a grid chosen by aspect ratio (image_processing_minicpmv.py:
// get_sliced_grid, find_best_resize, get_refine_size, split_to_patches).
// Every side is a multiple of the patch size, so a picture of w x h patches
// becomes w·h patch tokens; the vision tower takes them laid out as
// `reshape_by_patch` lays them: patch l of a picture in columns
// [14·l, 14·l + 14) of a [3, 14, L·14] array.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_MINICPMVSLICES_H
#define LLMC_RUNTIME_VISION_MINICPMVSLICES_H

#include "dialects/top/Interpreter/Tensor.h"
#include "runtime/vision/Image.h"

#include <optional>
#include <vector>

namespace llmc::vision {

struct SlicingOptions {
  /// The side of the square area a picture is scaled to (slice_config's
  /// scale_resolution), the largest number of slices, and the patch side.
  int64_t scaleResolution = 448;
  int64_t maxSlices = 9;
  int64_t patchSize = 14;
};

struct SlicedImage {
  Image source;
  /// The grid's slices, row-major; none when the image is not sliced.
  std::vector<Image> slices;
  std::optional<ImageGrid> grid;
};

/// The grid get_sliced_grid chooses for a `width` x `height` image, none
/// when the image fits one slice.
std::optional<ImageGrid> chooseSliceGrid(int64_t width, int64_t height,
                                         const SlicingOptions &options);

/// The source image and the slices of `image`, as slice_image makes them.
SlicedImage sliceImage(const Image &image, const SlicingOptions &options);

/// The pictures (the source, then the slices) as the vision tower takes
/// them: f32 [pictures, 3, patch, longest · patch], each picture's patches
/// laid out by reshape_by_patch and zero-padded to the longest, channels
/// scaled to [0, 1] and normalized with mean 0.5 and deviation 0.5.
struct PatchedPixels {
  top::Tensor values;
  /// Each picture's size in patches (tgt_sizes, which lists rows first).
  std::vector<ImageGrid> patchGrids;
};
PatchedPixels getPatchedPixels(absl::Span<const Image> pictures,
                               int64_t patchSize);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_MINICPMVSLICES_H
