//===- Emitter.h - issuing commands with their waits ------------*- C++ -*-===//
//
// Every command codegen issues goes through an Emitter, which allocates
// local buffers (LocalArena), derives each command's wait from the local
// bytes it reads and writes (HazardTracker) and appends it to its queue
// (StreamBuilder). Op emitters only decide tiles and layouts, so no emitter
// can forget a wait.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_EMITTER_H
#define LLMC_BACKENDS_COMMON_CODEGEN_EMITTER_H

#include "backends/common/codegen/HazardTracker.h"
#include "backends/common/codegen/LocalArena.h"
#include "backends/common/cmodel/StreamBuilder.h"

#include "plugins/ChipDescriptor.h"

namespace llmc::codegen {

class Emitter {
public:
  Emitter(const plugins::ChipDescriptor &chip, llvm::StringRef name);

  const plugins::ChipDescriptor &getChip() const { return chip; }
  /// Whether ops are emitted whole, as host commands on global tensors
  /// (ChipDescriptor::computesInGlobalMemory), instead of tiled.
  bool isUntiled() const { return chip.computesInGlobalMemory; }
  int64_t getLanes() const { return chip.npuLanes; }
  LocalArena &getArena() { return arena; }
  const LocalArena &getArena() const { return arena; }

  //===--------------------------------------------------------------------===//
  // Local tensors (address 0 until allocated)
  //===--------------------------------------------------------------------===//

  /// Bytes of `cols` elements of `dtype`, rounded up to the EU bytes.
  uint64_t getRowBytes(int64_t cols, cmd::DType dtype) const;
  /// Rows split over lanes, `perLane` rows each.
  cmd::LocalTensor rowsLayout(int64_t rows, int64_t cols, cmd::DType dtype,
                              int64_t perLane, uint32_t laneBegin = 0) const;
  /// Columns split over lanes, `perLane` columns each.
  cmd::LocalTensor colsLayout(int64_t rows, int64_t cols, cmd::DType dtype,
                              int64_t perLane, uint32_t laneBegin = 0) const;
  /// The whole tensor on each of `laneCount` lanes.
  cmd::LocalTensor replicated(int64_t rows, int64_t cols, cmd::DType dtype,
                              uint32_t laneCount, uint32_t laneBegin = 0) const;
  /// The per-lane bytes `tensor` occupies.
  uint64_t getFootprint(const cmd::LocalTensor &tensor) const;
  /// Rows [0, rows) and columns [col, col + cols) of `tensor`, a rows
  /// layout, where they are (`col` starts an EU row).
  static cmd::LocalTensor viewRows(const cmd::LocalTensor &tensor,
                                   int64_t rows, int64_t col, int64_t cols);

  /// Places `tensor` in a pinned buffer / the next ring buffer.
  llvm::Error pin(cmd::LocalTensor &tensor);
  llvm::Error ring(cmd::LocalTensor &tensor);

  //===--------------------------------------------------------------------===//
  // Commands
  //===--------------------------------------------------------------------===//

  /// Loads from the coeff region may pass pending stores (see store()).
  void load(const cmd::GlobalTensor &from, const cmd::LocalTensor &to);
  /// Deferred: the store is issued when a later command needs it (a load
  /// outside the coeff region, or a command overwriting its local bytes),
  /// so the next op's weight loads can run while this op's last
  /// computation finishes.
  void store(const cmd::LocalTensor &from, const cmd::GlobalTensor &to);
  void gather(const cmd::GlobalTensor &table, const cmd::GlobalTensor &index,
              const cmd::LocalTensor &to);
  /// Local row i to row index[i] of `table`, after every pending store (the
  /// rows it overwrites may be what they write).
  void scatter(const cmd::LocalTensor &from, const cmd::GlobalTensor &index,
               const cmd::GlobalTensor &table);
  /// Outputs are also read when `accumulate` or `resume` is set.
  void compute(const cmd::Compute &compute);

  /// An untiled chip's command: `attributes`' opcode on global tensors
  /// (rows = 0: an absent operand).
  void computeGlobal(const cmd::Compute &attributes,
                     llvm::ArrayRef<cmd::GlobalTensor> inputs,
                     llvm::ArrayRef<cmd::GlobalTensor> outputs) {
    builder.hostCompute(attributes, inputs, outputs);
  }

  cmd::CommandStream finish() {
    flushStores();
    return builder.take();
  }

private:
  struct PendingStore {
    cmd::LocalTensor from;
    cmd::GlobalTensor to;
  };
  /// Issues every pending store.
  void flushStores();
  /// Issues the pending stores if any reads bytes in `writes`.
  void flushStoresReading(llvm::ArrayRef<LocalRange> writes);
  LocalRange getRange(const cmd::LocalTensor &tensor) const;
  std::vector<uint32_t> waitFor(Queue queue, llvm::ArrayRef<LocalRange> reads,
                                llvm::ArrayRef<LocalRange> writes);

  plugins::ChipDescriptor chip;
  LocalArena arena;
  HazardTracker hazards;
  cmodel::StreamBuilder builder;
  std::vector<PendingStore> pendingStores;
};

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_EMITTER_H
