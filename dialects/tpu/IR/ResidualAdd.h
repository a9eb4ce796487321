//===- ResidualAdd.h - the residual add a projection absorbs ----*- C++ -*-===//
//
// Codegen computes `linear(x) + residual` in the projection's output tiles:
// the add's result is written while the projection runs, and no tensor
// holds the projection's own result. Address assignment must know it too,
// since the add's result is then written while the projection's inputs are
// still being read (by every core of a split op).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TPU_IR_RESIDUALADD_H
#define LLMC_DIALECTS_TPU_IR_RESIDUALADD_H

#include "mlir/IR/Operation.h"

namespace llmc::tpu {

/// The tpu.Add that linear op `op` computes in its output tiles, or null:
/// the add is the result's only use, adds a residual of the same type
/// computed before the op, and the op's output is not a piece result
/// itself.
mlir::Operation *getAbsorbedResidualAdd(mlir::Operation *op);

/// The linear op whose residual add `add` is, or null.
mlir::Operation *getAbsorbingLinearOp(mlir::Operation *add);

} // namespace llmc::tpu

#endif // LLMC_DIALECTS_TPU_IR_RESIDUALADD_H
