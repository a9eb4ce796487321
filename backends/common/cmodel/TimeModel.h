//===- TimeModel.h - modelled cycles of commands ----------------*- C++ -*-===//
//
// The cmodel's time is a model, not a measurement: a command's cycles come
// from the chip's public figures (ChipDescriptor) and a few stated
// assumptions (TimeModelParams). docs/command-stream.md gives the formulas
// and works them out for the BM1684X. All times are in NPU clock cycles.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_TIMEMODEL_H
#define LLMC_BACKENDS_COMMON_CMODEL_TIMEMODEL_H

#include "backends/common/cmodel/Operands.h"

#include "plugins/ChipDescriptor.h"

#include "support/Status.h"

#include <cstdint>

namespace llmc::cmodel {

/// The assumptions the descriptor does not state.
struct TimeModelParams {
  /// Fixed cost of every DMA command (descriptor fetch, DDR latency), in
  /// nanoseconds: 250 ns, a typical DDR round trip plus setup.
  double dmaLatencyNs = 250;
  /// DDR moves whole bursts: each row of a strided (non-contiguous) or
  /// gathered transfer costs its bytes rounded up to a burst.
  int64_t ddrBurstBytes = 64;
  /// Cycles to issue any compute command (decode, operand setup).
  int64_t computeIssueCycles = 32;
  /// The barrier ending a multi-core section, in nanoseconds: 1 µs, a
  /// message round trip between cores through shared memory.
  double coreSyncNs = 1000;
};

/// What one command costs.
struct CommandCost {
  uint64_t cycles = 0;
  /// Multiply-accumulates (all lanes).
  uint64_t macs = 0;
  /// DDR bytes the model charges (bursts included); 0 for compute.
  uint64_t ddrBytes = 0;
  /// Elementary operations on the host (all lanes), to decide whether the
  /// lanes are worth spreading over threads.
  uint64_t hostWork = 0;
};

class TimeModel {
public:
  TimeModel(const plugins::ChipDescriptor &chip,
            const TimeModelParams &params = {});

  /// A LOAD or STORE of `global`; a GATHER of its rows by `index`.
  CommandCost getDmaCost(const GlobalGeometry &global,
                         const GlobalGeometry *index) const;
  /// A validated compute command; traps when the chip has no throughput for
  /// the element type the command computes in.
  absl::StatusOr<CommandCost> getComputeCost(const cmd::Compute &compute,
                                             const ComputeOperands &ops) const;

  /// A section of `cores` cores (docs/command-stream.md, section 8): its
  /// slowest core's cycles, but no faster than the DDR bytes all its cores
  /// move, plus the barrier ending it when it has several cores.
  uint64_t getSectionCycles(uint64_t slowestCore, uint64_t ddrBytes,
                            int64_t cores) const;

  double getSeconds(uint64_t cycles) const {
    return double(cycles) / (clockMHz * 1e6);
  }
  double getDdrBytesPerCycle() const { return ddrBytesPerCycle; }
  uint64_t getDmaLatencyCycles() const { return dmaLatencyCycles; }
  uint64_t getCoreSyncCycles() const { return coreSyncCycles; }
  /// Peak multiply-accumulates per cycle of one lane; 0 when unsupported.
  double getMacsPerCycle(DType type) const;
  /// Elements one lane's vector unit processes per cycle.
  double getVectorElementsPerCycle(DType type) const;
  const TimeModelParams &getParams() const { return params; }

private:
  const plugins::ChipDescriptor &chip;
  TimeModelParams params;
  double clockMHz;
  double ddrBytesPerCycle;
  uint64_t dmaLatencyCycles;
  uint64_t coreSyncCycles;
};

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_TIMEMODEL_H
