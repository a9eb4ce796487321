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
//   absl::StatusOr<RunStats> stats = model.run(stream);
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_CMODEL_H
#define LLMC_BACKENDS_COMMON_CMODEL_CMODEL_H

#include "backends/common/cmodel/Memory.h"
#include "backends/common/cmodel/StreamDevice.h"
#include "backends/common/cmodel/TimeModel.h"
#include "backends/common/cmodel/Trap.h"
#include "backends/common/cmodel/command_stream.pb.h"

#include "plugins/ChipDescriptor.h"

#include "support/Status.h"

#include <cstdint>
#include <memory>

namespace llmc::cmodel {

/// `threads` are the host threads the lanes run on.
struct CModelOptions : DeviceOptions {
  /// The time model's assumptions.
  TimeModelParams time;
};

/// A cmodel of `chip` with `options`' threads and the default time model:
/// the device of every TPU-class chip.
std::unique_ptr<StreamDevice> createCModelDevice(
    const plugins::ChipDescriptor &chip, const DeviceOptions &options);

class CModel : public StreamDevice {
public:
  /// `chip` is copied; run() fails unless it is valid
  /// (ChipDescriptor::validate).
  explicit CModel(const plugins::ChipDescriptor &chip,
                  const CModelOptions &options = {});
  ~CModel() override;
  CModel(const CModel &) = delete;
  CModel &operator=(const CModel &) = delete;

  /// The device's DDR; it keeps its contents across runs.
  GlobalMemory &global() override;
  const GlobalMemory &global() const;
  /// The local memory of `core` as the last run left it (for tests and
  /// debugging).
  const LocalMemory &local(unsigned core = 0) const;
  const plugins::ChipDescriptor &getChip() const override;
  bool modelsTime() const override { return true; }
  const TimeModel &getTimeModel() const;

  /// Executes `stream`. Local memory starts unwritten: every run (and every
  /// section of a version 2 stream) is one piece (or part), which loads what
  /// it reads. A trap stops the run at the
  /// offending command and returns a Trap naming it; global memory then
  /// holds what the commands before it stored.
  absl::StatusOr<RunStats> run(const cmd::CommandStream &stream) override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_CMODEL_H
