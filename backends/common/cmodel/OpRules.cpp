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

namespace llmc::cmodel::detail {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

llvm::Error Rules::bad(const llvm::Twine &message) const {
  return makeTrap(TrapKind::BadOperand, message);
}

llvm::Error Rules::mismatch(const llvm::Twine &message) const {
  return makeTrap(TrapKind::DTypeMismatch, message);
}

llvm::Error Rules::arity(size_t minInputs, size_t maxInputs, size_t minOutputs,
                         size_t maxOutputs) {
  size_t inputs = ops.inputs.size(), outputs = ops.outputs.size();
  if (inputs < minInputs || inputs > maxInputs || outputs < minOutputs ||
      outputs > maxOutputs)
    return bad(llvm::Twine("takes ") + llvm::Twine(minInputs) + ".." +
               llvm::Twine(maxInputs) + " inputs and " +
               llvm::Twine(minOutputs) + ".." + llvm::Twine(maxOutputs) +
               " outputs, got " + llvm::Twine(inputs) + " and " +
               llvm::Twine(outputs));
  for (size_t i = 0; i < minInputs; ++i)
    if (llvm::Error error = requireInput(i))
      return error;
  return llvm::Error::success();
}

llvm::Error Rules::requireInput(size_t i) const {
  if (!ops.getInput(i))
    return bad("input " + llvm::Twine(i) + " is required");
  return llvm::Error::success();
}

llvm::Error Rules::requireFloat(const LocalGeometry &g) const {
  if (!isFloatDType(g.dtype))
    return mismatch(g.describe() + " must be f32, f16 or bf16");
  return llvm::Error::success();
}

llvm::Error Rules::requireType(const LocalGeometry &g, DType type) const {
  if (g.dtype != type)
    return mismatch(g.describe() + " must be " + getDTypeName(type));
  return llvm::Error::success();
}

llvm::Error Rules::requireShape(const LocalGeometry &g, int64_t rows,
                                int64_t cols) const {
  if (g.rows != rows || g.cols != cols)
    return bad(g.describe() + " must be [" + llvm::Twine(rows) + ", " +
               llvm::Twine(cols) + "]");
  return llvm::Error::success();
}

llvm::Error Rules::forLanes(LaneCheck body) const {
  const LocalGeometry *primary = ops.getPrimaryOutput();
  for (int64_t lane = primary->laneBegin; lane < primary->laneEnd; ++lane) {
    LaneBlock block = primary->getBlock(lane);
    if (block.empty())
      continue;
    if (llvm::Error error = body(lane, block))
      return error;
  }
  return llvm::Error::success();
}

llvm::Error Rules::holds(const LocalGeometry &g, int64_t lane, int64_t r0,
                         int64_t r1, int64_t c0, int64_t c1) const {
  LaneBlock block = g.getBlock(lane);
  if (block.holdsRows(r0, r1) && block.holdsCols(c0, c1))
    return llvm::Error::success();
  return bad("lane " + llvm::Twine(lane) + " needs rows [" + llvm::Twine(r0) +
             ", " + llvm::Twine(r1) + ") x cols [" + llvm::Twine(c0) + ", " +
             llvm::Twine(c1) + ") of " + g.describe() + " but holds rows [" +
             llvm::Twine(block.rowBegin) + ", " + llvm::Twine(block.rowEnd()) +
             ") x cols [" + llvm::Twine(block.colBegin) + ", " +
             llvm::Twine(block.colEnd()) + ")");
}

llvm::Error Rules::requireBroadcast(const LocalGeometry &g,
                                    const LocalGeometry &y) const {
  bool rowsFit = g.rows == y.rows || g.rows == 1;
  bool colsFit = g.cols == y.cols || (g.cols == 1 && g.rows == 1);
  if (rowsFit && colsFit)
    return llvm::Error::success();
  return bad(g.describe() + " must be [" + llvm::Twine(y.rows) + ", " +
             llvm::Twine(y.cols) + "], [1, " + llvm::Twine(y.cols) +
             "] or [1, 1] to broadcast to " + y.describe());
}

llvm::Error Rules::holdsBroadcast(const LocalGeometry &g, int64_t lane,
                                  const LaneBlock &b) const {
  bool rows = g.rows == 1, cols = g.cols == 1;
  return holds(g, lane, rows ? 0 : b.rowBegin, rows ? 1 : b.rowEnd(),
               cols ? 0 : b.colBegin, cols ? 1 : b.colEnd());
}

llvm::Error Rules::checkElementwiseOperands() {
  const LocalGeometry &y = out(0);
  for (size_t i = 0; i < ops.inputs.size(); ++i)
    if (llvm::Error error = requireBroadcast(in(i), y))
      return error;
  return forLanes([&](int64_t lane, const LaneBlock &block) -> llvm::Error {
    for (size_t i = 0; i < ops.inputs.size(); ++i)
      if (llvm::Error error = holdsBroadcast(in(i), lane, block))
        return error;
    return llvm::Error::success();
  });
}

//===----------------------------------------------------------------------===//
// Opcodes
//===----------------------------------------------------------------------===//

llvm::Error Rules::check() {
  if (!ops.getPrimaryOutput())
    return bad("has no output");
  llvm::Error error = llvm::Error::success();
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
    return bad("has an invalid opcode " + llvm::Twine(int(compute.opcode())));
  }
  if (error)
    return error;
  return checkOperandOverlaps(compute, ops);
}

llvm::Error Rules::checkBias(const LocalGeometry *bias, int64_t n) const {
  if (!bias)
    return llvm::Error::success();
  if (llvm::Error error = requireFloat(*bias))
    return error;
  return requireShape(*bias, 1, n);
}

llvm::Error Rules::checkProjectionLanes(
    const LocalGeometry &x, int64_t k,
    llvm::ArrayRef<const LocalGeometry *> channelRows,
    const LocalGeometry *bias) const {
  return forLanes([&](int64_t lane, const LaneBlock &b) -> llvm::Error {
    if (llvm::Error error = holds(x, lane, b.rowBegin, b.rowEnd(), 0, k))
      return error;
    for (const LocalGeometry *rows : channelRows)
      if (rows)
        if (llvm::Error error =
                holds(*rows, lane, b.colBegin, b.colEnd(), 0, rows->cols))
          return error;
    if (bias)
      return holds(*bias, lane, 0, 1, b.colBegin, b.colEnd());
    return llvm::Error::success();
  });
}

llvm::Error Rules::checkMatMul(bool quantized) {
  // MATMUL: x, w, [bias]; A16MATMUL: x, w, scale, [zp], [bias].
  size_t biasIndex = quantized ? 4 : 2;
  if (llvm::Error error = arity(quantized ? 3 : 2, biasIndex + 1, 1, 1))
    return error;
  const LocalGeometry &x = in(0), &w = in(1), &y = out(0);
  int64_t m = x.rows, k = x.cols, n = w.rows;
  if (llvm::Error error = requireFloat(x))
    return error;
  if (quantized ? !isQuantWeightDType(w.dtype) : w.dtype != x.dtype)
    return mismatch(w.describe() + (quantized ? " must be i8, u8, i4 or u4"
                                              : " must have x's type"));
  if (y.dtype != x.dtype && y.dtype != cmd::DTYPE_F32)
    return mismatch(y.describe() + " must have x's type or f32");
  if (llvm::Error error = requireShape(w, n, k))
    return error;
  if (llvm::Error error = requireShape(y, m, n))
    return error;
  const LocalGeometry *scale = quantized ? &in(2) : nullptr;
  const LocalGeometry *zp = quantized ? ops.getInput(3) : nullptr;
  const LocalGeometry *bias = ops.getInput(biasIndex);
  if (scale) {
    if (llvm::Error error = requireFloat(*scale))
      return error;
    if (scale->rows != n || k % scale->cols != 0)
      return bad(scale->describe() + " must be [" + llvm::Twine(n) +
                 ", K / group] with the group dividing K = " + llvm::Twine(k));
  }
  if (zp) {
    if (!isQuantWeightDType(zp->dtype) && !isFloatDType(zp->dtype))
      return mismatch(zp->describe() + " must be an integer or float type");
    if (llvm::Error error = requireShape(*zp, scale->rows, scale->cols))
      return error;
  }
  if (llvm::Error error = checkBias(bias, n))
    return error;
  return checkProjectionLanes(x, k, {&w, scale, zp}, bias);
}

llvm::Error Rules::checkInt8MatMul() {
  // x, w, scale, [bias].
  if (llvm::Error error = arity(3, 4, 1, 1))
    return error;
  const LocalGeometry &x = in(0), &w = in(1), &scale = in(2), &y = out(0);
  int64_t m = x.rows, k = x.cols, n = w.rows;
  if (x.dtype != cmd::DTYPE_I8 && x.dtype != cmd::DTYPE_U8)
    return mismatch(x.describe() + " must be i8 or u8");
  if (llvm::Error error = requireType(w, cmd::DTYPE_I8))
    return error;
  if (llvm::Error error = requireType(scale, cmd::DTYPE_F32))
    return error;
  if (llvm::Error error = requireFloat(y))
    return error;
  if (!(compute.scalar() > 0))
    return bad("needs x's positive scale, got " +
               std::to_string(compute.scalar()));
  if (llvm::Error error = requireShape(w, n, k))
    return error;
  if (llvm::Error error = requireShape(scale, n, 1))
    return error;
  if (llvm::Error error = requireShape(y, m, n))
    return error;
  const LocalGeometry *bias = ops.getInput(3);
  if (llvm::Error error = checkBias(bias, n))
    return error;
  return checkProjectionLanes(x, k, {&w, &scale}, bias);
}

llvm::Error Rules::checkBinary() {
  if (llvm::Error error = arity(2, 2, 1, 1))
    return error;
  const LocalGeometry &a = in(0), &b = in(1), &y = out(0);
  if (llvm::Error error = requireFloat(a))
    return error;
  if (b.dtype != a.dtype || y.dtype != a.dtype)
    return mismatch(a.describe() + ", " + b.describe() + " and " +
                    y.describe() + " must have one type");
  return checkElementwiseOperands();
}

llvm::Error Rules::checkUnary() {
  if (llvm::Error error = arity(1, 1, 1, 1))
    return error;
  const LocalGeometry &x = in(0), &y = out(0);
  switch (compute.opcode()) {
  case cmd::CAST:
    // To float, or quantizing a float to 8 bits.
    if (y.dtype == cmd::DTYPE_I8 || y.dtype == cmd::DTYPE_U8) {
      if (llvm::Error error = requireFloat(x))
        return error;
      if (!(compute.scalar() > 0))
        return bad("quantizing needs a positive scale, got " +
                   std::to_string(compute.scalar()));
    } else if (llvm::Error error = requireFloat(y)) {
      return error;
    }
    break;
  case cmd::COPY:
    if (y.dtype != x.dtype)
      return mismatch(y.describe() + " must have the input's type");
    break;
  default:
    if (llvm::Error error = requireFloat(x))
      return error;
    if (y.dtype != x.dtype)
      return mismatch(y.describe() + " must have the input's type");
  }
  if (llvm::Error error = requireShape(y, x.rows, x.cols))
    return error;
  return forLanes([&](int64_t lane, const LaneBlock &b) {
    return holds(x, lane, b.rowBegin, b.rowEnd(), b.colBegin, b.colEnd());
  });
}

llvm::Error Rules::checkDequantize() {
  // w, scale, [zp].
  if (llvm::Error error = arity(2, 3, 1, 1))
    return error;
  const LocalGeometry &w = in(0), &scale = in(1), &y = out(0);
  const LocalGeometry *zp = ops.getInput(2);
  if (!isQuantWeightDType(w.dtype))
    return mismatch(w.describe() + " must be i8, u8, i4 or u4");
  if (llvm::Error error = requireFloat(scale))
    return error;
  if (llvm::Error error = requireFloat(y))
    return error;
  if (scale.rows != w.rows || scale.cols == 0 || w.cols % scale.cols != 0)
    return bad(scale.describe() + " must be [" + llvm::Twine(w.rows) +
               ", K / group] with the group dividing K = " +
               llvm::Twine(w.cols));
  if (zp) {
    if (!isQuantWeightDType(zp->dtype) && !isFloatDType(zp->dtype))
      return mismatch(zp->describe() + " must be an integer or float type");
    if (llvm::Error error = requireShape(*zp, scale.rows, scale.cols))
      return error;
  }
  if (llvm::Error error = requireShape(y, w.rows, w.cols))
    return error;
  return forLanes([&](int64_t lane, const LaneBlock &b) -> llvm::Error {
    if (b.colBegin != 0 || b.colEnd() != w.cols)
      return bad(y.describe() + ": lanes must hold whole rows");
    for (const LocalGeometry *rows : {&w, &scale, zp})
      if (rows)
        if (llvm::Error error =
                holds(*rows, lane, b.rowBegin, b.rowEnd(), 0, rows->cols))
          return error;
    return llvm::Error::success();
  });
}

llvm::Error Rules::checkNorm(unsigned maxInputs) {
  if (llvm::Error error = arity(1, maxInputs, 1, 1))
    return error;
  const LocalGeometry &x = in(0), &y = out(0);
  // RMSNORM's weight; LAYERNORM's weight and bias: each [1, group].
  llvm::SmallVector<const LocalGeometry *, 2> rows;
  for (unsigned index = 1; index < maxInputs; ++index)
    if (const LocalGeometry *row = ops.getInput(index))
      rows.push_back(row);
  int64_t group = compute.group() ? compute.group() : x.cols;
  if (llvm::Error error = requireFloat(x))
    return error;
  if (y.dtype != x.dtype)
    return mismatch(y.describe() + " must have the input's type");
  if (llvm::Error error = requireShape(y, x.rows, x.cols))
    return error;
  if (group < 1 || x.cols % group != 0)
    return bad("group " + llvm::Twine(compute.group()) + " must divide the " +
               llvm::Twine(x.cols) + " columns");
  for (const LocalGeometry *row : rows) {
    if (llvm::Error error = requireFloat(*row))
      return error;
    if (llvm::Error error = requireShape(*row, 1, group))
      return error;
  }
  return forLanes([&](int64_t lane, const LaneBlock &b) -> llvm::Error {
    if (b.colBegin % group != 0 || b.colCount % group != 0)
      return bad("lane " + llvm::Twine(lane) + " computes columns [" +
                 llvm::Twine(b.colBegin) + ", " + llvm::Twine(b.colEnd()) +
                 "), not whole groups of " + llvm::Twine(group));
    if (llvm::Error error =
            holds(x, lane, b.rowBegin, b.rowEnd(), b.colBegin, b.colEnd()))
      return error;
    for (const LocalGeometry *row : rows)
      if (llvm::Error error = holds(*row, lane, 0, 1, 0, group))
        return error;
    return llvm::Error::success();
  });
}

llvm::Error Rules::checkRope() {
  if (llvm::Error error = arity(3, 3, 1, 1))
    return error;
  const LocalGeometry &x = in(0), &cos = in(1), &sin = in(2), &y = out(0);
  int64_t headDim = compute.group();
  for (const LocalGeometry *g : {&x, &cos, &sin})
    if (llvm::Error error = requireFloat(*g))
      return error;
  if (y.dtype != x.dtype)
    return mismatch(y.describe() + " must have the input's type");
  if (llvm::Error error = requireShape(y, x.rows, x.cols))
    return error;
  if (headDim < 2 || x.cols % headDim != 0)
    return bad("head dimension (group) " + llvm::Twine(headDim) +
               " must divide the " + llvm::Twine(x.cols) + " columns");
  int64_t rotary = cos.cols;
  if (rotary % 2 != 0 || rotary > headDim)
    return bad(cos.describe() + " must have an even number of columns, at "
                                "most the head dimension");
  if (llvm::Error error = requireShape(cos, x.rows, rotary))
    return error;
  if (llvm::Error error = requireShape(sin, x.rows, rotary))
    return error;
  return forLanes([&](int64_t lane, const LaneBlock &b) -> llvm::Error {
    if (b.colBegin % headDim != 0 || b.colCount % headDim != 0)
      return bad("lane " + llvm::Twine(lane) + " computes columns [" +
                 llvm::Twine(b.colBegin) + ", " + llvm::Twine(b.colEnd()) +
                 "), not whole heads of " + llvm::Twine(headDim));
    if (llvm::Error error =
            holds(x, lane, b.rowBegin, b.rowEnd(), b.colBegin, b.colEnd()))
      return error;
    if (llvm::Error error = holds(cos, lane, b.rowBegin, b.rowEnd(), 0, rotary))
      return error;
    return holds(sin, lane, b.rowBegin, b.rowEnd(), 0, rotary);
  });
}

llvm::Error Rules::checkWholeRows() {
  if (llvm::Error error = arity(1, 1, 1, 1))
    return error;
  const LocalGeometry &x = in(0), &y = out(0);
  if (llvm::Error error = requireFloat(x))
    return error;
  if (y.dtype != x.dtype)
    return mismatch(y.describe() + " must have the input's type");
  if (llvm::Error error = requireShape(y, x.rows, x.cols))
    return error;
  return forLanes([&](int64_t lane, const LaneBlock &b) -> llvm::Error {
    if (b.colCount != x.cols)
      return bad("lane " + llvm::Twine(lane) + " must compute whole rows of " +
                 y.describe());
    return holds(x, lane, b.rowBegin, b.rowEnd(), 0, x.cols);
  });
}

} // namespace llmc::cmodel::detail

namespace llmc::cmodel {

llvm::Error checkComputeRules(const cmd::Compute &compute,
                              const ComputeOperands &operands) {
  return detail::Rules(compute, operands).check();
}

} // namespace llmc::cmodel
