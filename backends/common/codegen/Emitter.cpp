//===- Emitter.cpp - issuing commands with their waits --------------------===//

#include "backends/common/codegen/Emitter.h"

#include "backends/common/cmodel/DType.h"

#include "llvm/Support/MathExtras.h"

namespace llmc::codegen {

using cmodel::getDTypeBytes;

Emitter::Emitter(const plugins::ChipDescriptor &chip, llvm::StringRef name)
    : chip(chip), arena(chip.localMemoryBytesPerLane, chip.euBytesPerLane),
      builder(name) {}

uint64_t Emitter::getRowBytes(int64_t cols, cmd::DType dtype) const {
  return llvm::alignTo(getDTypeBytes(dtype, cols), chip.euBytesPerLane);
}

cmd::LocalTensor Emitter::rowsLayout(int64_t rows, int64_t cols,
                                     cmd::DType dtype, int64_t perLane,
                                     uint32_t laneBegin) const {
  auto lanes = static_cast<uint32_t>(llvm::divideCeil(rows, perLane));
  return cmodel::localTensor(laneBegin, lanes, 0, rows, cols, dtype,
                             cmd::LAYOUT_ROWS, perLane,
                             getRowBytes(cols, dtype));
}

cmd::LocalTensor Emitter::colsLayout(int64_t rows, int64_t cols,
                                     cmd::DType dtype, int64_t perLane,
                                     uint32_t laneBegin) const {
  auto lanes = static_cast<uint32_t>(llvm::divideCeil(cols, perLane));
  return cmodel::localTensor(laneBegin, lanes, 0, rows, cols, dtype,
                             cmd::LAYOUT_COLS, perLane,
                             getRowBytes(perLane, dtype));
}

cmd::LocalTensor Emitter::replicated(int64_t rows, int64_t cols,
                                     cmd::DType dtype, uint32_t laneCount,
                                     uint32_t laneBegin) const {
  return cmodel::localTensor(laneBegin, laneCount, 0, rows, cols, dtype,
                             cmd::LAYOUT_REPLICATED, 0,
                             getRowBytes(cols, dtype));
}

cmd::LocalTensor Emitter::viewRows(const cmd::LocalTensor &tensor,
                                   int64_t rows, int64_t col, int64_t cols) {
  auto lanes = static_cast<uint32_t>(llvm::divideCeil(rows, tensor.per_lane()));
  return cmodel::localTensor(
      tensor.lane_begin(), lanes,
      tensor.address() + cmodel::getDTypeBytes(tensor.dtype(), col), rows, cols,
      tensor.dtype(), cmd::LAYOUT_ROWS, tensor.per_lane(),
      tensor.row_stride_bytes());
}

uint64_t Emitter::getFootprint(const cmd::LocalTensor &tensor) const {
  int64_t rows = tensor.layout() == cmd::LAYOUT_ROWS
                     ? std::min(tensor.per_lane(), tensor.rows())
                     : tensor.rows();
  return rows * tensor.row_stride_bytes();
}

llvm::Error Emitter::pin(cmd::LocalTensor &tensor) {
  llvm::Expected<uint64_t> address = arena.pin(getFootprint(tensor));
  if (!address)
    return address.takeError();
  tensor.set_address(*address);
  return llvm::Error::success();
}

llvm::Error Emitter::ring(cmd::LocalTensor &tensor) {
  llvm::Expected<uint64_t> address = arena.ring(getFootprint(tensor));
  if (!address)
    return address.takeError();
  tensor.set_address(*address);
  return llvm::Error::success();
}

LocalRange Emitter::getRange(const cmd::LocalTensor &tensor) const {
  if (tensor.rows() == 0)
    return {};
  return {tensor.address(), tensor.address() + getFootprint(tensor)};
}

std::vector<uint32_t> Emitter::waitFor(Queue queue,
                                       llvm::ArrayRef<LocalRange> reads,
                                       llvm::ArrayRef<LocalRange> writes) {
  std::optional<uint32_t> wait = hazards.getWait(queue, reads, writes);
  hazards.record(queue, builder.peekNextId(), reads, writes);
  if (!wait)
    return {};
  return {*wait};
}

void Emitter::flushStores() {
  for (const PendingStore &pending : pendingStores) {
    LocalRange read = getRange(pending.from);
    builder.store(pending.from, pending.to, waitFor(Queue::Dma, read, {}));
  }
  pendingStores.clear();
}

void Emitter::flushStoresReading(llvm::ArrayRef<LocalRange> writes) {
  for (const PendingStore &pending : pendingStores) {
    LocalRange read = getRange(pending.from);
    for (LocalRange write : writes)
      if (write.begin < read.end && read.begin < write.end)
        return flushStores();
  }
}

void Emitter::load(const cmd::GlobalTensor &from, const cmd::LocalTensor &to) {
  // Only weights are never written by a store; anything else may be what a
  // pending store writes.
  if (from.region() != cmd::REGION_COEFF)
    flushStores();
  LocalRange write = getRange(to);
  flushStoresReading(write);
  builder.load(from, to, waitFor(Queue::Dma, {}, write));
}

void Emitter::store(const cmd::LocalTensor &from, const cmd::GlobalTensor &to) {
  pendingStores.push_back({from, to});
}

void Emitter::gather(const cmd::GlobalTensor &table,
                     const cmd::GlobalTensor &index,
                     const cmd::LocalTensor &to) {
  flushStores();
  LocalRange write = getRange(to);
  builder.gather(table, index, to, waitFor(Queue::Dma, {}, write));
}

void Emitter::scatter(const cmd::LocalTensor &from,
                      const cmd::GlobalTensor &index,
                      const cmd::GlobalTensor &table) {
  flushStores();
  LocalRange read = getRange(from);
  builder.scatter(from, index, table, waitFor(Queue::Dma, read, {}));
}

void Emitter::compute(const cmd::Compute &compute) {
  std::vector<LocalRange> reads, writes;
  for (const cmd::LocalTensor &input : compute.inputs())
    reads.push_back(getRange(input));
  bool readsOutputs = compute.accumulate() || compute.resume();
  for (const cmd::LocalTensor &output : compute.outputs()) {
    writes.push_back(getRange(output));
    if (readsOutputs)
      reads.push_back(getRange(output));
  }
  flushStoresReading(writes);
  builder.compute(compute, waitFor(Queue::Compute, reads, writes));
}

} // namespace llmc::codegen
