//===- SyncTracker.h - finds missing synchronisation ------------*- C++ -*-===//
//
// The two queues run concurrently; only `waits` order a command after a
// command of the other queue. A stream is correct only if every pair of
// commands from different queues that touch the same local bytes, at least
// one of them writing, is ordered by waits (directly or through a chain of
// waits and queue order). The cmodel checks exactly this, independently of
// the modelled timing, which real hardware does not share.
//
// Because each queue is in order, the commands of queue q that happen
// before a command form a prefix of q: a vector clock of two counts says
// which. Local memory is shadowed at the EU granule (addresses and strides
// are multiples of it): each granule remembers its last writer and, per
// queue, its latest reader since that write. Checking an access against
// those is enough: an earlier access of the same queue happens before the
// remembered one.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_SYNCTRACKER_H
#define LLMC_BACKENDS_COMMON_CMODEL_SYNCTRACKER_H

#include "backends/common/cmodel/Geometry.h"

#include "support/Status.h"

#include "absl/functional/function_ref.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::cmodel {

enum class Queue : uint8_t { Dma = 0, Compute = 1 };

inline Queue otherQueue(Queue queue) {
  return queue == Queue::Dma ? Queue::Compute : Queue::Dma;
}
/// `dma`, `compute`.
std::string_view getQueueName(Queue queue);

/// seen[q]: how many of queue q's first commands happen before a command.
struct VectorClock {
  std::array<uint32_t, 2> seen = {0, 0};

  void join(const VectorClock &other) {
    for (int q = 0; q < 2; ++q)
      seen[q] = std::max(seen[q], other.seen[q]);
  }
  bool orders(Queue queue, uint32_t index) const {
    return index < seen[int(queue)];
  }
};

/// A command's position: its queue and index in that queue.
struct CommandRef {
  Queue queue = Queue::Dma;
  uint32_t index = 0;
};

class SyncTracker {
public:
  SyncTracker(int64_t lanes, int64_t bytesPerLane, int64_t granule);

  /// Forgets every access (a new run).
  void reset();

  /// Names a command in messages (`command 7 (dma #2, LOAD)`).
  using Namer = absl::FunctionRef<std::string(CommandRef)>;

  /// Traps if `command`, whose predecessors are `clock`, may not read (or
  /// write) `tensor`: the bytes were never written (reads), or were last
  /// written or read by an unordered command of the other queue.
  absl::Status check(const LocalGeometry &tensor, bool write,
                     CommandRef command, const VectorClock &clock,
                     Namer namer) const;
  /// Remembers the access once the command has run.
  void record(const LocalGeometry &tensor, bool write, CommandRef command);

private:
  struct Granule {
    /// 0, or the writer's queue in bit 31 and its index + 1 below.
    uint32_t writer = 0;
    /// Per queue, 0 or the latest reader's index + 1.
    std::array<uint32_t, 2> readers = {0, 0};

    bool operator==(const Granule &other) const {
      // Field by field: std::array's == becomes a memcmp call.
      return writer == other.writer && readers[0] == other.readers[0] &&
             readers[1] == other.readers[1];
    }
  };
  /// The granules of `tensor` on `lane`: [first, last).
  std::pair<size_t, size_t> span(const LocalGeometry &tensor,
                                 int64_t lane) const;

  int64_t granule;
  int64_t granulesPerLane;
  std::vector<Granule> granules;
  /// Per lane, the end of the granules any access touched: reset() clears
  /// only those.
  std::vector<size_t> touchedEnd;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_SYNCTRACKER_H
