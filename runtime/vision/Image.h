//===- Image.h - an 8-bit RGB image -----------------------------*- C++ -*-===//
//
// What the vision-language models' preprocessing works on: 8 bits per
// channel, as PIL's "RGB" mode holds an image, so that resizing can round as
// PIL does and the pixel values match the official preprocessing.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_IMAGE_H
#define LLMC_RUNTIME_VISION_IMAGE_H

#include <cstdint>
#include <vector>

namespace llmc::vision {

/// How an image is cut into tiles or slices: `cols` x `rows`.
struct ImageGrid {
  int64_t cols = 1;
  int64_t rows = 1;
};

struct Image {
  int64_t width = 0;
  int64_t height = 0;
  /// Rows top to bottom, each `width` pixels of R, G, B.
  std::vector<uint8_t> rgb;

  Image() = default;
  Image(int64_t width, int64_t height)
      : width(width), height(height), rgb(width * height * 3) {}

  uint8_t *pixel(int64_t x, int64_t y) { return &rgb[(y * width + x) * 3]; }
  const uint8_t *pixel(int64_t x, int64_t y) const {
    return &rgb[(y * width + x) * 3];
  }

  /// The `width` x `height` region whose top left corner is (x, y); it must
  /// lie inside the image.
  Image crop(int64_t x, int64_t y, int64_t width, int64_t height) const;
};

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_IMAGE_H
