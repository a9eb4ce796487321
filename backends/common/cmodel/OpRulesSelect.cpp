//===- OpRulesSelect.cpp - what COMPARE, SELECT, ARGMAX, TOPK accept ------===//

#include "backends/common/cmodel/OpRules.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

#include <string>

namespace llmc::cmodel::detail {

/// The integer types a mask, a condition or a comparison result may have.
static bool isMaskDType(DType type) {
  return type == cmd::DTYPE_U8 || type == cmd::DTYPE_I8 ||
         type == cmd::DTYPE_I32;
}

absl::Status Rules::checkCompare() {
  LLMC_RETURN_IF_ERROR(arity(2, 2, 1, 1));
  const LocalGeometry &a = in(0), &b = in(1), &y = out(0);
  if (!isFloatDType(a.dtype) && !isMaskDType(a.dtype))
    return mismatch(
        support::strCat(a.describe(), " must be a float type, u8, i8 or i32"));
  if (b.dtype != a.dtype)
    return mismatch(support::strCat(a.describe(), " and ", b.describe(),
                                    " must have one type"));
  if (!isMaskDType(y.dtype))
    return mismatch(support::strCat(y.describe(), " must be u8, i8 or i32"));
  if (!cmd::Comparison_IsValid(compute.comparison()) ||
      compute.comparison() == cmd::COMPARISON_INVALID)
    return bad("needs a comparison");
  return checkElementwiseOperands();
}

absl::Status Rules::checkSelect() {
  LLMC_RETURN_IF_ERROR(arity(3, 3, 1, 1));
  const LocalGeometry &cond = in(0), &x = in(1), &y = in(2), &z = out(0);
  if (!isMaskDType(cond.dtype))
    return mismatch(support::strCat(cond.describe(), " must be u8, i8 or i32"));
  if (isInt4DType(x.dtype))
    return mismatch(
        support::strCat(x.describe(), " must have whole-byte elements"));
  if (y.dtype != x.dtype || z.dtype != x.dtype)
    return mismatch(support::strCat(x.describe(), ", ", y.describe(), " and ",
                                    z.describe(), " must have one type"));
  return checkElementwiseOperands();
}

absl::Status Rules::checkRanking(int64_t k) {
  // Inputs x, [index map]; outputs values, indices. Each lane reduces the
  // columns of x it holds into the k output columns it holds.
  if (k < 1)
    return bad(support::strCat("k (group) must be positive, got ", k));
  LLMC_RETURN_IF_ERROR(arity(1, 2, 2, 2));
  const LocalGeometry &x = in(0);
  const LocalGeometry *map = ops.getInput(1);
  if (!ops.getOutput(0) || !ops.getOutput(1))
    return bad("the values and indices outputs are required");
  const LocalGeometry &values = out(0), &indices = out(1);
  LLMC_RETURN_IF_ERROR(requireFloat(x));
  LLMC_RETURN_IF_ERROR(requireType(values, x.dtype));
  LLMC_RETURN_IF_ERROR(requireType(indices, cmd::DTYPE_I32));
  if (values.rows != x.rows)
    return bad(support::strCat(values.describe(), " must have the rows of ",
                               x.describe()));
  LLMC_RETURN_IF_ERROR(requireShape(indices, values.rows, values.cols));
  if (map) {
    LLMC_RETURN_IF_ERROR(requireType(*map, cmd::DTYPE_I32));
    LLMC_RETURN_IF_ERROR(requireShape(*map, x.rows, x.cols));
  }
  return forLanes([&](int64_t lane, const LaneBlock &b) -> absl::Status {
    LaneBlock source = x.getBlock(lane);
    if (b.colCount != k || source.empty())
      return bad(support::strCat(
          "lane ", lane, " must hold ",
          (k == 1 ? std::string("one column") : std::to_string(k) + " columns"),
          " of ", values.describe(), " and some columns of ", x.describe()));
    LLMC_RETURN_IF_ERROR(
        holds(indices, lane, b.rowBegin, b.rowEnd(), b.colBegin, b.colEnd()));
    LLMC_RETURN_IF_ERROR(holds(x, lane, b.rowBegin, b.rowEnd(), source.colBegin,
                               source.colEnd()));
    return map ? holds(*map, lane, b.rowBegin, b.rowEnd(), source.colBegin,
                       source.colEnd())
               : absl::OkStatus();
  });
}

} // namespace llmc::cmodel::detail
