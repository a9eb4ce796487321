//===- StreamDevice.h - what runs compiled command streams ------*- C++ -*-===//
//
// A device runs the command streams of a chip's compiled pieces on its
// global memory: the cmodel simulates a TPU-class chip (versions 1 and 2),
// the host device runs host programs (version 3) natively. The compiler
// and the runtime hold a device through this interface and get it from
// the chip's backend plugin (BackendPlugin::createDevice).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_STREAMDEVICE_H
#define LLMC_BACKENDS_COMMON_CMODEL_STREAMDEVICE_H

#include "backends/common/cmodel/Memory.h"
#include "backends/common/cmodel/command_stream.pb.h"

#include "plugins/ChipDescriptor.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>
#include <map>
#include <string>

namespace llmc::cmodel {

/// What a run did: in modelled time on a simulated chip; in measured
/// time, with only `seconds` and the command count, on the host.
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

/// Measured time per kind of command, summed over runs: where the time of
/// a device that computes on the host goes. A kind is an opcode and the
/// widths it maps (a product's k and n, a group of products' n joined by
/// '+'), so one layer's commands add up with every other layer's.
struct CommandProfile {
  struct Kind {
    double seconds = 0;
    uint64_t runs = 0;
  };
  std::map<std::string, Kind> kinds;
};

/// How a device runs; a device ignores what does not apply to it.
struct DeviceOptions {
  /// Host threads the device computes on; 0 means one per hardware thread.
  /// Results do not depend on it.
  unsigned threads = 0;
  /// When set, a device that runs commands natively adds each command's
  /// time to it (timing costs a clock read per command); a simulated chip
  /// leaves it alone. It must outlive the device.
  CommandProfile *profile = nullptr;
};

class StreamDevice {
public:
  virtual ~StreamDevice();

  /// The device's global memory; it keeps its contents across runs.
  virtual GlobalMemory &global() = 0;
  /// Makes `coeff` (a binary's weights, which outlive the device) the
  /// read-only coeff region, where the device reads it best: in place by
  /// default.
  virtual void attachWeights(absl::Span<const uint8_t> coeff);
  virtual const plugins::ChipDescriptor &getChip() const = 0;
  /// Whether RunStats::seconds is modelled chip time, a function of the
  /// stream alone, rather than measured host time.
  virtual bool modelsTime() const = 0;
  /// Executes `stream`; errors name the stream and the failing command.
  virtual absl::StatusOr<RunStats> run(const cmd::CommandStream &stream) = 0;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_STREAMDEVICE_H
