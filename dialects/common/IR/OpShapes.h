//===- OpShapes.h - glue between ops and the shared shape rules -*- C++ -*-===//
//
// What every op's inferResultShapes needs to call a rule of ShapeFunctions.h:
// operand shapes (optional operands are `none`-typed), a diagnostic callback
// on the op, and the append of the inferred shape.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_COMMON_IR_OPSHAPES_H
#define LLMC_DIALECTS_COMMON_IR_OPSHAPES_H

#include "dialects/common/IR/ShapeFunctions.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace llmc {

/// The shape of a ranked tensor value.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value value) {
  return llvm::cast<mlir::RankedTensorType>(value.getType()).getShape();
}

/// The shape of an optional operand, or std::nullopt for a `top.None` value.
inline OptionalShape optionalShapeOf(mlir::Value value) {
  if (llvm::isa<mlir::NoneType>(value.getType()))
    return std::nullopt;
  return shapeOf(value);
}

/// Appends `shape` to `shapes` when it was inferred.
inline llvm::LogicalResult
appendShape(llvm::FailureOr<Shape> shape,
            llvm::SmallVectorImpl<llvm::SmallVector<int64_t>> &shapes) {
  if (llvm::failed(shape))
    return llvm::failure();
  shapes.push_back(std::move(*shape));
  return llvm::success();
}

/// A diagnostic callback reporting on `op`, for the shared shape rules.
inline auto errorEmitter(mlir::Operation *op) {
  return [op] { return op->emitOpError(); };
}

} // namespace llmc

#endif // LLMC_DIALECTS_COMMON_IR_OPSHAPES_H
