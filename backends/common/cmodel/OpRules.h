//===- OpRules.h - the rule checker of compute opcodes ----------*- C++ -*-===//
//
// Internal to the cmodel: the class behind checkComputeRules, shared by the
// files that state the rules of each opcode family.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_OPRULES_H
#define LLMC_BACKENDS_COMMON_CMODEL_OPRULES_H

#include "backends/common/cmodel/Operands.h"

#include "absl/functional/function_ref.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <string_view>

namespace llmc::cmodel::detail {

using LaneCheck = absl::FunctionRef<absl::Status(int64_t, const LaneBlock &)>;

class Rules {
public:
  Rules(const cmd::Compute &compute, const ComputeOperands &operands)
      : compute(compute), ops(operands) {}

  absl::Status check();

private:
  absl::Status bad(std::string_view message) const;
  absl::Status mismatch(std::string_view message) const;

  /// Operand counts, and which must be present.
  absl::Status arity(size_t minInputs, size_t maxInputs, size_t minOutputs,
                     size_t maxOutputs);
  absl::Status requireInput(size_t i) const;
  const LocalGeometry &in(size_t i) const { return *ops.getInput(i); }
  const LocalGeometry &out(size_t i) const { return *ops.getOutput(i); }

  absl::Status requireFloat(const LocalGeometry &g) const;
  absl::Status requireType(const LocalGeometry &g, DType type) const;
  absl::Status requireShape(const LocalGeometry &g, int64_t rows,
                            int64_t cols) const;
  /// Calls `body` for each lane with a non-empty block of the primary output.
  absl::Status forLanes(LaneCheck body) const;
  /// Traps unless `g` holds rows [r0, r1) x cols [c0, c1) on `lane`.
  absl::Status holds(const LocalGeometry &g, int64_t lane, int64_t r0,
                     int64_t r1, int64_t c0, int64_t c1) const;
  /// Traps unless `g` has `y`'s shape or broadcasts to it: [1, cols] over
  /// rows, [1, 1] everywhere.
  absl::Status requireBroadcast(const LocalGeometry &g,
                                const LocalGeometry &y) const;
  /// Traps unless `lane` holds what output block `b` reads of `g`, an
  /// operand requireBroadcast accepted (row 0, column 0 when broadcast).
  absl::Status holdsBroadcast(const LocalGeometry &g, int64_t lane,
                              const LaneBlock &b) const;
  /// Checks the inputs of an elementwise opcode against the output: each
  /// broadcasts to it and every lane holds what its block reads.
  absl::Status checkElementwiseOperands();
  /// A projection's optional float bias [1, n].
  absl::Status checkBias(const LocalGeometry *bias, int64_t n) const;
  /// Traps unless every lane holds what a projection's output block reads:
  /// its rows of x (all k), the rows of each of `channelRows` (one per
  /// output column; null entries skipped) and the bias columns.
  absl::Status
  checkProjectionLanes(const LocalGeometry &x, int64_t k,
                       absl::Span<const LocalGeometry *const> channelRows,
                       const LocalGeometry *bias) const;

  absl::Status checkMatMul(bool quantized);
  absl::Status checkInt8MatMul();
  absl::Status checkBinary();
  absl::Status checkUnary();
  absl::Status checkDequantize();
  /// RMSNORM (x, [weight]) and LAYERNORM (x, [weight], [bias]).
  absl::Status checkNorm(unsigned maxInputs);
  absl::Status checkRope();
  /// SOFTMAX, CUMSUM: y of x's type and shape, lanes computing whole rows.
  absl::Status checkWholeRows();
  absl::Status checkAttention();
  absl::Status checkCompare();
  absl::Status checkSelect();
  /// ARGMAX (k = 1), TOPK (k = group): lane-partial rankings.
  absl::Status checkRanking(int64_t k);

  const cmd::Compute &compute;
  const ComputeOperands &ops;
};

} // namespace llmc::cmodel::detail

#endif // LLMC_BACKENDS_COMMON_CMODEL_OPRULES_H
