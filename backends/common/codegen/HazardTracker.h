//===- HazardTracker.h - cross-queue waits for local memory -----*- C++ -*-===//
//
// The DMA and compute queues run concurrently and only `waits` order them
// (docs/command-stream.md, section 3). The tracker remembers, for every
// range of per-lane local addresses, the last command of each queue that
// wrote it and that read it, and answers which command of the other queue a
// new command must wait for: the last writer of what it reads (RAW), and
// the last writer and readers of what it writes (WAW, WAR). Queues run in
// order and ids grow in issue order, so one wait, the latest, suffices.
// Lanes are not told apart: a conflict on any lane counts for all, which
// may add a wait but never misses one.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_HAZARDTRACKER_H
#define LLMC_BACKENDS_COMMON_CODEGEN_HAZARDTRACKER_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <map>
#include <optional>

namespace llmc::codegen {

enum class Queue { Dma = 0, Compute = 1 };

/// Per-lane local bytes [begin, end).
struct LocalRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

class HazardTracker {
public:
  /// The command of the other queue that a new command of `queue` reading
  /// `reads` and writing `writes` must wait for, if any.
  std::optional<uint32_t> getWait(Queue queue,
                                  llvm::ArrayRef<LocalRange> reads,
                                  llvm::ArrayRef<LocalRange> writes);
  /// Records command `id` of `queue` as the latest to touch those ranges.
  void record(Queue queue, uint32_t id, llvm::ArrayRef<LocalRange> reads,
              llvm::ArrayRef<LocalRange> writes);

private:
  struct Segment {
    uint64_t end = 0;
    /// Indexed by Queue; 0 is none (command ids start at 1).
    uint32_t writer[2] = {0, 0};
    uint32_t reader[2] = {0, 0};
  };
  /// Splits the segment containing `at` so a segment starts there.
  void split(uint64_t at);
  template <typename Fn> void forEach(LocalRange range, Fn fn);

  /// Disjoint segments keyed by their start; gaps were never touched.
  std::map<uint64_t, Segment> segments;
};

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_HAZARDTRACKER_H
