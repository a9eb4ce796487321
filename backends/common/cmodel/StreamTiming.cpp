//===- StreamTiming.cpp - a stream's modelled time without running it -----===//
//
// A command starts when its queue is free and every command it waits for
// has ended. That start does not depend on the order in which ready heads
// are taken, so any order the waits allow gives CModel's times; this one
// advances whichever queue can.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/StreamTiming.h"

#include "backends/common/cmodel/Operands.h"
#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

#include "absl/container/flat_hash_map.h"

#include <array>

namespace llmc::cmodel {
namespace {

using CommandList = google::protobuf::RepeatedPtrField<cmd::Command>;

struct QueueTiming {
  uint64_t cycles = 0;
  uint64_t ddrBytes = 0;
};

absl::StatusOr<CommandCost> getCost(const cmd::Command &command,
                                    const TimeModel &time,
                                    const plugins::ChipDescriptor &chip) {
  if (command.has_compute()) {
    absl::StatusOr<ComputeOperands> operands =
        createComputeOperands(command.compute(), chip);
    if (!operands.ok())
      return operands.status();
    LLMC_RETURN_IF_ERROR(checkComputeRules(command.compute(), *operands));
    return time.getComputeCost(command.compute(), *operands);
  }
  const cmd::Dma &dma = command.dma();
  absl::StatusOr<GlobalGeometry> global =
      GlobalGeometry::create(dma.global(), "global");
  if (!global.ok())
    return global.status();
  bool indexed =
      dma.kind() == cmd::Dma::GATHER || dma.kind() == cmd::Dma::SCATTER;
  if (!indexed)
    return time.getDmaCost(*global, nullptr);
  absl::StatusOr<GlobalGeometry> index =
      GlobalGeometry::create(dma.index(), "index");
  if (!index.ok())
    return index.status();
  return time.getDmaCost(*global, &*index);
}

absl::StatusOr<QueueTiming>
scheduleQueues(const CommandList &dmaQueue, const CommandList &computeQueue,
               const TimeModel &time, const plugins::ChipDescriptor &chip) {
  std::array<const CommandList *, 2> queues = {&dmaQueue, &computeQueue};
  // A command's end, by id, once it is scheduled.
  absl::flat_hash_map<uint32_t, uint64_t> ends;
  std::array<int, 2> next = {0, 0};
  std::array<uint64_t, 2> freeAt = {0, 0};
  QueueTiming timing;
  while (next[0] < dmaQueue.size() || next[1] < computeQueue.size()) {
    bool advanced = false;
    for (int q = 0; q < 2; ++q) {
      for (; next[q] < queues[q]->size(); ++next[q]) {
        const cmd::Command &command = queues[q]->Get(next[q]);
        uint64_t start = freeAt[q];
        bool ready = true;
        for (uint32_t wait : command.waits()) {
          auto it = ends.find(wait);
          if (it == ends.end()) {
            ready = false;
            break;
          }
          start = std::max(start, it->second);
        }
        if (!ready)
          break;
        absl::StatusOr<CommandCost> cost = getCost(command, time, chip);
        if (!cost.ok())
          return prefixTrap(cost.status(),
                            support::strCat("command ", command.id(), ": "));
        freeAt[q] = start + cost->cycles;
        ends[command.id()] = freeAt[q];
        timing.ddrBytes += cost->ddrBytes;
        advanced = true;
      }
    }
    if (!advanced)
      return makeTrap(TrapKind::Deadlock,
                      "no queue can start its next command");
  }
  timing.cycles = std::max(freeAt[0], freeAt[1]);
  return timing;
}

} // namespace

absl::StatusOr<uint64_t> estimateCycles(const cmd::CommandStream &stream,
                                        const TimeModel &time,
                                        const plugins::ChipDescriptor &chip) {
  if (stream.version() != 2) {
    absl::StatusOr<QueueTiming> timing =
        scheduleQueues(stream.dma_queue(), stream.compute_queue(), time, chip);
    if (!timing.ok())
      return timing.status();
    return timing->cycles;
  }
  uint64_t total = 0;
  for (const cmd::Section &section : stream.sections()) {
    uint64_t longest = 0, ddrBytes = 0;
    for (const cmd::CoreCommands &core : section.cores()) {
      absl::StatusOr<QueueTiming> timing =
          scheduleQueues(core.dma_queue(), core.compute_queue(), time, chip);
      if (!timing.ok())
        return timing.status();
      longest = std::max(longest, timing->cycles);
      ddrBytes += timing->ddrBytes;
    }
    total += time.getSectionCycles(longest, ddrBytes, section.cores_size());
  }
  return total;
}

} // namespace llmc::cmodel
