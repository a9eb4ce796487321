//===- HostDevice.h - host programs run natively on the CPU -----*- C++ -*-===//
//
// The device of the host backend: runs version 3 command streams (host
// programs) command by command on global memory, each command on the
// SIMD kernels of backends/host/kernels and the CPU's threads. Operands are
// checked against their regions before a command runs, so a bad stream is
// an error naming the command, never a stray write. Its time is measured,
// not modelled. It reads the weights from a copy on huge pages.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_DEVICE_HOSTDEVICE_H
#define LLMC_BACKENDS_HOST_DEVICE_HOSTDEVICE_H

#include "backends/common/cmodel/HugePageMemory.h"
#include "backends/common/cmodel/StreamDevice.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <memory>

namespace llmc::host {

class WorkerPool;

class HostDevice : public cmodel::StreamDevice {
public:
  HostDevice(const plugins::ChipDescriptor &chip,
             const cmodel::DeviceOptions &options);
  ~HostDevice() override;

  cmodel::GlobalMemory &global() override { return memory; }
  /// Reads the weights from a copy on huge pages when the system gives one
  /// (see HugePageMemory.h).
  void attachWeights(absl::Span<const uint8_t> coeff) override;
  const plugins::ChipDescriptor &getChip() const override { return chip; }
  bool modelsTime() const override { return false; }
  /// Runs a host program; `seconds` is the measured wall time.
  absl::StatusOr<cmodel::RunStats>
  run(const cmd::CommandStream &stream) override;

private:
  plugins::ChipDescriptor chip;
  cmodel::GlobalMemory memory;
  std::unique_ptr<WorkerPool> pool;
  std::unique_ptr<cmodel::HugePageMemory> weights;
  cmodel::CommandProfile *profile;
};

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_DEVICE_HOSTDEVICE_H
