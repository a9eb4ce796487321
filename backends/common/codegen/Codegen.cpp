//===- Codegen.cpp - a placed tpu piece to a command stream ---------------===//

#include "backends/common/codegen/Codegen.h"

#include "backends/common/codegen/DmaSchedule.h"
#include "backends/common/codegen/Emitters.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/ResidualAdd.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "support/LlvmStatus.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace llmc::codegen {

/// Leaves and views emit nothing: their bytes are already in place.
static bool emitsNothing(Operation *op) {
  return isa<top::InputOp, top::WeightOp, top::NoneOp, tpu::ConstantOp,
             tpu::ReshapeOp, func::ReturnOp>(op);
}

/// The last op of `function` that issues commands (a projection issues
/// those of the residual add it absorbs).
static Operation *getLastWork(func::FuncOp function) {
  Operation *last = nullptr;
  llvm::DenseSet<Operation *> absorbed;
  for (Operation &op : function.getBody().front()) {
    if (emitsNothing(&op) || absorbed.contains(&op))
      continue;
    if (Operation *add = tpu::getAbsorbedResidualAdd(&op))
      absorbed.insert(add);
    last = &op;
  }
  return last;
}

static llvm::Error emitOp(SectionWriter &sections,
                          const ValuePlacement &placement, Operation *op,
                          bool endsPiece) {
  Emitter &emitter = sections.serial();
  if (emitsNothing(op))
    return llvm::Error::success();
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case<tpu::MatMulOp, tpu::A16MatMulOp, tpu::A8MatMulOp, tpu::MLPOp,
            tpu::A16MLPOp, tpu::A8MLPOp>([&](Operation *op) {
        return emitLinearOp(sections, placement, op, nullptr, endsPiece);
      })
      .Case<tpu::AddOp, tpu::MulOp, tpu::DivOp, tpu::MulConstOp, tpu::SiLUOp,
            tpu::GELUOp, tpu::TanhOp, tpu::CastOp, tpu::CompareOp, tpu::WhereOp,
            tpu::RMSNormOp, tpu::LayerNormOp, tpu::SoftmaxOp, tpu::CumSumOp,
            tpu::RopeOp>(
          [&](Operation *op) { return emitRowwiseOp(emitter, placement, op); })
      .Case<tpu::FAttentionOp>([&](Operation *op) {
        return emitAttentionOp(emitter, placement, op);
      })
      .Case<tpu::GatherOp, tpu::A16GatherOp, tpu::ScatterElementsOp,
            tpu::SliceOp, tpu::ArgOp, tpu::TopKOp, tpu::ConcatOp,
            tpu::PermuteOp>([&](Operation *op) {
        return emitDataMovementOp(emitter, placement, op);
      })
      .Default([&](Operation *op) {
        return opError(op, "has no codegen for this chip family yet");
      });
}

/// Copies each returned value the address plan did not compute into its IO
/// slot (a reshaped input, a concat slice).
static llvm::Error emitResultCopies(Emitter &emitter,
                                    const ValuePlacement &placement,
                                    func::FuncOp function) {
  Operation *terminator = function.getBody().front().getTerminator();
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    auto mem = dyn_cast_or_null<tpu::MemAttr>(
        function.getResultAttr(index, "tpu.addr"));
    if (!mem)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "result #" + llvm::Twine(index) +
              " has no tpu.addr: run tpu-address-assign first");
    llvm::Expected<cmd::GlobalTensor> from = placement.view(value);
    if (!from)
      return from.takeError();
    if (from->region() == cmd::REGION_IO &&
        from->offset() == static_cast<uint64_t>(mem.getOffset()))
      continue;
    cmd::GlobalTensor to = *from;
    to.set_region(cmd::REGION_IO);
    to.set_offset(mem.getOffset());
    if (llvm::Error error = emitCopy(emitter, *from, to))
      return error;
  }
  return llvm::Error::success();
}

llvm::Expected<cmd::CommandStream>
generateCommandStream(func::FuncOp function,
                      const plugins::ChipDescriptor &chip,
                      const WeightOffsets &weights) {
  if (llvm::Error error = support::toLlvmError(chip.validate()))
    return std::move(error);
  SectionWriter sections(chip, function.getSymName());
  ValuePlacement placement(weights);
  llvm::DenseSet<Operation *> absorbed;
  Operation *lastWork = getLastWork(function);
  for (Operation &op : function.getBody().front()) {
    if (absorbed.contains(&op))
      continue;
    if (auto split = op.getAttrOfType<tpu::CoreSplitAttr>("core_split")) {
      if (split.getCores() > chip.cores)
        return opError(&op, "is split across " + llvm::Twine(split.getCores()) +
                                " cores; " + chip.id + " has " +
                                llvm::Twine(chip.cores));
      if (!isa<tpu::MatMulOp, tpu::A16MatMulOp, tpu::MLPOp, tpu::A16MLPOp>(op))
        return opError(&op, "has a core_split, which codegen implements for "
                            "projections and MLPs only");
    }
    if (isa<tpu::GroupOp>(op)) {
      if (llvm::Error error =
              emitGroupOp(sections, placement, &op, &op == lastWork))
        return std::move(error);
      continue;
    }
    // A residual add is computed in the projection's output tiles: its
    // operand is never stored and loaded again.
    if (Operation *add = tpu::getAbsorbedResidualAdd(&op)) {
      absorbed.insert(add);
      if (llvm::Error error =
              emitLinearOp(sections, placement, &op, add, &op == lastWork))
        return std::move(error);
      continue;
    }
    if (llvm::Error error = emitOp(sections, placement, &op, &op == lastWork))
      return std::move(error);
  }
  if (llvm::Error error =
          emitResultCopies(sections.serial(), placement, function))
    return std::move(error);
  cmd::CommandStream stream = sections.finish();
  if (llvm::Error error = support::toLlvmError(hoistWeightLoads(stream, chip)))
    return std::move(error);
  return stream;
}

} // namespace llmc::codegen
