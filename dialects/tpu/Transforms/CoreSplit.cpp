//===- CoreSplit.cpp - the tpu-core-split pass ----------------------------===//

#include "dialects/tpu/Transforms/Passes.h"

#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

namespace llmc::tpu {
#define GEN_PASS_DEF_TPUCORESPLITPASS
#include "dialects/tpu/Transforms/Passes.h.inc"
} // namespace llmc::tpu

using namespace mlir;
using namespace llmc;
using namespace llmc::tpu;

namespace {

/// The bytes of the op's operands that are weights.
int64_t getWeightBytes(Operation *op) {
  int64_t bits = 0;
  for (Value operand : op->getOperands()) {
    if (!operand.getDefiningOp<top::WeightOp>())
      continue;
    auto type = cast<ShapedType>(operand.getType());
    Type element = type.getElementType();
    if (auto quantized = dyn_cast<mlir::quant::QuantizedType>(element))
      element = quantized.getStorageType();
    bits += type.getNumElements() * element.getIntOrFloatBitWidth();
  }
  return bits / 8;
}

struct TpuCoreSplitPass
    : llmc::tpu::impl::TpuCoreSplitPassBase<TpuCoreSplitPass> {
  using Base::Base;

  void runOnOperation() override {
    if (cores <= 1)
      return;
    getOperation().walk([&](Operation *op) {
      if (!isa<MatMulOp, A16MatMulOp, MLPOp, A16MLPOp>(op) ||
          op->hasAttr("core_split"))
        return;
      if (auto matmul = dyn_cast<MatMulOp>(op))
        if (matmul.getLeftTranspose() || !matmul.getRightTranspose())
          return;
      auto result = cast<RankedTensorType>(op->getResult(0).getType());
      int64_t axis = result.getRank() - 1;
      if (result.getDimSize(axis) < cores ||
          getWeightBytes(op) < minWeightBytes)
        return;
      op->setAttr("core_split",
                  CoreSplitAttr::get(op->getContext(), cores, axis));
    });
  }
};

} // namespace
