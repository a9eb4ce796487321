//===- DmaSchedule.cpp - weight loads ahead of other DMAs ----------------===//

#include "backends/common/codegen/DmaSchedule.h"

#include "backends/common/cmodel/LocalAccesses.h"
#include "backends/common/cmodel/StreamTiming.h"

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"

#include <algorithm>
#include <optional>

namespace llmc::codegen {
namespace {

using CommandList = google::protobuf::RepeatedPtrField<cmd::Command>;

/// The places, nearest first, a load tries: every try costs a run of the
/// time model over the queues.
constexpr size_t kMaxTargets = 8;

bool overlaps(const std::vector<cmodel::LocalGeometry> &a,
              const std::vector<cmodel::LocalGeometry> &b) {
  for (const cmodel::LocalGeometry &x : a)
    for (const cmodel::LocalGeometry &y : b)
      if (cmodel::findOverlappingLane(x, y) >= 0)
        return true;
  return false;
}

/// Whether one of two commands writes local bytes the other touches.
bool conflicts(const cmodel::LocalAccesses &a, const cmodel::LocalAccesses &b) {
  return overlaps(a.writes, b.writes) || overlaps(a.writes, b.reads) ||
         overlaps(a.reads, b.writes);
}

bool isWeightLoad(const cmd::Command &command) {
  return command.has_dma() && command.dma().kind() == cmd::Dma::LOAD &&
         command.dma().global().region() == cmd::REGION_COEFF;
}

/// One core's two queues, with what each command touches.
class QueuePair {
public:
  QueuePair(CommandList &dma, CommandList &compute,
            const plugins::ChipDescriptor &chip)
      : dma(dma), compute(compute), chip(chip) {
    for (const cmd::Command &command : dma)
      accesses.emplace(command.id(), cmodel::getLocalAccesses(command, chip));
    for (const cmd::Command &command : compute)
      accesses.emplace(command.id(), cmodel::getLocalAccesses(command, chip));
  }

  absl::StatusOr<uint64_t> estimate() const {
    cmd::CommandStream stream;
    stream.set_version(1);
    *stream.mutable_dma_queue() = dma;
    *stream.mutable_compute_queue() = compute;
    return cmodel::estimateCycles(stream, cmodel::TimeModel(chip), chip);
  }

  /// The positions the weight load at `from` may move to, nearest first:
  /// just above each DMA that waits for a computation (where the queue may
  /// stall) among those it may pass.
  std::vector<int> getTargets(int from) const;
  /// Moves the weight load at `from` to `to`, adding the waits queue order
  /// gave the computations reading it.
  void hoist(int from, int to);

private:
  /// The latest DMA position that the computations up to and including
  /// command `id` wait for (queue order makes a computation wait for
  /// everything its predecessors waited for); -1 for none.
  int getLatestDmaDependency(uint32_t id) const;

  CommandList &dma;
  CommandList &compute;
  const plugins::ChipDescriptor &chip;
  absl::flat_hash_map<uint32_t, cmodel::LocalAccesses> accesses;
};

int QueuePair::getLatestDmaDependency(uint32_t id) const {
  absl::flat_hash_map<uint32_t, int> dmaPosition;
  for (int i = 0; i < dma.size(); ++i)
    dmaPosition[dma.Get(i).id()] = i;
  int latest = -1;
  for (const cmd::Command &command : compute) {
    for (uint32_t wait : command.waits())
      if (auto it = dmaPosition.find(wait); it != dmaPosition.end())
        latest = std::max(latest, it->second);
    if (command.id() == id)
      return latest;
  }
  return latest;
}

/// The computations waiting for DMA `id`.
static std::vector<int> getReaders(const CommandList &compute, uint32_t id) {
  std::vector<int> readers;
  for (int i = 0; i < compute.size(); ++i)
    if (absl::c_linear_search(compute.Get(i).waits(), id))
      readers.push_back(i);
  return readers;
}

std::vector<int> QueuePair::getTargets(int from) const {
  const cmd::Command &load = dma.Get(from);
  const cmodel::LocalAccesses &loaded = accesses.at(load.id());
  std::vector<int> targets;
  if (loaded.writes.empty())
    return targets;
  int dependency = -1;
  for (uint32_t wait : load.waits())
    dependency = std::max(dependency, getLatestDmaDependency(wait));
  for (int to = from; to > 0 && to - 1 > dependency; --to) {
    const cmd::Command &before = dma.Get(to - 1);
    const cmodel::LocalAccesses &touched = accesses.at(before.id());
    if ((touched.reads.empty() && touched.writes.empty()) ||
        conflicts(loaded, touched))
      break;
    if (!before.waits().empty() && targets.size() == kMaxTargets)
      break;
    if (!before.waits().empty())
      targets.push_back(to - 1);
  }
  return targets;
}

void QueuePair::hoist(int from, int to) {
  uint32_t id = dma.Get(from).id();
  // Queue order made each computation waiting for the load also wait for
  // the DMAs it now passes.
  for (int reader : getReaders(compute, id)) {
    cmd::Command &command = *compute.Mutable(reader);
    for (int passed = to; passed < from; ++passed) {
      uint32_t wait = dma.Get(passed).id();
      if (conflicts(accesses.at(command.id()), accesses.at(wait)) &&
          !absl::c_linear_search(command.waits(), wait))
        command.add_waits(wait);
    }
  }
  for (int i = from; i > to; --i)
    dma.SwapElements(i, i - 1);
}

absl::Status scheduleQueues(CommandList &dma, CommandList &compute,
                            const plugins::ChipDescriptor &chip) {
  QueuePair queues(dma, compute, chip);
  absl::StatusOr<uint64_t> best = queues.estimate();
  if (!best.ok())
    return best.status();
  for (int i = 0; i < dma.size(); ++i) {
    if (!isWeightLoad(dma.Get(i)))
      continue;
    std::vector<int> targets = queues.getTargets(i);
    if (targets.empty())
      continue;
    std::optional<std::pair<CommandList, CommandList>> bestQueues;
    CommandList dmaBefore = dma, computeBefore = compute;
    for (int to : targets) {
      queues.hoist(i, to);
      absl::StatusOr<uint64_t> cycles = queues.estimate();
      if (cycles.ok() && *cycles < *best) {
        best = *cycles;
        bestQueues.emplace(dma, compute);
      }
      dma = dmaBefore;
      compute = computeBefore;
    }
    if (bestQueues) {
      dma = std::move(bestQueues->first);
      compute = std::move(bestQueues->second);
    }
  }
  return absl::OkStatus();
}

} // namespace

absl::Status hoistWeightLoads(cmd::CommandStream &stream,
                              const plugins::ChipDescriptor &chip) {
  if (chip.computesInGlobalMemory)
    return absl::OkStatus();
  if (stream.version() != 2)
    return scheduleQueues(*stream.mutable_dma_queue(),
                          *stream.mutable_compute_queue(), chip);
  for (cmd::Section &section : *stream.mutable_sections())
    for (cmd::CoreCommands &core : *section.mutable_cores())
      LLMC_RETURN_IF_ERROR(scheduleQueues(*core.mutable_dma_queue(),
                                          *core.mutable_compute_queue(), chip));
  return absl::OkStatus();
}

} // namespace llmc::codegen
