//===- CModel.cpp - the simulator of llmc's command stream ----------------===//
//
// The two queues run concurrently in modelled time. The event loop repeatedly
// starts the queue head that can start earliest: a head is ready once every
// command it waits for has run, and starts when its queue is free and those
// commands have ended (ties go to the DMA queue). Numerics run in that same
// order. Any order the waits allow gives the same results for a stream
// without races, and races trap (SyncTracker), so the order is only a
// choice, never a source of different answers.
//
// A version 2 stream runs its sections one after another; the cores of a
// section run one after another on the host, each on its own local memory,
// and in parallel in modelled time.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/CModel.h"

#include "backends/common/cmodel/Execute.h"
#include "backends/common/cmodel/Operands.h"

#include "support/Strings.h"

#include "absl/container/flat_hash_map.h"

#include <algorithm>
#include <array>
#include <deque>
#include <sstream>

namespace llmc::cmodel {

using CommandList = google::protobuf::RepeatedPtrField<cmd::Command>;

struct CModel::Impl {
  Impl(const plugins::ChipDescriptor &chip, const CModelOptions &options)
      : chip(chip), time(this->chip, options.time), runner(options.threads) {
    // Sized defensively: run() rejects an invalid descriptor.
    int64_t lanes = std::max<int64_t>(chip.npuLanes, 0);
    int64_t bytes = std::max<int64_t>(chip.localMemoryBytesPerLane, 0);
    for (int64_t core = 0; core < std::max<int64_t>(chip.cores, 1); ++core) {
      local.emplace_back(lanes, bytes);
      sync.emplace_back(lanes, bytes,
                        std::max<int64_t>(chip.euBytesPerLane, 1));
    }
  }

  /// Runs one core's queues on its local memory.
  absl::StatusOr<RunStats> runCore(const CommandList &dmaQueue,
                                   const CommandList &computeQueue,
                                   size_t core);
  absl::StatusOr<RunStats> runSections(const cmd::CommandStream &stream);

  plugins::ChipDescriptor chip;
  TimeModel time;
  LaneRunner runner;
  GlobalMemory global;
  /// Per core.
  std::deque<LocalMemory> local;
  std::deque<SyncTracker> sync;
};

namespace {

/// The state of one run of a stream.
class Run {
public:
  Run(const CommandList &dmaQueue, const CommandList &computeQueue,
      Device device)
      : device(device), queues{&dmaQueue, &computeQueue} {}

  absl::StatusOr<RunStats> execute();

private:
  const cmd::Command &get(CommandRef ref) const {
    return queues[int(ref.queue)]->Get(ref.index);
  }
  std::string name(CommandRef ref) const;
  /// Checks the ids, waits and queue placement.
  absl::Status indexStream();
  absl::Status deadlock() const;
  /// An uninitialized read by `reader` may only be the symptom of a race:
  /// a command of the other queue that has not run yet, and need not run
  /// after `reader`, writes what it reads. Such a race becomes the trap.
  absl::Status explainUninitialized(absl::Status error,
                                    CommandRef reader) const;
  /// Runs the head of `queue`, which starts at `start`.
  absl::Status step(Queue queue, uint64_t start);

  Device device;
  std::array<const CommandList *, 2> queues;
  /// Every wait names an id here once indexStream has passed.
  absl::flat_hash_map<uint32_t, CommandRef> ids;
  std::array<uint32_t, 2> next = {0, 0};
  std::array<uint64_t, 2> freeAt = {0, 0};
  std::array<std::vector<uint64_t>, 2> endCycles;
  std::array<std::vector<VectorClock>, 2> clocks;
  RunStats stats;
};

} // namespace

std::string Run::name(CommandRef ref) const {
  const cmd::Command &command = get(ref);
  std::ostringstream os;
  os << "command " << command.id() << " (" << getQueueName(ref.queue) << " #"
     << ref.index << ", ";
  if (command.has_dma())
    os << cmd::Dma::Kind_Name(command.dma().kind());
  else if (command.has_compute())
    os << getOpcodeName(command.compute().opcode());
  else
    os << "empty";
  os << ")";
  return os.str();
}

absl::Status Run::indexStream() {
  for (Queue queue : {Queue::Dma, Queue::Compute}) {
    const CommandList &list = *queues[int(queue)];
    if (list.size() >= (1 << 30))
      return makeTrap(TrapKind::BadStream, "too many commands");
    for (int i = 0; i < list.size(); ++i) {
      CommandRef ref{queue, uint32_t(i)};
      const cmd::Command &command = list.Get(i);
      bool right =
          queue == Queue::Dma ? command.has_dma() : command.has_compute();
      if (!right)
        return makeTrap(TrapKind::BadStream,
                        support::strCat(name(ref), " is not a ",
                                        getQueueName(queue), " command"));
      auto [it, inserted] = ids.try_emplace(command.id(), ref);
      if (!inserted)
        return makeTrap(
            TrapKind::BadStream,
            support::strCat(name(ref), " reuses the id of ", name(it->second)));
    }
  }
  for (Queue queue : {Queue::Dma, Queue::Compute})
    for (int i = 0; i < queues[int(queue)]->size(); ++i) {
      CommandRef ref{queue, uint32_t(i)};
      for (uint32_t wait : get(ref).waits()) {
        auto it = ids.find(wait);
        if (it == ids.end())
          return makeTrap(
              TrapKind::BadStream,
              support::strCat(name(ref), " waits for unknown id ", wait));
        if (it->second.queue == queue)
          return makeTrap(
              TrapKind::BadStream,
              support::strCat(name(ref), " waits for ", name(it->second),
                              " on its own queue, which runs in order"));
      }
    }
  return absl::OkStatus();
}

absl::Status Run::deadlock() const {
  std::ostringstream os;
  os << "no queue can start its next command:";
  for (Queue queue : {Queue::Dma, Queue::Compute}) {
    CommandRef head{queue, next[int(queue)]};
    os << " " << name(head) << " waits for";
    for (uint32_t wait : get(head).waits()) {
      CommandRef ref = ids.at(wait);
      if (ref.index >= next[int(ref.queue)])
        os << " " << name(ref);
    }
    os << ";";
  }
  return makeTrap(TrapKind::Deadlock, os.str());
}

absl::Status Run::explainUninitialized(absl::Status error,
                                       CommandRef reader) const {
  if (getTrapKind(error) != TrapKind::UninitializedRead)
    return error;
  LocalAccesses reads = getLocalAccesses(get(reader), device.chip);
  Queue other = otherQueue(reader.queue);
  const CommandList &list = *queues[int(other)];
  // The other queue's commands from its head on are unordered with the
  // reader until one waits for the reader or a later command of its queue.
  for (int i = next[int(other)]; i < list.size(); ++i) {
    CommandRef writer{other, uint32_t(i)};
    const cmd::Command &command = list.Get(i);
    bool after = std::any_of(
        command.waits().begin(), command.waits().end(), [&](uint32_t wait) {
          CommandRef waited = ids.at(wait);
          return waited.queue == reader.queue && waited.index >= reader.index;
        });
    if (after)
      break;
    for (const LocalGeometry &write :
         getLocalAccesses(command, device.chip).writes)
      for (const LocalGeometry &read : reads.reads)
        if (findOverlappingLane(write, read) >= 0) {
          return makeTrap(
              TrapKind::MissingSync,
              support::strCat(name(reader), " reads ", read.describe(),
                              ", which ", name(writer),
                              " writes, and it does not wait for it "
                              "(directly or through other waits)"));
        }
  }
  return error;
}

absl::Status Run::step(Queue queue, uint64_t start) {
  int q = int(queue);
  CommandRef ref{queue, next[q]};
  const cmd::Command &command = get(ref);
  // Queue order, then every wait and what happened before it.
  VectorClock clock;
  if (ref.index > 0)
    clock = clocks[q][ref.index - 1];
  clock.seen[q] = ref.index;
  for (uint32_t wait : command.waits()) {
    CommandRef waited = ids.at(wait);
    int w = int(waited.queue);
    clock.join(clocks[w][waited.index]);
    clock.seen[w] = std::max(clock.seen[w], waited.index + 1);
  }
  auto namer = [this](CommandRef other) { return name(other); };
  CommandContext context{ref, clock, namer};
  absl::StatusOr<CommandCost> cost =
      command.has_dma() ? executeDma(command.dma(), device, context, stats)
                        : executeCompute(command.compute(), device, context);
  if (!cost.ok())
    return prefixTrap(explainUninitialized(cost.status(), ref),
                      support::strCat(name(ref), ": "));

  uint64_t end = start + cost->cycles;
  endCycles[q].push_back(end);
  clocks[q].push_back(clock);
  freeAt[q] = end;
  ++next[q];
  stats.macs += cost->macs;
  if (queue == Queue::Dma) {
    stats.dmaCycles += cost->cycles;
    ++stats.dmaCommands;
  } else {
    stats.computeCycles += cost->cycles;
    ++stats.computeCommands;
  }
  return absl::OkStatus();
}

absl::StatusOr<RunStats> Run::execute() {
  LLMC_RETURN_IF_ERROR(indexStream());
  for (int q = 0; q < 2; ++q) {
    endCycles[q].reserve(queues[q]->size());
    clocks[q].reserve(queues[q]->size());
  }
  while (true) {
    std::optional<Queue> best;
    uint64_t bestStart = 0;
    bool pending = false;
    for (Queue queue : {Queue::Dma, Queue::Compute}) {
      int q = int(queue);
      if (next[q] == uint32_t(queues[q]->size()))
        continue;
      pending = true;
      uint64_t start = freeAt[q];
      bool ready = true;
      for (uint32_t wait : get({queue, next[q]}).waits()) {
        CommandRef waited = ids.at(wait);
        if (waited.index >= next[int(waited.queue)]) {
          ready = false;
          break;
        }
        start = std::max(start, endCycles[int(waited.queue)][waited.index]);
      }
      // Strictly earlier wins, so ties go to the DMA queue.
      if (ready && (!best || start < bestStart)) {
        best = queue;
        bestStart = start;
      }
    }
    if (!pending)
      break;
    if (!best)
      return deadlock();
    LLMC_RETURN_IF_ERROR(step(*best, bestStart));
  }
  stats.totalCycles = std::max(freeAt[0], freeAt[1]);
  stats.seconds = device.time.getSeconds(stats.totalCycles);
  return stats;
}

static void addCounts(RunStats &total, const RunStats &part) {
  total.dmaCycles += part.dmaCycles;
  total.computeCycles += part.computeCycles;
  total.bytesLoaded += part.bytesLoaded;
  total.bytesStored += part.bytesStored;
  total.ddrBytes += part.ddrBytes;
  total.macs += part.macs;
  total.dmaCommands += part.dmaCommands;
  total.computeCommands += part.computeCommands;
}

absl::StatusOr<RunStats> CModel::Impl::runCore(const CommandList &dmaQueue,
                                               const CommandList &computeQueue,
                                               size_t core) {
  sync[core].reset();
  Device device{chip, global, local[core], sync[core], runner, time};
  return Run(dmaQueue, computeQueue, device).execute();
}

absl::StatusOr<RunStats>
CModel::Impl::runSections(const cmd::CommandStream &stream) {
  if (stream.dma_queue_size() || stream.compute_queue_size())
    return makeTrap(
        TrapKind::BadStream,
        support::strCat("stream '", stream.name(),
                        "' has version 2 but queues outside its sections"));
  RunStats total;
  for (int s = 0; s < stream.sections_size(); ++s) {
    const cmd::Section &section = stream.sections(s);
    if (section.cores_size() == 0 || section.cores_size() > chip.cores)
      return makeTrap(TrapKind::BadStream,
                      support::strCat("section ", s, " of stream '",
                                      stream.name(), "' has ",
                                      section.cores_size(), " cores; ", chip.id,
                                      " has ", chip.cores));
    uint64_t longest = 0, ddrBytes = 0;
    for (int core = 0; core < section.cores_size(); ++core) {
      const cmd::CoreCommands &commands = section.cores(core);
      absl::StatusOr<RunStats> stats =
          runCore(commands.dma_queue(), commands.compute_queue(), core);
      if (!stats.ok())
        return prefixTrap(
            stats.status(),
            support::strCat("section ", s, ", core ", core, ": "));
      addCounts(total, *stats);
      longest = std::max(longest, stats->totalCycles);
      ddrBytes += stats->ddrBytes;
    }
    if (section.cores_size() > 1)
      total.syncCycles += time.getCoreSyncCycles();
    total.totalCycles +=
        time.getSectionCycles(longest, ddrBytes, section.cores_size());
  }
  total.seconds = time.getSeconds(total.totalCycles);
  return total;
}

//===----------------------------------------------------------------------===//
// CModel
//===----------------------------------------------------------------------===//

CModel::CModel(const plugins::ChipDescriptor &chip,
               const CModelOptions &options)
    : impl(std::make_unique<Impl>(chip, options)) {}

CModel::~CModel() = default;

GlobalMemory &CModel::global() { return impl->global; }
const GlobalMemory &CModel::global() const { return impl->global; }
const LocalMemory &CModel::local(unsigned core) const {
  return impl->local[core];
}
const plugins::ChipDescriptor &CModel::getChip() const { return impl->chip; }
const TimeModel &CModel::getTimeModel() const { return impl->time; }

absl::StatusOr<RunStats> CModel::run(const cmd::CommandStream &stream) {
  LLMC_RETURN_IF_ERROR(impl->chip.validate());
  if (stream.version() == 2)
    return impl->runSections(stream);
  if (stream.version() != 1)
    return makeTrap(TrapKind::BadStream,
                    support::strCat("stream '", stream.name(), "' has version ",
                                    stream.version(),
                                    "; this cmodel runs versions 1 and 2"));
  if (stream.sections_size())
    return makeTrap(TrapKind::BadStream,
                    support::strCat("stream '", stream.name(),
                                    "' has sections, which need version 2"));
  return impl->runCore(stream.dma_queue(), stream.compute_queue(), 0);
}

std::unique_ptr<StreamDevice> createCModelDevice(
    const plugins::ChipDescriptor &chip, const DeviceOptions &options) {
  CModelOptions cmodelOptions;
  cmodelOptions.threads = options.threads;
  return std::make_unique<CModel>(chip, cmodelOptions);
}

} // namespace llmc::cmodel
