//===- OpRulesSelect.cpp - what COMPARE, SELECT, ARGMAX, TOPK accept ------===//

#include "backends/common/cmodel/OpRules.h"

#include "backends/common/cmodel/Trap.h"

#include <string>

namespace llmc::cmodel::detail {

/// The integer types a mask, a condition or a comparison result may have.
static bool isMaskDType(DType type) {
  return type == cmd::DTYPE_U8 || type == cmd::DTYPE_I8 ||
         type == cmd::DTYPE_I32;
}

llvm::Error Rules::checkCompare() {
  if (llvm::Error error = arity(2, 2, 1, 1))
    return error;
  const LocalGeometry &a = in(0), &b = in(1), &y = out(0);
  if (!isFloatDType(a.dtype) && !isMaskDType(a.dtype))
    return mismatch(a.describe() + " must be a float type, u8, i8 or i32");
  if (b.dtype != a.dtype)
    return mismatch(a.describe() + " and " + b.describe() +
                    " must have one type");
  if (!isMaskDType(y.dtype))
    return mismatch(y.describe() + " must be u8, i8 or i32");
  if (!cmd::Comparison_IsValid(compute.comparison()) ||
      compute.comparison() == cmd::COMPARISON_INVALID)
    return bad("needs a comparison");
  return checkElementwiseOperands();
}

llvm::Error Rules::checkSelect() {
  if (llvm::Error error = arity(3, 3, 1, 1))
    return error;
  const LocalGeometry &cond = in(0), &x = in(1), &y = in(2), &z = out(0);
  if (!isMaskDType(cond.dtype))
    return mismatch(cond.describe() + " must be u8, i8 or i32");
  if (isInt4DType(x.dtype))
    return mismatch(x.describe() + " must have whole-byte elements");
  if (y.dtype != x.dtype || z.dtype != x.dtype)
    return mismatch(x.describe() + ", " + y.describe() + " and " +
                    z.describe() + " must have one type");
  return checkElementwiseOperands();
}

llvm::Error Rules::checkRanking(int64_t k) {
  // Inputs x, [index map]; outputs values, indices. Each lane reduces the
  // columns of x it holds into the k output columns it holds.
  if (k < 1)
    return bad("k (group) must be positive, got " + llvm::Twine(k));
  if (llvm::Error error = arity(1, 2, 2, 2))
    return error;
  const LocalGeometry &x = in(0);
  const LocalGeometry *map = ops.getInput(1);
  if (!ops.getOutput(0) || !ops.getOutput(1))
    return bad("the values and indices outputs are required");
  const LocalGeometry &values = out(0), &indices = out(1);
  if (llvm::Error error = requireFloat(x))
    return error;
  if (llvm::Error error = requireType(values, x.dtype))
    return error;
  if (llvm::Error error = requireType(indices, cmd::DTYPE_I32))
    return error;
  if (values.rows != x.rows)
    return bad(values.describe() + " must have the rows of " + x.describe());
  if (llvm::Error error = requireShape(indices, values.rows, values.cols))
    return error;
  if (map) {
    if (llvm::Error error = requireType(*map, cmd::DTYPE_I32))
      return error;
    if (llvm::Error error = requireShape(*map, x.rows, x.cols))
      return error;
  }
  return forLanes([&](int64_t lane, const LaneBlock &b) -> llvm::Error {
    LaneBlock source = x.getBlock(lane);
    if (b.colCount != k || source.empty())
      return bad("lane " + llvm::Twine(lane) + " must hold " +
                 (k == 1 ? std::string("one column")
                         : std::to_string(k) + " columns") +
                 " of " + values.describe() + " and some columns of " +
                 x.describe());
    if (llvm::Error error = holds(indices, lane, b.rowBegin, b.rowEnd(),
                                  b.colBegin, b.colEnd()))
      return error;
    if (llvm::Error error = holds(x, lane, b.rowBegin, b.rowEnd(),
                                  source.colBegin, source.colEnd()))
      return error;
    return map ? holds(*map, lane, b.rowBegin, b.rowEnd(), source.colBegin,
                       source.colEnd())
               : llvm::Error::success();
  });
}

} // namespace llmc::cmodel::detail
