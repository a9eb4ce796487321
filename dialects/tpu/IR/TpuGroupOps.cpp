//===- TpuGroupOps.cpp - verifiers of layer groups ------------------------===//

#include "dialects/tpu/IR/TpuOps.h"

using namespace mlir;
using namespace llmc::tpu;

LogicalResult GroupOp::verify() {
  if (static_cast<int64_t>(getGroupId()) < 0)
    return emitOpError("group_id must be >= 0, got ")
           << static_cast<int64_t>(getGroupId());
  if (static_cast<int64_t>(getStages()) < 1)
    return emitOpError("stages must be >= 1, got ")
           << static_cast<int64_t>(getStages());
  if ((*this)->getParentOfType<GroupOp>())
    return emitOpError("is nested in another tpu.Group; layer groups do not "
                       "nest");
  ArrayRef<int64_t> factors = getTileFactors();
  for (int64_t factor : factors)
    if (factor < 1)
      return emitOpError("tile_factors must all be >= 1, got ") << factor;
  for (auto [index, result] : llvm::enumerate(getOutputs())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    if (type.getRank() < static_cast<int64_t>(factors.size()))
      return emitOpError("has ")
             << factors.size() << " tile_factors but result #" << index
             << " has rank " << type.getRank();
    for (auto [dim, factor] : llvm::enumerate(factors))
      if (!type.isDynamicDim(dim) && factor > type.getDimSize(dim))
        return emitOpError("cuts dimension ")
               << dim << " of size " << type.getDimSize(dim) << " into "
               << factor << " tiles";
  }
  return success();
}

LogicalResult GroupOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body takes ")
           << body.getNumArguments() << " arguments for " << getInputs().size()
           << " inputs";
  for (auto [index, argument, input] :
       llvm::enumerate(body.getArgumentTypes(), getInputs().getTypes()))
    if (argument != input)
      return emitOpError("body argument #")
             << index << " has type " << argument << " but input #" << index
             << " has type " << input;
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getOperands().size() != getNumResults())
    return emitOpError("yields ")
           << yield.getOperands().size() << " values for " << getNumResults()
           << " results";
  for (auto [index, yielded, result] :
       llvm::enumerate(yield.getOperandTypes(), getResultTypes()))
    if (yielded != result)
      return emitOpError("yields ")
             << yielded << " as result #" << index << " of type " << result;
  return success();
}
