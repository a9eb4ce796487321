//===- Image.cpp - an 8-bit RGB image -------------------------------------===//

#include "runtime/vision/Image.h"

#include <algorithm>
#include <cassert>

namespace llmc::vision {

Image Image::crop(int64_t x, int64_t y, int64_t cropWidth,
                  int64_t cropHeight) const {
  assert(x >= 0 && y >= 0 && x + cropWidth <= width &&
         y + cropHeight <= height && "the crop leaves the image");
  Image cropped(cropWidth, cropHeight);
  for (int64_t row = 0; row < cropHeight; ++row)
    std::copy_n(pixel(x, y + row), cropWidth * 3, cropped.pixel(0, row));
  return cropped;
}

} // namespace llmc::vision
