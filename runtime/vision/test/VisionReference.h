//===- VisionReference.h - the vlm reference data of one image --*- C++ -*-===//

#ifndef LLMC_RUNTIME_VISION_TEST_VISIONREFERENCE_H
#define LLMC_RUNTIME_VISION_TEST_VISIONREFERENCE_H

#include "dialects/top/Interpreter/Tensor.h"
#include "runtime/vision/Image.h"

#include "llvm/Support/JSON.h"

#include <optional>

namespace llmc::vision::test {

/// What ../shared/refdata/vlm holds for one model and image.
struct VisionReference {
  /// refs/<model>.<image>.ids.json.
  llvm::json::Object ids;
  /// images/<image>.png, decoded.
  Image image;
  /// refs/<model>.<image>.pixel_values.npy.
  top::Tensor pixelValues;
};

/// The reference of `model` (tiny-internvl, tiny-minicpmv) for `image`
/// (chelsea, ...); a test failure and none when a file does not load.
std::optional<VisionReference> loadVisionReference(llvm::StringRef model,
                                                   llvm::StringRef image);

/// The largest |a - b| of two f32 tensors of one shape.
float getLargestDifference(const top::Tensor &a, const top::Tensor &b);

/// The ids.json integers of `array`.
std::vector<int64_t> getIntegers(const llvm::json::Array &array);

} // namespace llmc::vision::test

#endif // LLMC_RUNTIME_VISION_TEST_VISIONREFERENCE_H
