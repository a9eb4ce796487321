//===- OpRules.cpp - what each compute opcode accepts ---------------------===//
//
// One function per opcode family states its operand list, element types and
// shapes, and what every lane must hold for the part of the output it
// computes (docs/command-stream.md has the same rules as tables). The
// kernels index operands by these guarantees without checking again.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/OpRules.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

#include "absl/types/span.h"

namespace llmc::cmodel::detail {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

absl::Status Rules::bad(std::string_view message) const {
  return makeTrap(TrapKind::BadOperand, message);
}

absl::Status Rules::mismatch(std::string_view message) const {
  return makeTrap(TrapKind::DTypeMismatch, message);
}

absl::Status Rules::arity(size_t minInputs, size_t maxInputs, size_t minOutputs,
                          size_t maxOutputs) {
  size_t inputs = ops.inputs.size(), outputs = ops.outputs.size();
  if (inputs < minInputs || inputs > maxInputs || outputs < minOutputs ||
      outputs > maxOutputs)
    return bad(support::strCat("takes ", minInputs, "..", maxInputs,
                               " inputs and ", minOutputs, "..", maxOutputs,
                               " outputs, got ", inputs, " and ", outputs));
  for (size_t i = 0; i < minInputs; ++i)
    LLMC_RETURN_IF_ERROR(requireInput(i));
  return absl::OkStatus();
}

absl::Status Rules::requireInput(size_t i) const {
  if (!ops.getInput(i))
    return bad(support::strCat("input ", i, " is required"));
  return absl::OkStatus();
}

absl::Status Rules::requireFloat(const LocalGeometry &g) const {
  if (!isFloatDType(g.dtype))
    return mismatch(support::strCat(g.describe(), " must be f32, f16 or bf16"));
  return absl::OkStatus();
}

absl::Status Rules::requireType(const LocalGeometry &g, DType type) const {
  if (g.dtype != type)
    return mismatch(
        support::strCat(g.describe(), " must be ", getDTypeName(type)));
  return absl::OkStatus();
}

absl::Status Rules::requireShape(const LocalGeometry &g, int64_t rows,
                                 int64_t cols) const {
  if (g.rows != rows || g.cols != cols)
    return bad(
        support::strCat(g.describe(), " must be [", rows, ", ", cols, "]"));
  return absl::OkStatus();
}

absl::Status Rules::forLanes(LaneCheck body) const {
  const LocalGeometry *primary = ops.getPrimaryOutput();
  for (int64_t lane = primary->laneBegin; lane < primary->laneEnd; ++lane) {
    LaneBlock block = primary->getBlock(lane);
    if (block.empty())
      continue;
    LLMC_RETURN_IF_ERROR(body(lane, block));
  }
  return absl::OkStatus();
}

absl::Status Rules::holds(const LocalGeometry &g, int64_t lane, int64_t r0,
                          int64_t r1, int64_t c0, int64_t c1) const {
  LaneBlock block = g.getBlock(lane);
  if (block.holdsRows(r0, r1) && block.holdsCols(c0, c1))
    return absl::OkStatus();
  return bad(support::strCat(
      "lane ", lane, " needs rows [", r0, ", ", r1, ") x cols [", c0, ", ", c1,
      ") of ", g.describe(), " but holds rows [", block.rowBegin, ", ",
      block.rowEnd(), ") x cols [", block.colBegin, ", ", block.colEnd(), ")"));
}

absl::Status Rules::requireBroadcast(const LocalGeometry &g,
                                     const LocalGeometry &y) const {
  bool rowsFit = g.rows == y.rows || g.rows == 1;
  bool colsFit = g.cols == y.cols || (g.cols == 1 && g.rows == 1);
  if (rowsFit && colsFit)
    return absl::OkStatus();
  return bad(support::strCat(g.describe(), " must be [", y.rows, ", ", y.cols,
                             "], [1, ", y.cols, "] or [1, 1] to broadcast to ",
                             y.describe()));
}

absl::Status Rules::holdsBroadcast(const LocalGeometry &g, int64_t lane,
                                   const LaneBlock &b) const {
  bool rows = g.rows == 1, cols = g.cols == 1;
  return holds(g, lane, rows ? 0 : b.rowBegin, rows ? 1 : b.rowEnd(),
               cols ? 0 : b.colBegin, cols ? 1 : b.colEnd());
}

absl::Status Rules::checkElementwiseOperands() {
  const LocalGeometry &y = out(0);
  for (size_t i = 0; i < ops.inputs.size(); ++i)
    LLMC_RETURN_IF_ERROR(requireBroadcast(in(i), y));
  return forLanes([&](int64_t lane, const LaneBlock &block) -> absl::Status {
    for (size_t i = 0; i < ops.inputs.size(); ++i)
      LLMC_RETURN_IF_ERROR(holdsBroadcast(in(i), lane, block));
    return absl::OkStatus();
  });
}

//===----------------------------------------------------------------------===//
// Opcodes
//===----------------------------------------------------------------------===//

absl::Status Rules::check() {
  if (!ops.getPrimaryOutput())
    return bad("has no output");
  absl::Status error = absl::OkStatus();
  switch (compute.opcode()) {
  case cmd::MATMUL:
    error = checkMatMul(/*quantized=*/false);
    break;
  case cmd::A16MATMUL:
    error = checkMatMul(/*quantized=*/true);
    break;
  case cmd::I8MATMUL:
    error = checkInt8MatMul();
    break;
  case cmd::ADD:
  case cmd::MUL:
  case cmd::DIV:
    error = checkBinary();
    break;
  case cmd::COMPARE:
    error = checkCompare();
    break;
  case cmd::SELECT:
    error = checkSelect();
    break;
  case cmd::TOPK:
    error = checkRanking(compute.group());
    break;

  case cmd::MUL_CONST:
  case cmd::SILU:
  case cmd::GELU:
  case cmd::RELU:
  case cmd::TANH:
  case cmd::CAST:
  case cmd::COPY:
    error = checkUnary();
    break;
  case cmd::DEQUANTIZE:
    error = checkDequantize();
    break;
  case cmd::RMSNORM:
    error = checkNorm(/*maxInputs=*/2);
    break;
  case cmd::LAYERNORM:
    error = checkNorm(/*maxInputs=*/3);
    break;
  case cmd::ROPE:
    error = checkRope();
    break;
  case cmd::SOFTMAX:
  case cmd::CUMSUM:
    error = checkWholeRows();
    break;
  case cmd::ATTENTION:
    error = checkAttention();
    break;
  case cmd::ARGMAX:
    error = checkRanking(1);
    break;
  default:
    return bad(
        support::strCat("has an invalid opcode ", int(compute.opcode())));
  }
  LLMC_RETURN_IF_ERROR(error);
  return checkOperandOverlaps(compute, ops);
}

absl::Status Rules::checkBias(const LocalGeometry *bias, int64_t n) const {
  if (!bias)
    return absl::OkStatus();
  LLMC_RETURN_IF_ERROR(requireFloat(*bias));
  return requireShape(*bias, 1, n);
}

absl::Status
Rules::checkProjectionLanes(const LocalGeometry &x, int64_t k,
                            absl::Span<const LocalGeometry *const> channelRows,
                            const LocalGeometry *bias) const {
  return forLanes([&](int64_t lane, const LaneBlock &b) -> absl::Status {
    LLMC_RETURN_IF_ERROR(holds(x, lane, b.rowBegin, b.rowEnd(), 0, k));
    for (const LocalGeometry *rows : channelRows)
      if (rows)
        LLMC_RETURN_IF_ERROR(
            holds(*rows, lane, b.colBegin, b.colEnd(), 0, rows->cols));
    if (bias)
      return holds(*bias, lane, 0, 1, b.colBegin, b.colEnd());
    return absl::OkStatus();
  });
}

absl::Status Rules::checkMatMul(bool quantized) {
  // MATMUL: x, w, [bias]; A16MATMUL: x, w, scale, [zp], [bias].
  size_t biasIndex = quantized ? 4 : 2;
  LLMC_RETURN_IF_ERROR(arity(quantized ? 3 : 2, biasIndex + 1, 1, 1));
  const LocalGeometry &x = in(0), &w = in(1), &y = out(0);
  int64_t m = x.rows, k = x.cols, n = w.rows;
  LLMC_RETURN_IF_ERROR(requireFloat(x));
  if (quantized ? !isQuantWeightDType(w.dtype) : w.dtype != x.dtype)
    return mismatch(support::strCat(
        w.describe(),
        (quantized ? " must be i8, u8, i4 or u4" : " must have x's type")));
  if (y.dtype != x.dtype && y.dtype != cmd::DTYPE_F32)
    return mismatch(
        support::strCat(y.describe(), " must have x's type or f32"));
  LLMC_RETURN_IF_ERROR(requireShape(w, n, k));
  LLMC_RETURN_IF_ERROR(requireShape(y, m, n));
  const LocalGeometry *scale = quantized ? &in(2) : nullptr;
  const LocalGeometry *zp = quantized ? ops.getInput(3) : nullptr;
  const LocalGeometry *bias = ops.getInput(biasIndex);
  if (scale) {
    LLMC_RETURN_IF_ERROR(requireFloat(*scale));
    if (scale->rows != n || k % scale->cols != 0)
      return bad(
          support::strCat(scale->describe(), " must be [", n,
                          ", K / group] with the group dividing K = ", k));
  }
  if (zp) {
    if (!isQuantWeightDType(zp->dtype) && !isFloatDType(zp->dtype))
      return mismatch(
          support::strCat(zp->describe(), " must be an integer or float type"));
    LLMC_RETURN_IF_ERROR(requireShape(*zp, scale->rows, scale->cols));
  }
  LLMC_RETURN_IF_ERROR(checkBias(bias, n));
  return checkProjectionLanes(x, k, {&w, scale, zp}, bias);
}

absl::Status Rules::checkInt8MatMul() {
  // x, w, scale, [bias].
  LLMC_RETURN_IF_ERROR(arity(3, 4, 1, 1));
  const LocalGeometry &x = in(0), &w = in(1), &scale = in(2), &y = out(0);
  int64_t m = x.rows, k = x.cols, n = w.rows;
  if (x.dtype != cmd::DTYPE_I8 && x.dtype != cmd::DTYPE_U8)
    return mismatch(support::strCat(x.describe(), " must be i8 or u8"));
  LLMC_RETURN_IF_ERROR(requireType(w, cmd::DTYPE_I8));
  LLMC_RETURN_IF_ERROR(requireType(scale, cmd::DTYPE_F32));
  LLMC_RETURN_IF_ERROR(requireFloat(y));
  if (!(compute.scalar() > 0))
    return bad(support::strCat("needs x's positive scale, got ",
                               std::to_string(compute.scalar())));
  LLMC_RETURN_IF_ERROR(requireShape(w, n, k));
  LLMC_RETURN_IF_ERROR(requireShape(scale, n, 1));
  LLMC_RETURN_IF_ERROR(requireShape(y, m, n));
  const LocalGeometry *bias = ops.getInput(3);
  LLMC_RETURN_IF_ERROR(checkBias(bias, n));
  return checkProjectionLanes(x, k, {&w, &scale}, bias);
}

absl::Status Rules::checkBinary() {
  LLMC_RETURN_IF_ERROR(arity(2, 2, 1, 1));
  const LocalGeometry &a = in(0), &b = in(1), &y = out(0);
  LLMC_RETURN_IF_ERROR(requireFloat(a));
  if (b.dtype != a.dtype || y.dtype != a.dtype)
    return mismatch(support::strCat(a.describe(), ", ", b.describe(), " and ",
                                    y.describe(), " must have one type"));
  return checkElementwiseOperands();
}

absl::Status Rules::checkUnary() {
  LLMC_RETURN_IF_ERROR(arity(1, 1, 1, 1));
  const LocalGeometry &x = in(0), &y = out(0);
  switch (compute.opcode()) {
  case cmd::CAST:
    // To float, or quantizing a float to 8 bits.
    if (y.dtype == cmd::DTYPE_I8 || y.dtype == cmd::DTYPE_U8) {
      LLMC_RETURN_IF_ERROR(requireFloat(x));
      if (!(compute.scalar() > 0))
        return bad(support::strCat("quantizing needs a positive scale, got ",
                                   std::to_string(compute.scalar())));
    } else if (absl::Status error = requireFloat(y); !error.ok()) {
      return error;
    }
    break;
  case cmd::COPY:
    if (y.dtype != x.dtype)
      return mismatch(
          support::strCat(y.describe(), " must have the input's type"));
    break;
  default:
    LLMC_RETURN_IF_ERROR(requireFloat(x));
    if (y.dtype != x.dtype)
      return mismatch(
          support::strCat(y.describe(), " must have the input's type"));
  }
  LLMC_RETURN_IF_ERROR(requireShape(y, x.rows, x.cols));
  return forLanes([&](int64_t lane, const LaneBlock &b) {
    return holds(x, lane, b.rowBegin, b.rowEnd(), b.colBegin, b.colEnd());
  });
}

absl::Status Rules::checkDequantize() {
  // w, scale, [zp].
  LLMC_RETURN_IF_ERROR(arity(2, 3, 1, 1));
  const LocalGeometry &w = in(0), &scale = in(1), &y = out(0);
  const LocalGeometry *zp = ops.getInput(2);
  if (!isQuantWeightDType(w.dtype))
    return mismatch(support::strCat(w.describe(), " must be i8, u8, i4 or u4"));
  LLMC_RETURN_IF_ERROR(requireFloat(scale));
  LLMC_RETURN_IF_ERROR(requireFloat(y));
  if (scale.rows != w.rows || scale.cols == 0 || w.cols % scale.cols != 0)
    return bad(
        support::strCat(scale.describe(), " must be [", w.rows,
                        ", K / group] with the group dividing K = ", w.cols));
  if (zp) {
    if (!isQuantWeightDType(zp->dtype) && !isFloatDType(zp->dtype))
      return mismatch(
          support::strCat(zp->describe(), " must be an integer or float type"));
    LLMC_RETURN_IF_ERROR(requireShape(*zp, scale.rows, scale.cols));
  }
  LLMC_RETURN_IF_ERROR(requireShape(y, w.rows, w.cols));
  return forLanes([&](int64_t lane, const LaneBlock &b) -> absl::Status {
    if (b.colBegin != 0 || b.colEnd() != w.cols)
      return bad(support::strCat(y.describe(), ": lanes must hold whole rows"));
    for (const LocalGeometry *rows : {&w, &scale, zp})
      if (rows)
        LLMC_RETURN_IF_ERROR(
            holds(*rows, lane, b.rowBegin, b.rowEnd(), 0, rows->cols));
    return absl::OkStatus();
  });
}

absl::Status Rules::checkNorm(unsigned maxInputs) {
  LLMC_RETURN_IF_ERROR(arity(1, maxInputs, 1, 1));
  const LocalGeometry &x = in(0), &y = out(0);
  // RMSNORM's weight; LAYERNORM's weight and bias: each [1, group].
  std::vector<const LocalGeometry *> rows;
  for (unsigned index = 1; index < maxInputs; ++index)
    if (const LocalGeometry *row = ops.getInput(index))
      rows.push_back(row);
  int64_t group = compute.group() ? compute.group() : x.cols;
  LLMC_RETURN_IF_ERROR(requireFloat(x));
  if (y.dtype != x.dtype)
    return mismatch(
        support::strCat(y.describe(), " must have the input's type"));
  LLMC_RETURN_IF_ERROR(requireShape(y, x.rows, x.cols));
  if (group < 1 || x.cols % group != 0)
    return bad(support::strCat("group ", compute.group(), " must divide the ",
                               x.cols, " columns"));
  for (const LocalGeometry *row : rows) {
    LLMC_RETURN_IF_ERROR(requireFloat(*row));
    LLMC_RETURN_IF_ERROR(requireShape(*row, 1, group));
  }
  return forLanes([&](int64_t lane, const LaneBlock &b) -> absl::Status {
    if (b.colBegin % group != 0 || b.colCount % group != 0)
      return bad(support::strCat("lane ", lane, " computes columns [",
                                 b.colBegin, ", ", b.colEnd(),
                                 "), not whole groups of ", group));
    LLMC_RETURN_IF_ERROR(
        holds(x, lane, b.rowBegin, b.rowEnd(), b.colBegin, b.colEnd()));
    for (const LocalGeometry *row : rows)
      LLMC_RETURN_IF_ERROR(holds(*row, lane, 0, 1, 0, group));
    return absl::OkStatus();
  });
}

absl::Status Rules::checkRope() {
  LLMC_RETURN_IF_ERROR(arity(3, 3, 1, 1));
  const LocalGeometry &x = in(0), &cos = in(1), &sin = in(2), &y = out(0);
  int64_t headDim = compute.group();
  for (const LocalGeometry *g : {&x, &cos, &sin})
    LLMC_RETURN_IF_ERROR(requireFloat(*g));
  if (y.dtype != x.dtype)
    return mismatch(
        support::strCat(y.describe(), " must have the input's type"));
  LLMC_RETURN_IF_ERROR(requireShape(y, x.rows, x.cols));
  if (headDim < 2 || x.cols % headDim != 0)
    return bad(support::strCat("head dimension (group) ", headDim,
                               " must divide the ", x.cols, " columns"));
  int64_t rotary = cos.cols;
  if (rotary % 2 != 0 || rotary > headDim)
    return bad(support::strCat(cos.describe(),
                               " must have an even number of columns, at "
                               "most the head dimension"));
  LLMC_RETURN_IF_ERROR(requireShape(cos, x.rows, rotary));
  LLMC_RETURN_IF_ERROR(requireShape(sin, x.rows, rotary));
  return forLanes([&](int64_t lane, const LaneBlock &b) -> absl::Status {
    if (b.colBegin % headDim != 0 || b.colCount % headDim != 0)
      return bad(support::strCat("lane ", lane, " computes columns [",
                                 b.colBegin, ", ", b.colEnd(),
                                 "), not whole heads of ", headDim));
    LLMC_RETURN_IF_ERROR(
        holds(x, lane, b.rowBegin, b.rowEnd(), b.colBegin, b.colEnd()));
    LLMC_RETURN_IF_ERROR(holds(cos, lane, b.rowBegin, b.rowEnd(), 0, rotary));
    return holds(sin, lane, b.rowBegin, b.rowEnd(), 0, rotary);
  });
}

absl::Status Rules::checkWholeRows() {
  LLMC_RETURN_IF_ERROR(arity(1, 1, 1, 1));
  const LocalGeometry &x = in(0), &y = out(0);
  LLMC_RETURN_IF_ERROR(requireFloat(x));
  if (y.dtype != x.dtype)
    return mismatch(
        support::strCat(y.describe(), " must have the input's type"));
  LLMC_RETURN_IF_ERROR(requireShape(y, x.rows, x.cols));
  return forLanes([&](int64_t lane, const LaneBlock &b) -> absl::Status {
    if (b.colCount != x.cols)
      return bad(support::strCat("lane ", lane, " must compute whole rows of ",
                                 y.describe()));
    return holds(x, lane, b.rowBegin, b.rowEnd(), 0, x.cols);
  });
}

} // namespace llmc::cmodel::detail

namespace llmc::cmodel {

absl::Status checkComputeRules(const cmd::Compute &compute,
                               const ComputeOperands &operands) {
  return detail::Rules(compute, operands).check();
}

} // namespace llmc::cmodel
