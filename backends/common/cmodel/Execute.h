//===- Execute.h - runs one command of a stream -----------------*- C++ -*-===//
//
// Internal to the cmodel: the checks, sync tracking, numerics and cost of a
// single DMA or compute command, called by CModel's event loop in an order
// the stream's waits allow.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_EXECUTE_H
#define LLMC_BACKENDS_COMMON_CMODEL_EXECUTE_H

#include "backends/common/cmodel/CModel.h"
#include "backends/common/cmodel/LocalAccesses.h"
#include "backends/common/cmodel/Parallel.h"
#include "backends/common/cmodel/SyncTracker.h"

#include "support/Status.h"

namespace llmc::cmodel {

/// The device state a command works on.
struct Device {
  const plugins::ChipDescriptor &chip;
  GlobalMemory &global;
  LocalMemory &local;
  SyncTracker &sync;
  const LaneRunner &runner;
  const TimeModel &time;
};

/// The command being run: where it is, what happens before it, and how
/// messages name commands.
struct CommandContext {
  CommandRef ref;
  const VectorClock &clock;
  SyncTracker::Namer namer;
};

/// Host work (elementary operations) below which a command's lanes run on
/// the calling thread: waking threads costs more than that.
constexpr uint64_t kParallelWork = 1 << 15;

absl::StatusOr<CommandCost> executeDma(const cmd::Dma &dma, Device &device,
                                       const CommandContext &context,
                                       RunStats &stats);
absl::StatusOr<CommandCost> executeCompute(const cmd::Compute &compute,
                                           Device &device,
                                           const CommandContext &context);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_EXECUTE_H
