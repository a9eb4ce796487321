//===- SyncTracker.cpp - finds missing synchronisation --------------------===//

#include "backends/common/cmodel/SyncTracker.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

namespace llmc::cmodel {

std::string_view getQueueName(Queue queue) {
  return queue == Queue::Dma ? "dma" : "compute";
}

static uint32_t encodeWriter(CommandRef command) {
  return (uint32_t(command.queue) << 31) | (command.index + 1);
}

static CommandRef decodeWriter(uint32_t writer) {
  return {Queue(writer >> 31), (writer & 0x7fffffffu) - 1};
}

SyncTracker::SyncTracker(int64_t lanes, int64_t bytesPerLane, int64_t granule)
    : granule(granule), granulesPerLane(bytesPerLane / granule),
      granules(size_t(lanes * granulesPerLane)), touchedEnd(lanes, 0) {}

void SyncTracker::reset() {
  for (size_t lane = 0; lane < touchedEnd.size(); ++lane) {
    auto first = granules.begin() + lane * granulesPerLane;
    std::fill(first, first + touchedEnd[lane], Granule());
    touchedEnd[lane] = 0;
  }
}

std::pair<size_t, size_t> SyncTracker::span(const LocalGeometry &tensor,
                                            int64_t lane) const {
  size_t base = size_t(lane * granulesPerLane);
  uint64_t bytes = tensor.getFootprint(lane);
  // Footprints start and end on granules: address and stride are multiples.
  return {base + tensor.address / granule,
          base + (tensor.address + bytes) / granule};
}

absl::Status SyncTracker::check(const LocalGeometry &tensor, bool write,
                                CommandRef command, const VectorClock &clock,
                                Namer namer) const {
  Queue other = otherQueue(command.queue);
  auto where = [&](int64_t lane, size_t at) {
    uint64_t offset = (at - size_t(lane * granulesPerLane)) * granule;
    return support::strCat("local bytes [", offset, ", ", offset + granule,
                           ") of lane ", lane, " (", tensor.describe(), ")");
  };
  for (int64_t lane = tensor.laneBegin; lane < tensor.laneEnd; ++lane) {
    auto [first, last] = span(tensor, lane);
    for (size_t at = first; at < last; ++at) {
      const Granule &cell = granules[at];
      // Runs of granules share their history (a tensor is written and read
      // whole): one check covers a run.
      if (at > first && cell == granules[at - 1])
        continue;
      if (!cell.writer) {
        if (write)
          continue;
        return makeTrap(
            TrapKind::UninitializedRead,
            support::strCat(namer(command), " reads ", where(lane, at),
                            ", which no command wrote in this run"));
      }
      CommandRef writer = decodeWriter(cell.writer);
      if (writer.queue != command.queue &&
          !clock.orders(writer.queue, writer.index))
        return makeTrap(
            TrapKind::MissingSync,
            support::strCat(namer(command), (write ? " writes " : " reads "),
                            where(lane, at), " last written by ", namer(writer),
                            ", which it does not wait for (directly or "
                            "through other waits)"));
      uint32_t reader = cell.readers[int(other)];
      if (write && reader && !clock.orders(other, reader - 1))
        return makeTrap(
            TrapKind::MissingSync,
            support::strCat(namer(command), " writes ", where(lane, at),
                            " that ", namer({other, reader - 1}),
                            " reads, which it does not wait for (directly "
                            "or through other waits)"));
    }
  }
  return absl::OkStatus();
}

void SyncTracker::record(const LocalGeometry &tensor, bool write,
                         CommandRef command) {
  uint32_t mark = write ? encodeWriter(command) : command.index + 1;
  int queue = int(command.queue);
  for (int64_t lane = tensor.laneBegin; lane < tensor.laneEnd; ++lane) {
    auto [first, last] = span(tensor, lane);
    size_t base = size_t(lane * granulesPerLane);
    touchedEnd[lane] = std::max(touchedEnd[lane], last - base);
    for (size_t at = first; at < last; ++at) {
      Granule &cell = granules[at];
      if (write) {
        cell.writer = mark;
        cell.readers = {0, 0};
      } else {
        cell.readers[queue] = std::max(cell.readers[queue], mark);
      }
    }
  }
}

} // namespace llmc::cmodel
