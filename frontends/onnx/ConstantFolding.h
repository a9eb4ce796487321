//===- ConstantFolding.h - ONNX shape arithmetic at import time -*- C++ -*-===//
//
// Exported graphs compute shapes, axes and masks with small integer
// subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, the
// ConstantOfShape/Equal/Where chain of repeat_kv). With static input shapes
// every such subgraph is constant, so the importer evaluates it while
// importing and only the tensor computation reaches `top`.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_ONNX_CONSTANTFOLDING_H
#define LLMC_FRONTENDS_ONNX_CONSTANTFOLDING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llmc::onnx {

/// A constant tensor: integers (int64 and narrower, bool) or floats.
struct ConstantTensor {
  llvm::SmallVector<int64_t> shape;
  bool isFloat = false;
  /// One of the two holds getNumElements() values.
  std::vector<int64_t> ints;
  std::vector<double> floats;

  int64_t getNumElements() const;
  /// Element `index` as a double / as an integer (floats truncate).
  double getDouble(int64_t index) const;
  int64_t getInt(int64_t index) const;

  static ConstantTensor ofInts(llvm::ArrayRef<int64_t> shape,
                               std::vector<int64_t> values);
  static ConstantTensor ofFloats(llvm::ArrayRef<int64_t> shape,
                                 std::vector<double> values);
};

/// The elements of `shape` when every dimension is non-negative and they
/// number at most 2^24, the most the importer folds; std::nullopt else.
std::optional<int64_t> getFoldableCount(llvm::ArrayRef<int64_t> shape);

/// Reads a TensorProto held inline (a Constant node's `value`, an integer
/// initializer).
llvm::Expected<ConstantTensor> readConstant(const ::onnx::TensorProto &tensor);

/// Evaluates `node` over constant inputs (std::nullopt for an absent
/// optional input). Returns std::nullopt when llmc does not fold that op
/// type; an error when the node is malformed.
llvm::Expected<std::optional<std::vector<ConstantTensor>>>
foldNode(const ::onnx::NodeProto &node,
         llvm::ArrayRef<std::optional<ConstantTensor>> inputs);

/// Resolves ONNX's reshape target (0 copies the input dimension, one -1 is
/// inferred) for an input of `shape`.
llvm::Expected<llvm::SmallVector<int64_t>>
resolveReshape(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> target);

/// The NumPy broadcast of two shapes; an error when they do not broadcast.
llvm::Expected<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// `axis` of a rank-`rank` tensor, negative counting from the end;
/// std::nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// A Slice start or end on a dimension of `size`: negative counts from the
/// end, and the result is clamped to [0, size].
int64_t clampSliceIndex(int64_t index, int64_t size);

/// An integer attribute of `node`, or `fallback`.
int64_t getIntAttr(const ::onnx::NodeProto &node, llvm::StringRef name,
                   int64_t fallback);
/// An integer-list attribute of `node`, or std::nullopt.
std::optional<llvm::SmallVector<int64_t>>
getIntsAttr(const ::onnx::NodeProto &node, llvm::StringRef name);
/// A float attribute of `node`, or `fallback`.
float getFloatAttr(const ::onnx::NodeProto &node, llvm::StringRef name,
                   float fallback);

} // namespace llmc::onnx

#endif // LLMC_FRONTENDS_ONNX_CONSTANTFOLDING_H
