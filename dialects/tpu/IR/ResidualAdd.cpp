//===- ResidualAdd.cpp - the residual add a projection absorbs ------------===//

#include "dialects/tpu/IR/ResidualAdd.h"

#include "dialects/tpu/IR/TpuOps.h"

using namespace mlir;

namespace llmc::tpu {

Operation *getAbsorbedResidualAdd(Operation *op) {
  if (!isa<MatMulOp, A16MatMulOp, MLPOp, A16MLPOp>(op) ||
      !op->getResult(0).hasOneUse())
    return nullptr;
  auto add = dyn_cast<AddOp>(*op->getResult(0).getUsers().begin());
  if (!add || add.getLhs() == add.getRhs() ||
      add.getLhs().getType() != add.getRhs().getType() ||
      add.getType() != add.getLhs().getType())
    return nullptr;
  Value residual =
      add.getLhs() == op->getResult(0) ? add.getRhs() : add.getLhs();
  Operation *producer = residual.getDefiningOp();
  if (producer && (producer->getBlock() != op->getBlock() ||
                   !producer->isBeforeInBlock(op)))
    return nullptr;
  return add;
}

Operation *getAbsorbingLinearOp(Operation *add) {
  if (!isa<AddOp>(add))
    return nullptr;
  for (Value operand : add->getOperands())
    if (Operation *producer = operand.getDefiningOp())
      if (getAbsorbedResidualAdd(producer) == add)
        return producer;
  return nullptr;
}

} // namespace llmc::tpu
