//===- ImageFile.h - PNG and JPEG files as RGB images -----------*- C++ -*-===//
//
// Decodes with the libraries PIL itself uses (libpng, libjpeg-turbo), to
// 8-bit RGB as PIL's `Image.open(path).convert("RGB")` gives it: an alpha
// channel is dropped, grey and palette images are expanded.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_IMAGEFILE_H
#define LLMC_RUNTIME_VISION_IMAGEFILE_H

#include "runtime/vision/Image.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <string>
#include <string_view>

namespace llmc::vision {

/// The most pixels an image may have (a 16384 x 16384 picture): a file that
/// claims more is refused before anything is allocated for it.
inline constexpr int64_t kMaxImagePixels = int64_t(1) << 28;

/// The image in `bytes`, a PNG or JPEG file; errors name `name`.
absl::StatusOr<Image> decodeImage(absl::Span<const uint8_t> bytes,
                                  std::string_view name);

/// The image in the PNG or JPEG file at `path`.
absl::StatusOr<Image> readImageFile(const std::string &path);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_IMAGEFILE_H
