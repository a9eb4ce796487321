//===- EmitGroup.cpp - a layer group's commands ---------------------------===//
//
// A group's held values (a norm replicated on every lane or its rows over
// the lanes, a projection's or attention's output rows over the lanes,
// gathered table rows over the lanes) are computed into the local buffers
// the layer-group pass placed (their `lg` addresses), held until the group
// ends, and a reshape of one stays where it is. Its other ops are emitted
// as on their own, reading the held values where they are instead of
// loading them, and storing only what the group's tpu.Store ops write back.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/Emitters.h"

#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/ResidualAdd.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace llmc::codegen {

/// Ops that issue no commands of their own: the group's edges (the ops
/// that read and write them do the DMA) and absent operands.
static bool isEdge(Operation &op) {
  return isa<tpu::LoadOp, tpu::StoreOp, tpu::YieldOp, top::NoneOp>(op);
}

/// The buffer `op`'s `lg` places its result in, laid out as `layout` says
/// (replicated, or rows over the lanes: `lg`'s rows per lane, else one row
/// per lane), held until the group ends.
static llvm::Expected<cmd::LocalTensor>
holdResult(Emitter &emitter, Operation *op, cmd::Layout layout) {
  auto lg = op->getAttrOfType<tpu::LayerGroupAttr>("lg");
  if (!lg || lg.getLocalSize() <= 0)
    return opError(op, "is held by its layer group but lg gives it no local "
                       "buffer");
  Value result = op->getResult(0);
  int64_t cols = cast<ShapedType>(result.getType()).getShape().back();
  int64_t rows = getNumElements(result) / cols;
  llvm::Expected<cmd::DType> dtype =
      getDType(cast<ShapedType>(result.getType()).getElementType());
  if (!dtype)
    return dtype.takeError();
  int64_t lanes = emitter.getLanes();
  cmd::LocalTensor output =
      layout == cmd::LAYOUT_REPLICATED
          ? emitter.replicated(rows, cols, *dtype, static_cast<uint32_t>(lanes))
          : emitter.rowsLayout(rows, cols, *dtype,
                               lg.getRowsPerLane() > 0
                                   ? lg.getRowsPerLane()
                                   : llvm::divideCeil(rows, lanes));
  output.set_address(lg.getLocalAddr());
  if (emitter.getFootprint(output) > static_cast<uint64_t>(lg.getLocalSize()))
    return opError(op, "needs " + llvm::Twine(emitter.getFootprint(output)) +
                           " bytes per lane but lg holds " +
                           llvm::Twine(lg.getLocalSize()));
  if (llvm::Error error =
          emitter.getArena().hold(lg.getLocalAddr(), lg.getLocalSize()))
    return opError(op, llvm::toString(std::move(error)));
  return output;
}

/// Computes `op` (a norm) into the buffer its `lg` places: whole on every
/// lane, or its rows over the lanes when `lg` gives rows per lane.
static llvm::Expected<cmd::LocalTensor>
holdNorm(Emitter &emitter, const ValuePlacement &placement, Operation *op) {
  auto lg = op->getAttrOfType<tpu::LayerGroupAttr>("lg");
  bool splitsRows = lg && lg.getRowsPerLane() > 0;
  llvm::Expected<cmd::LocalTensor> output = holdResult(
      emitter, op, splitsRows ? cmd::LAYOUT_ROWS : cmd::LAYOUT_REPLICATED);
  if (!output)
    return output.takeError();
  if (llvm::Error error = emitHeldNorm(emitter, placement, op, *output))
    return std::move(error);
  return output;
}

/// With keep-values (llmc compare) a held value has a global range too:
/// `held` is stored there.
static llvm::Error storeIfPlaced(Emitter &emitter,
                                 const ValuePlacement &placement, Operation *op,
                                 const cmd::LocalTensor &held) {
  if (!op->getAttr("addr"))
    return llvm::Error::success();
  llvm::Expected<cmd::GlobalTensor> to =
      placement.view(op->getResult(0), held.cols());
  if (!to)
    return to.takeError();
  emitter.store(held, *to);
  return llvm::Error::success();
}

llvm::Error emitGroupMembers(SectionWriter &sections,
                             const ValuePlacement &placement,
                             llvm::ArrayRef<Operation *> members,
                             bool endsPiece) {
  Operation *last = nullptr;
  llvm::DenseSet<Operation *> absorbed;
  for (Operation *inner : members) {
    if (absorbed.contains(inner))
      continue;
    if (Operation *add = tpu::getAbsorbedResidualAdd(inner))
      absorbed.insert(add);
    last = inner;
  }
  Emitter &emitter = sections.serial();
  HeldValues held;
  // `inner`'s result is `tensor` until the group ends.
  auto keep = [&](Operation *inner,
                  const cmd::LocalTensor &tensor) -> llvm::Error {
    held[inner->getResult(0)] = tensor;
    return storeIfPlaced(emitter, placement, inner, tensor);
  };
  for (Operation *inner : members) {
    if (absorbed.contains(inner))
      continue;
    if (getRowwiseNorm(inner)) {
      llvm::Expected<cmd::LocalTensor> output =
          holdNorm(emitter, placement, inner);
      if (!output)
        return output.takeError();
      if (llvm::Error error = keep(inner, *output))
        return error;
      continue;
    }
    if (isa<tpu::GatherOp, tpu::FAttentionOp>(inner)) {
      llvm::Expected<cmd::LocalTensor> rows =
          holdResult(emitter, inner, cmd::LAYOUT_ROWS);
      if (!rows)
        return rows.takeError();
      if (llvm::Error error =
              isa<tpu::GatherOp>(inner)
                  ? emitHeldGather(emitter, placement, inner, *rows)
                  : emitAttentionOp(emitter, placement, inner, &*rows))
        return error;
      if (llvm::Error error = keep(inner, *rows))
        return error;
      continue;
    }
    if (isa<tpu::ReshapeOp>(inner)) {
      // The same rows in the same place: a held input stays held.
      auto it = held.find(inner->getOperand(0));
      if (it == held.end())
        return opError(inner, "reshapes a value its layer group does not "
                              "hold");
      cmd::LocalTensor same = it->second;
      if (llvm::Error error = keep(inner, same))
        return error;
      continue;
    }
    if (isa<tpu::RopeOp>(inner)) {
      if (llvm::Error error = emitRowwiseOp(emitter, placement, inner, &held))
        return error;
      continue;
    }
    if (!isa<tpu::MatMulOp, tpu::A16MatMulOp, tpu::MLPOp, tpu::A16MLPOp>(inner))
      return opError(inner, "has no codegen inside a layer group");
    // A projection whose lg places its result computes it there.
    std::optional<cmd::LocalTensor> output;
    if (auto lg = inner->getAttrOfType<tpu::LayerGroupAttr>("lg");
        lg && lg.getLocalSize() > 0) {
      llvm::Expected<cmd::LocalTensor> rows =
          holdResult(emitter, inner, cmd::LAYOUT_ROWS);
      if (!rows)
        return rows.takeError();
      output = *rows;
    }
    if (llvm::Error error = emitLinearOp(
            sections, placement, inner, tpu::getAbsorbedResidualAdd(inner),
            endsPiece && inner == last, &held, output ? &*output : nullptr))
      return error;
    if (output)
      if (llvm::Error error = keep(inner, *output))
        return error;
  }
  return llvm::Error::success();
}

llvm::Error emitGroupOp(SectionWriter &sections,
                        const ValuePlacement &placement, Operation *op,
                        bool endsPiece) {
  SmallVector<Operation *> members;
  for (Operation &inner : cast<tpu::GroupOp>(op).getBody().front())
    if (!isEdge(inner))
      members.push_back(&inner);
  if (llvm::Error error =
          emitGroupMembers(sections, placement, members, endsPiece))
    return error;
  sections.serial().getArena().endGroup();
  return llvm::Error::success();
}

} // namespace llmc::codegen
