//===- StreamTiming.h - a stream's modelled time without running it -*- C++ -*-===//
//
// The cycles CModel::run reports for a stream, from the time model alone:
// every command's cost (TimeModel), the two queues scheduled as soon as
// their order and waits allow, sections added up as the cmodel adds them.
// No numerics, memory or sync checks, so it costs microseconds where a run
// costs the kernels' work: codegen compares candidate tilings with it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_STREAMTIMING_H
#define LLMC_BACKENDS_COMMON_CMODEL_STREAMTIMING_H

#include "backends/common/cmodel/TimeModel.h"
#include "backends/common/cmodel/command_stream.pb.h"

#include "support/Status.h"

namespace llmc::cmodel {

/// The total cycles of `stream` (version 1 or 2) on the chip `time` models,
/// equal to CModel::run's RunStats::totalCycles for a stream that runs
/// without a trap. A command the time model cannot cost (bad operands, a
/// type the chip cannot compute in) or waits that can never be met are
/// errors.
absl::StatusOr<uint64_t> estimateCycles(const cmd::CommandStream &stream,
                                        const TimeModel &time,
                                        const plugins::ChipDescriptor &chip);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_STREAMTIMING_H
