//===- Tensor.cpp - owned tensor values of the top interpreter ------------===//

#include "dialects/top/Interpreter/Tensor.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>

namespace llmc::top {

std::string_view stringifyElementKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32: return "f32";
  case ElementKind::I32: return "i32";
  }
  assert(false && "unknown element kind");
  std::abort();
}

int64_t getElementCount(absl::Span<const int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

std::vector<int64_t> getRowMajorStrides(absl::Span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::string formatShape(absl::Span<const int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += shape[i] < 0 ? "?" : std::to_string(shape[i]);
  }
  return text + "]";
}

Tensor::Tensor() : kind(ElementKind::F32), shape({0}), numElements(0) {}

Tensor::Tensor(ElementKind kind, absl::Span<const int64_t> shape)
    : kind(kind), shape(shape.begin(), shape.end()),
      numElements(getElementCount(shape)) {
  assert(std::all_of(shape.begin(), shape.end(),
                     [](int64_t dim) { return dim >= 0; }) &&
         "tensor dimensions must be known and non-negative");
  if (kind == ElementKind::F32)
    f32Values.assign(numElements, 0.0f);
  else
    i32Values.assign(numElements, 0);
}

Tensor Tensor::fromF32(absl::Span<const int64_t> shape,
                       std::vector<float> values) {
  Tensor tensor(ElementKind::F32, {});
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.numElements = getElementCount(shape);
  assert(tensor.numElements == static_cast<int64_t>(values.size()) &&
         "value count does not match the shape");
  tensor.f32Values = std::move(values);
  return tensor;
}

Tensor Tensor::fromI32(absl::Span<const int64_t> shape,
                       std::vector<int32_t> values) {
  Tensor tensor(ElementKind::I32, {});
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.numElements = getElementCount(shape);
  assert(tensor.numElements == static_cast<int64_t>(values.size()) &&
         "value count does not match the shape");
  tensor.i32Values = std::move(values);
  return tensor;
}

absl::Span<const float> Tensor::getF32() const {
  assert(isF32() && "not an f32 tensor");
  return f32Values;
}

absl::Span<float> Tensor::getF32() {
  assert(isF32() && "not an f32 tensor");
  return absl::MakeSpan(f32Values);
}

absl::Span<const int32_t> Tensor::getI32() const {
  assert(isI32() && "not an i32 tensor");
  return i32Values;
}

absl::Span<int32_t> Tensor::getI32() {
  assert(isI32() && "not an i32 tensor");
  return absl::MakeSpan(i32Values);
}

const char *Tensor::getRawData() const {
  return isF32() ? reinterpret_cast<const char *>(f32Values.data())
                 : reinterpret_cast<const char *>(i32Values.data());
}

char *Tensor::getRawData() {
  return isF32() ? reinterpret_cast<char *>(f32Values.data())
                 : reinterpret_cast<char *>(i32Values.data());
}

void Tensor::setShape(absl::Span<const int64_t> newShape) {
  assert(getElementCount(newShape) == numElements &&
         "a new shape must keep the element count");
  shape.assign(newShape.begin(), newShape.end());
}

Tensor Tensor::getOuterSlice(int64_t index) const {
  assert(getRank() > 0 && index >= 0 && index < shape[0] &&
         "slice outside the first dimension");
  absl::InlinedVector<int64_t, 4> sliceShape(shape.begin(), shape.end());
  sliceShape[0] = 1;
  Tensor slice(kind, sliceShape);
  int64_t bytes = slice.getNumElements() * kElementSize;
  std::memcpy(slice.getRawData(), getRawData() + index * bytes, bytes);
  return slice;
}

std::string Tensor::describe() const {
  return std::string(stringifyElementKind(kind)) + formatShape(shape);
}

} // namespace llmc::top
