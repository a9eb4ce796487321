//===- FoldIOCasts.cpp - the tpu-fold-io-casts pass -----------------------===//

#include "dialects/tpu/Transforms/Passes.h"

#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"

namespace llmc::tpu {
#define GEN_PASS_DEF_TPUFOLDIOCASTSPASS
#include "dialects/tpu/Transforms/Passes.h.inc"
} // namespace llmc::tpu

using namespace mlir;
using namespace llmc::tpu;

namespace {

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// A float-to-float tpu.Cast, or null.
CastOp getFloatCast(Operation *op) {
  auto cast = dyn_cast_or_null<CastOp>(op);
  if (!cast || !isFloatTensor(cast.getInput().getType()) ||
      !isFloatTensor(cast.getType()))
    return nullptr;
  return cast;
}

struct TpuFoldIOCastsPass
    : llmc::tpu::impl::TpuFoldIOCastsPassBase<TpuFoldIOCastsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &body = function.getBody().front();
    auto keeps = [&](llvm::StringRef role) {
      if (keepRoles.empty())
        return role == "logits";
      return llvm::is_contained(keepRoles, role.str());
    };
    // Inputs: top.Input %arg -> tpu.Cast -> users.
    // Collected first: folding erases the casts the walk would visit next.
    SmallVector<llmc::top::InputOp> inputs(
        function.getOps<llmc::top::InputOp>());
    for (llmc::top::InputOp input : inputs) {
      auto argument = dyn_cast<BlockArgument>(input.getInput());
      if (!argument || keeps(input.getRole().value_or("")) ||
          !input->hasOneUse())
        continue;
      CastOp castOp = getFloatCast(*input->user_begin());
      if (!castOp)
        continue;
      auto type = cast<RankedTensorType>(castOp.getType());
      argument.setType(type);
      input.getResult().setType(type);
      castOp.getResult().replaceAllUsesWith(input.getResult());
      castOp.erase();
    }
    // Outputs: return (tpu.Cast %x) -> return %x.
    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    for (OpOperand &operand : returnOp->getOpOperands()) {
      auto role = function.getResultAttrOfType<StringAttr>(
          operand.getOperandNumber(), "llmc.role");
      if (keeps(role ? role.getValue() : ""))
        continue;
      CastOp castOp = getFloatCast(operand.get().getDefiningOp());
      if (!castOp)
        continue;
      operand.set(castOp.getInput());
      if (castOp->use_empty())
        castOp.erase();
    }
    function.setFunctionType(FunctionType::get(
        &getContext(), body.getArgumentTypes(), returnOp->getOperandTypes()));
  }
};

} // namespace
