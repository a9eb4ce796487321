//===- ShapeInferenceInterface.cpp - result shapes from operands ----------===//

#include "dialects/common/IR/ShapeInferenceInterface.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace llmc {

#include "dialects/common/IR/ShapeInferenceInterface.cpp.inc"

static bool hasUnrankedOperand(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    return isa<UnrankedTensorType>(type);
  });
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << "?";
    else
      os << dim;
  });
  os << "]";
  return text;
}

LogicalResult verifyInferredShapes(Operation *op) {
  if (hasUnrankedOperand(op))
    return success();
  SmallVector<SmallVector<int64_t>> inferred;
  if (failed(cast<ShapeInferenceOpInterface>(op).inferResultShapes(inferred)))
    return failure();
  if (inferred.size() != op->getNumResults())
    return op->emitOpError("shape function returned ")
           << inferred.size() << " shapes for " << op->getNumResults()
           << " results";
  for (auto [index, result, shape] :
       llvm::enumerate(op->getResults(), inferred)) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    bool compatible = type.getRank() == static_cast<int64_t>(shape.size());
    for (auto [declared, expected] : llvm::zip(type.getShape(), shape))
      if (!ShapedType::isDynamic(declared) &&
          !ShapedType::isDynamic(expected) && declared != expected)
        compatible = false;
    if (!compatible)
      return op->emitOpError("result #")
             << index << " has shape " << formatShape(type.getShape())
             << " but the operands imply " << formatShape(shape);
  }
  return success();
}

FailureOr<bool> refineResultShapes(Operation *op) {
  if (hasUnrankedOperand(op))
    return false;
  SmallVector<SmallVector<int64_t>> inferred;
  if (failed(cast<ShapeInferenceOpInterface>(op).inferResultShapes(inferred)))
    return failure();
  bool changed = false;
  for (auto [result, shape] : llvm::zip(op->getResults(), inferred)) {
    auto type = dyn_cast<TensorType>(result.getType());
    if (!type)
      continue;
    Type elementType = type.getElementType();
    RankedTensorType refined = RankedTensorType::get(shape, elementType);
    if (auto ranked = dyn_cast<RankedTensorType>(type)) {
      if (ranked.hasStaticShape())
        continue;
      SmallVector<int64_t> merged(shape);
      for (auto [dim, known] : llvm::zip(merged, ranked.getShape()))
        if (ShapedType::isDynamic(dim))
          dim = known;
      refined = RankedTensorType::get(merged, elementType, ranked.getEncoding());
    }
    if (refined != type) {
      result.setType(refined);
      changed = true;
    }
  }
  return changed;
}

} // namespace llmc
