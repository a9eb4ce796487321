//===- Kernels.h - the compute kernels of the cmodel ------------*- C++ -*-===//
//
// Each kernel computes one lane's block of a validated compute command
// (checkComputeRules has run): it widens what it reads to float32, computes
// in float32 and narrows the result once to the output type, the rule every
// opcode follows (docs/command-stream.md states the per-opcode details).
// Reductions add in a fixed order (dot16 below), so results are the same on
// every host, thread count and instruction set.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_KERNELS_H
#define LLMC_BACKENDS_COMMON_CMODEL_KERNELS_H

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/Memory.h"
#include "backends/common/cmodel/Operands.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace llmc::cmodel {

class LaneRunner;

/// Runs a validated compute command on every lane of its primary output;
/// `parallel` spreads the lanes over the runner's threads.
void runComputeKernels(const cmd::Compute &compute,
                       const ComputeOperands &operands, LocalMemory &memory,
                       const LaneRunner &runner, bool parallel);

namespace kernels {

/// One lane's part of a local tensor.
struct LaneView {
  const LocalGeometry *tensor = nullptr;
  LaneBlock block;
  uint8_t *base = nullptr;

  DType dtype() const { return tensor->dtype; }
  /// The bytes of tensor row `row`, which the lane holds.
  uint8_t *row(int64_t row) const {
    return base + (row - block.rowBegin) * tensor->stride;
  }
  /// Widens tensor elements (row, [col, col + count)) into `out`.
  void load(int64_t row, int64_t col, int64_t count, float *out) const {
    widenElements(dtype(), this->row(row), col - block.colBegin, count, out);
  }
  /// As load(), for an operand that may broadcast to the output (see the
  /// elementwise rules): row 0 of a one-row tensor, and element (0, 0)
  /// repeated for a [1, 1] one.
  void loadBroadcast(int64_t row, int64_t col, int64_t count,
                     float *out) const {
    if (tensor->rows == 1 && tensor->cols == 1) {
      load(0, 0, 1, out);
      std::fill(out + 1, out + count, out[0]);
      return;
    }
    load(tensor->rows == 1 ? 0 : row, col, count, out);
  }
  /// Narrows `values` into tensor elements (row, [col, col + count)); float
  /// types only.
  void store(int64_t row, int64_t col, int64_t count,
             const float *values) const {
    narrowElements(dtype(), values, count,
                   this->row(row) +
                       getDTypeBytes(dtype(), col - block.colBegin));
  }
};

/// The views of one lane, and the output block it computes.
struct LaneOperands {
  std::vector<std::optional<LaneView>> inputs;
  std::vector<std::optional<LaneView>> outputs;
  LaneBlock block;

  const LaneView *in(size_t i) const {
    return i < inputs.size() && inputs[i] ? &*inputs[i] : nullptr;
  }
  const LaneView *out(size_t i) const {
    return i < outputs.size() && outputs[i] ? &*outputs[i] : nullptr;
  }
};

/// Sum of a[i] * b[i]: 16 partial sums (partial j takes the i = j mod 16,
/// in order, the tail padded with zeros) combined by halving: partial j +
/// partial j+8, then j + j+4, j + j+2, j + j+1. No fused multiply-add.
float dot16(const float *a, const float *b, int64_t n);
/// Four dot16 products of `a` with b[0..3], at once (the same results).
void dot16x4(const float *a, const float *const b[4], int64_t n, float out[4]);
/// Sum of a[i] in the order of dot16.
float sum16(const float *a, int64_t n);

// One function per opcode family; each computes `lane.block`.
void matMul(const cmd::Compute &compute, const LaneOperands &lane);
void int8MatMul(const cmd::Compute &compute, const LaneOperands &lane);
void dequantizeRows(const cmd::Compute &compute, const LaneOperands &lane);
void binary(const cmd::Compute &compute, const LaneOperands &lane);
void unary(const cmd::Compute &compute, const LaneOperands &lane);
void rmsNorm(const cmd::Compute &compute, const LaneOperands &lane);
void layerNorm(const cmd::Compute &compute, const LaneOperands &lane);
void rope(const cmd::Compute &compute, const LaneOperands &lane);
void softmax(const cmd::Compute &compute, const LaneOperands &lane);
void attention(const cmd::Compute &compute, const LaneOperands &lane);
void argMax(const cmd::Compute &compute, const LaneOperands &lane);
void compare(const cmd::Compute &compute, const LaneOperands &lane);
void select(const cmd::Compute &compute, const LaneOperands &lane);
void topK(const cmd::Compute &compute, const LaneOperands &lane);
void cumSum(const cmd::Compute &compute, const LaneOperands &lane);

} // namespace kernels
} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_KERNELS_H
