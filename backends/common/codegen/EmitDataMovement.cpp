//===- EmitDataMovement.cpp - gathers, arg-max and concatenation ----------===//

#include "backends/common/codegen/Emitters.h"

#include "backends/common/cmodel/DType.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace llmc::codegen {
namespace {

/// Rows of `table` [V, C] picked by `indices` [N] into `output` [N, C]: a
/// DMA gather into local memory, then a store.
llvm::Error emitGather(Emitter &emitter, const ValuePlacement &placement,
                       tpu::GatherOp gather) {
  if (gather.getAxis() != 0)
    return opError(gather, "codegen gathers rows (axis 0) only");
  auto tableType = cast<ShapedType>(gather.getTable().getType());
  int64_t cols = tableType.getNumElements() / tableType.getDimSize(0);
  llvm::Expected<cmd::GlobalTensor> table =
      placement.view(gather.getTable(), cols);
  if (!table)
    return table.takeError();
  int64_t count = getNumElements(gather.getIndices());
  llvm::Expected<cmd::GlobalTensor> indices =
      placement.view(gather.getIndices(), count);
  if (!indices)
    return indices.takeError();
  llvm::Expected<cmd::GlobalTensor> output =
      placement.view(gather.getResult(), cols);
  if (!output)
    return output.takeError();
  emitter.getArena().beginOp();
  int64_t lanes = emitter.getLanes();
  uint64_t rowBytes = emitter.getRowBytes(cols, table->dtype());
  uint64_t budget = emitter.getArena().ringCapacity() / 3;
  if (rowBytes > budget)
    return opError(gather, "a table row is too wide for local memory");
  int64_t perLane = std::min<int64_t>(llvm::divideCeil(count, lanes),
                                      budget / rowBytes);
  int64_t tileRows = perLane * lanes;
  for (int64_t r0 = 0; r0 < count; r0 += tileRows) {
    int64_t rows = std::min(tileRows, count - r0);
    cmd::LocalTensor local =
        emitter.rowsLayout(rows, cols, table->dtype(), perLane);
    if (llvm::Error error = emitter.ring(local))
      return error;
    emitter.gather(*table, sliceCols(*indices, r0, rows), local);
    emitter.store(local, sliceRows(*output, r0, rows));
  }
  return llvm::Error::success();
}

/// The first maximum of each row: each lane reduces its columns, the
/// candidates go through scratch to lane 0, which reduces them with their
/// column indices as the map.
llvm::Error emitArgMax(Emitter &emitter, const ValuePlacement &placement,
                       tpu::ArgOp arg) {
  auto type = cast<ShapedType>(arg.getInput().getType());
  if (arg.getMode() != top::ArgMode::ArgMax ||
      (arg.getAxis() != type.getRank() - 1 && arg.getAxis() != -1))
    return opError(arg, "codegen computes arg-max over the last axis only");
  int64_t cols = type.getShape().back();
  llvm::Expected<cmd::GlobalTensor> input = placement.view(arg.getInput(), cols);
  if (!input)
    return input.takeError();
  llvm::Expected<cmd::GlobalTensor> output = placement.view(arg.getResult(), 1);
  if (!output)
    return output.takeError();
  auto scratch = arg->getAttrOfType<tpu::MemAttr>("scratch");
  if (!scratch)
    return opError(arg, "has no scratch: run tpu-address-assign first");
  int64_t lanes = emitter.getLanes();
  int64_t perLane = llvm::divideCeil(cols, lanes);
  auto usedLanes = static_cast<uint32_t>(llvm::divideCeil(cols, perLane));
  cmd::DType type32 = input->dtype();
  for (int64_t row = 0; row < input->rows(); ++row) {
    emitter.getArena().beginOp();
    cmd::LocalTensor x = emitter.colsLayout(1, cols, type32, perLane);
    cmd::LocalTensor values = emitter.colsLayout(1, usedLanes, type32, 1);
    cmd::LocalTensor indices =
        emitter.colsLayout(1, usedLanes, cmd::DTYPE_I32, 1);
    for (cmd::LocalTensor *tensor : {&x, &values, &indices})
      if (llvm::Error error = emitter.ring(*tensor))
        return error;
    emitter.load(sliceRows(*input, row, 1), x);
    emitter.compute(cmodel::makeCompute(cmd::ARGMAX, {x}, {values, indices}));
    uint64_t base = scratch.getOffset() + row * 2 * lanes * 4;
    cmd::GlobalTensor valuesGlobal = cmodel::globalTensor(
        cmd::REGION_ACTIVATION, base, 1, usedLanes, type32);
    cmd::GlobalTensor indicesGlobal = cmodel::globalTensor(
        cmd::REGION_ACTIVATION, base + lanes * 4, 1, usedLanes, cmd::DTYPE_I32);
    emitter.store(values, valuesGlobal);
    emitter.store(indices, indicesGlobal);
    cmd::LocalTensor candidates = emitter.replicated(1, usedLanes, type32, 1);
    cmd::LocalTensor map = emitter.replicated(1, usedLanes, cmd::DTYPE_I32, 1);
    cmd::LocalTensor bestValue = emitter.replicated(1, 1, type32, 1);
    cmd::LocalTensor bestIndex = emitter.replicated(1, 1, cmd::DTYPE_I32, 1);
    for (cmd::LocalTensor *tensor : {&candidates, &map, &bestValue, &bestIndex})
      if (llvm::Error error = emitter.ring(*tensor))
        return error;
    emitter.load(valuesGlobal, candidates);
    emitter.load(indicesGlobal, map);
    emitter.compute(cmodel::makeCompute(cmd::ARGMAX, {candidates, map},
                                        {bestValue, bestIndex}));
    emitter.store(bestIndex, sliceRows(*output, row, 1));
  }
  return llvm::Error::success();
}

/// Copies every input the address plan did not compute in place into its
/// slice of the output.
llvm::Error emitConcat(Emitter &emitter, const ValuePlacement &placement,
                       tpu::ConcatOp concat) {
  auto type = cast<ShapedType>(concat.getType());
  int64_t axis = concat.getAxis();
  int64_t inner = 1;
  for (int64_t dim : type.getShape().drop_front(axis))
    inner *= dim;
  llvm::Expected<cmd::GlobalTensor> output =
      placement.view(concat.getResult(), inner);
  if (!output)
    return output.takeError();
  int64_t column = 0;
  for (Value input : concat.getInputs()) {
    int64_t cols = getNumElements(input) / output->rows();
    llvm::Expected<cmd::GlobalTensor> from = placement.view(input, cols);
    if (!from)
      return from.takeError();
    cmd::GlobalTensor to = sliceCols(*output, column, cols);
    column += cols;
    if (from->region() == to.region() && from->offset() == to.offset())
      continue;
    if (llvm::Error error = emitCopy(emitter, *from, to))
      return error;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error emitDataMovementOp(Emitter &emitter,
                               const ValuePlacement &placement,
                               Operation *op) {
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](tpu::GatherOp gather) {
        return emitGather(emitter, placement, gather);
      })
      .Case([&](tpu::ArgOp arg) { return emitArgMax(emitter, placement, arg); })
      .Case([&](tpu::ConcatOp concat) {
        return emitConcat(emitter, placement, concat);
      })
      .Default([&](Operation *) {
        return opError(op, "is not a data-movement op");
      });
}

} // namespace llmc::codegen
