//===- Tensor.h - owned tensor values of the top interpreter ---*- C++ -*-===//
//
// The values the reference interpreter computes with: a row-major shape and
// an owned buffer of float32 or int32 elements. Every floating-point element
// type of the IR (f16, bf16, f32, ...) is held as float32, and every integer
// type (token ids, positions, indices of any signless width) as int32: the
// interpreter states the F32 meaning of a module, and ids and indices of an
// LLM fit in 32 bits. Values that do not fit are rejected where they enter
// (weights, .npy files), never truncated.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_TENSOR_H
#define LLMC_DIALECTS_TOP_INTERPRETER_TENSOR_H

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::top {

/// How a tensor stores its elements.
enum class ElementKind { F32, I32 };

/// `f32` or `i32`, for messages.
std::string_view stringifyElementKind(ElementKind kind);

/// A dense row-major tensor that owns its elements.
class Tensor {
public:
  /// An F32 tensor of shape [0] (no elements).
  Tensor();
  /// A zero-filled tensor; every dimension must be non-negative.
  Tensor(ElementKind kind, absl::Span<const int64_t> shape);

  /// Wraps `values`, whose size must equal the element count of `shape`.
  static Tensor fromF32(absl::Span<const int64_t> shape,
                        std::vector<float> values);
  static Tensor fromI32(absl::Span<const int64_t> shape,
                        std::vector<int32_t> values);

  ElementKind getKind() const { return kind; }
  bool isF32() const { return kind == ElementKind::F32; }
  bool isI32() const { return kind == ElementKind::I32; }

  absl::Span<const int64_t> getShape() const { return shape; }
  int64_t getRank() const { return static_cast<int64_t>(shape.size()); }
  int64_t getDim(int64_t index) const { return shape[index]; }
  int64_t getNumElements() const { return numElements; }

  /// The elements; the kind must match.
  absl::Span<const float> getF32() const;
  absl::Span<float> getF32();
  absl::Span<const int32_t> getI32() const;
  absl::Span<int32_t> getI32();

  /// The elements as bytes, for moving data without regard to the kind
  /// (both kinds have 4-byte elements).
  const char *getRawData() const;
  char *getRawData();
  static constexpr int64_t kElementSize = 4;

  /// Changes the shape, keeping the elements; the count must not change.
  void setShape(absl::Span<const int64_t> newShape);

  /// Element `index` of the first dimension, as a tensor whose first
  /// dimension is 1 (one tile of a batch of tiles).
  Tensor getOuterSlice(int64_t index) const;

  /// `f32[2, 3]`, for messages.
  std::string describe() const;

private:
  ElementKind kind;
  absl::InlinedVector<int64_t, 4> shape;
  int64_t numElements;
  /// Only the vector of `kind` holds data.
  std::vector<float> f32Values;
  std::vector<int32_t> i32Values;
};

/// The number of elements of `shape` (1 for rank 0).
int64_t getElementCount(absl::Span<const int64_t> shape);

/// Row-major strides, in elements, of `shape`.
std::vector<int64_t> getRowMajorStrides(absl::Span<const int64_t> shape);

/// `[2, 3]`; dynamic (negative) dimensions print as `?`.
std::string formatShape(absl::Span<const int64_t> shape);

} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_INTERPRETER_TENSOR_H
