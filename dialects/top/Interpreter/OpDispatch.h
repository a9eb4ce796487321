//===- OpDispatch.h - top ops to interpreter kernels -----------*- C++ -*-===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_OPDISPATCH_H
#define LLMC_DIALECTS_TOP_INTERPRETER_OPDISPATCH_H

#include "dialects/top/Interpreter/Tensor.h"

#include "llvm/Support/Error.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace llmc::top {

class ThreadRunner;

/// Runs one `top` computation (any op but Input, Weight and None) on its
/// operands, null standing for a none operand. The error of an unsupported
/// op or a failing kernel says what is wrong, not where.
llvm::Expected<llvm::SmallVector<Tensor, 1>>
runComputeOp(mlir::Operation &op, llvm::ArrayRef<const Tensor *> operands,
             const ThreadRunner &runner);

} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_INTERPRETER_OPDISPATCH_H
