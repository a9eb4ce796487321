//===- CModel.h - the simulator of llmc's command stream --------*- C++ -*-===//
//
// The cmodel executes a command stream (command_stream.proto) as the chip a
// ChipDescriptor describes would: with the exact numerics of every element
// type, trapping on every local-memory overflow, out-of-bounds access and
// missing synchronisation, and modelling the cycles of both queues. It is
// the device of TPU-class chips on hosts without one, so its kernels are
// vectorized and its lanes run on host threads, deterministically.
//
//   CModel model(chip);
//   model.global().allocate(cmd::REGION_IO, bytes);
//   llvm::Expected<RunStats> stats = model.run(stream);
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_CMODEL_H
#define LLMC_BACKENDS_COMMON_CMODEL_CMODEL_H

#include "backends/common/cmodel/Memory.h"
#include "backends/common/cmodel/TimeModel.h"
#include "backends/common/cmodel/Trap.h"
#include "backends/common/cmodel/command_stream.pb.h"

#include "plugins/ChipDescriptor.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace llmc::cmodel {

struct CModelOptions {
  /// Host threads the lanes run on; 0 means one per hardware thread.
  /// Results do not depend on it.
  unsigned threads = 0;
  /// The time model's assumptions.
  TimeModelParams time;
};

/// What a run did, in modelled time.
struct RunStats {
  /// Cycles each queue was busy (summed over cores).
  uint64_t dmaCycles = 0;
  uint64_t computeCycles = 0;
  /// Cycles from the start until the last command ended: the run's time.
  uint64_t totalCycles = 0;
  /// totalCycles at the chip's clock.
  double seconds = 0;
  /// Tensor bytes moved from global to local memory and back.
  uint64_t bytesLoaded = 0;
  uint64_t bytesStored = 0;
  /// DDR bytes the time model charged (whole bursts for strided rows).
  uint64_t ddrBytes = 0;
  /// Multiply-accumulates of MATMUL, A16MATMUL and ATTENTION.
  uint64_t macs = 0;
  uint64_t dmaCommands = 0;
  uint64_t computeCommands = 0;
  /// Cycles of totalCycles spent in the barriers that end multi-core
  /// sections.
  uint64_t syncCycles = 0;
};

class CModel {
public:
  /// `chip` is copied; run() fails unless it is valid
  /// (ChipDescriptor::validate).
  explicit CModel(const plugins::ChipDescriptor &chip,
                  const CModelOptions &options = {});
  ~CModel();
  CModel(const CModel &) = delete;
  CModel &operator=(const CModel &) = delete;

  /// The device's DDR; it keeps its contents across runs.
  GlobalMemory &global();
  const GlobalMemory &global() const;
  /// The local memory of `core` as the last run left it (for tests and
  /// debugging).
  const LocalMemory &local(unsigned core = 0) const;
  const plugins::ChipDescriptor &getChip() const;
  const TimeModel &getTimeModel() const;

  /// Executes `stream`. Local memory starts unwritten: every run (and every
  /// section of a version 2 stream) is one piece (or part), which loads what
  /// it reads. A trap stops the run at the
  /// offending command and returns a Trap naming it; global memory then
  /// holds what the commands before it stored.
  llvm::Expected<RunStats> run(const cmd::CommandStream &stream);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_CMODEL_H
