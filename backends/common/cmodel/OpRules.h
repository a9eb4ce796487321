//===- OpRules.h - the rule checker of compute opcodes ----------*- C++ -*-===//
//
// Internal to the cmodel: the class behind checkComputeRules, shared by the
// files that state the rules of each opcode family.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_OPRULES_H
#define LLMC_BACKENDS_COMMON_CMODEL_OPRULES_H

#include "backends/common/cmodel/Operands.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace llmc::cmodel::detail {

using LaneCheck = llvm::function_ref<llvm::Error(int64_t, const LaneBlock &)>;

class Rules {
public:
  Rules(const cmd::Compute &compute, const ComputeOperands &operands)
      : compute(compute), ops(operands) {}

  llvm::Error check();

private:
  llvm::Error bad(const llvm::Twine &message) const;
  llvm::Error mismatch(const llvm::Twine &message) const;

  /// Operand counts, and which must be present.
  llvm::Error arity(size_t minInputs, size_t maxInputs, size_t minOutputs,
                    size_t maxOutputs);
  llvm::Error requireInput(size_t i) const;
  const LocalGeometry &in(size_t i) const { return *ops.getInput(i); }
  const LocalGeometry &out(size_t i) const { return *ops.getOutput(i); }

  llvm::Error requireFloat(const LocalGeometry &g) const;
  llvm::Error requireType(const LocalGeometry &g, DType type) const;
  llvm::Error requireShape(const LocalGeometry &g, int64_t rows,
                           int64_t cols) const;
  /// Calls `body` for each lane with a non-empty block of the primary output.
  llvm::Error forLanes(LaneCheck body) const;
  /// Traps unless `g` holds rows [r0, r1) x cols [c0, c1) on `lane`.
  llvm::Error holds(const LocalGeometry &g, int64_t lane, int64_t r0,
                    int64_t r1, int64_t c0, int64_t c1) const;
  /// Traps unless `g` has `y`'s shape or broadcasts to it: [1, cols] over
  /// rows, [1, 1] everywhere.
  llvm::Error requireBroadcast(const LocalGeometry &g,
                               const LocalGeometry &y) const;
  /// Traps unless `lane` holds what output block `b` reads of `g`, an
  /// operand requireBroadcast accepted (row 0, column 0 when broadcast).
  llvm::Error holdsBroadcast(const LocalGeometry &g, int64_t lane,
                             const LaneBlock &b) const;
  /// Checks the inputs of an elementwise opcode against the output: each
  /// broadcasts to it and every lane holds what its block reads.
  llvm::Error checkElementwiseOperands();
  /// A projection's optional float bias [1, n].
  llvm::Error checkBias(const LocalGeometry *bias, int64_t n) const;
  /// Traps unless every lane holds what a projection's output block reads:
  /// its rows of x (all k), the rows of each of `channelRows` (one per
  /// output column; null entries skipped) and the bias columns.
  llvm::Error
  checkProjectionLanes(const LocalGeometry &x, int64_t k,
                       llvm::ArrayRef<const LocalGeometry *> channelRows,
                       const LocalGeometry *bias) const;

  llvm::Error checkMatMul(bool quantized);
  llvm::Error checkInt8MatMul();
  llvm::Error checkBinary();
  llvm::Error checkUnary();
  llvm::Error checkDequantize();
  /// RMSNORM (x, [weight]) and LAYERNORM (x, [weight], [bias]).
  llvm::Error checkNorm(unsigned maxInputs);
  llvm::Error checkRope();
  /// SOFTMAX, CUMSUM: y of x's type and shape, lanes computing whole rows.
  llvm::Error checkWholeRows();
  llvm::Error checkAttention();
  llvm::Error checkCompare();
  llvm::Error checkSelect();
  /// ARGMAX (k = 1), TOPK (k = group): lane-partial rankings.
  llvm::Error checkRanking(int64_t k);

  const cmd::Compute &compute;
  const ComputeOperands &ops;
};

} // namespace llmc::cmodel::detail

#endif // LLMC_BACKENDS_COMMON_CMODEL_OPRULES_H
