//===- VisionReference.cpp - the vlm reference data of one image ----------===//

#include "runtime/vision/test/VisionReference.h"

#include "dialects/top/Interpreter/NpyFile.h"
#include "runtime/vision/ImageFile.h"
#include "tests/TestData.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <utility>

namespace llmc::vision::test {

std::optional<VisionReference> loadVisionReference(llvm::StringRef model,
                                                   llvm::StringRef image) {
  std::string refs = llmc::test::getRefdataPath("vlm/refs") + "/" +
                     model.str() + "." + image.str();
  auto text = llvm::MemoryBuffer::getFile(refs + ".ids.json");
  if (!text) {
    ADD_FAILURE() << "cannot read " << refs << ".ids.json";
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> ids =
      llvm::json::parse((*text)->getBuffer());
  absl::StatusOr<Image> decoded = readImageFile(
      llmc::test::getRefdataPath("vlm/images/" + image.str() + ".png"));
  absl::StatusOr<top::Tensor> pixels =
      top::readNpyFile(refs + ".pixel_values.npy");
  if (!ids || !decoded.ok() || !pixels.ok()) {
    ADD_FAILURE() << toString(ids.takeError()) << decoded.status().message()
                  << pixels.status().message();
    return std::nullopt;
  }
  return VisionReference{std::move(*ids->getAsObject()), std::move(*decoded),
                         std::move(*pixels)};
}

float getLargestDifference(const top::Tensor &a, const top::Tensor &b) {
  absl::Span<const float> left = a.getF32(), right = b.getF32();
  float largest = 0;
  for (size_t i = 0; i < left.size(); ++i)
    largest = std::max(largest, std::fabs(left[i] - right[i]));
  return largest;
}

std::vector<int64_t> getIntegers(const llvm::json::Array &array) {
  std::vector<int64_t> values;
  for (const llvm::json::Value &value : array)
    values.push_back(*value.getAsInteger());
  return values;
}

} // namespace llmc::vision::test
