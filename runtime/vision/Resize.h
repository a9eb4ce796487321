//===- Resize.h - PIL's bicubic resize of 8-bit images ----------*- C++ -*-===//
//
// The official preprocessing of InternVL and MiniCPM-V resizes with PIL's
// `Image.resize(..., BICUBIC)`: a separable convolution, horizontal pass
// then vertical, whose kernel (Keys, a = -0.5) widens by the downscale
// factor (antialiasing), with weights in 22-bit fixed point and each pass
// rounded and clamped to 8 bits. This reproduces it bit for bit, so pixel
// values match the references exactly rather than to a tolerance.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_VISION_RESIZE_H
#define LLMC_RUNTIME_VISION_RESIZE_H

#include "runtime/vision/Image.h"

namespace llmc::vision {

/// `image` resized to `width` x `height` (both positive) as PIL's
/// `image.resize((width, height), Image.BICUBIC)` does; the same size gives
/// a copy, as in PIL.
Image resizeBicubic(const Image &image, int64_t width, int64_t height);

} // namespace llmc::vision

#endif // LLMC_RUNTIME_VISION_RESIZE_H
