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

  llvm::Error checkMatMul(bool quantized);
  llvm::Error checkBinary();
  llvm::Error checkUnary();
  llvm::Error checkRMSNorm();
  llvm::Error checkRope();
  llvm::Error checkSoftmax();
  llvm::Error checkAttention();
  llvm::Error checkArgMax();

  const cmd::Compute &compute;
  const ComputeOperands &ops;
};

} // namespace llmc::cmodel::detail

#endif // LLMC_BACKENDS_COMMON_CMODEL_OPRULES_H
