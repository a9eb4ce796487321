//===- ShapeInferenceInterface.h - result shapes from operands ---*- C++ -*-===//
//
// Declares the ShapeInferenceOpInterface shared by the `top` and `tpu` ops, and
// the helpers that verify and refine result types with it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_COMMON_IR_SHAPEINFERENCEINTERFACE_H
#define LLMC_DIALECTS_COMMON_IR_SHAPEINFERENCEINTERFACE_H

#include "mlir/IR/OpDefinition.h"

namespace llmc {

/// Checks that every ranked result of `op` agrees with the shapes its
/// ShapeInferenceOpInterface computes: same rank, and equal sizes wherever
/// both are static. Ops with an unranked shaped operand are not checked.
llvm::LogicalResult verifyInferredShapes(mlir::Operation *op);

/// Replaces dynamic result dimensions of `op` by the inferred static ones.
/// Returns true when a result type changed.
llvm::FailureOr<bool> refineResultShapes(mlir::Operation *op);

} // namespace llmc

#include "dialects/common/IR/ShapeInferenceInterface.h.inc"

#endif // LLMC_DIALECTS_COMMON_IR_SHAPEINFERENCEINTERFACE_H
