//===- LocalAccesses.h - local bytes a command reads, writes ----*- C++ -*-===//
//
// The executor's race diagnosis and codegen's DMA scheduling both ask which
// local tensors a command reads and which it writes.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_LOCALACCESSES_H
#define LLMC_BACKENDS_COMMON_CMODEL_LOCALACCESSES_H

#include "backends/common/cmodel/Geometry.h"
#include "backends/common/cmodel/command_stream.pb.h"

#include <vector>

namespace llmc::cmodel {

/// Whether `compute` reads the old values of its output `i` (an
/// accumulating matmul's output, a resumed attention's state).
bool readsOutput(const cmd::Compute &compute, size_t i);

/// The local tensors a command reads and writes, as far as they are valid
/// (for diagnosing races with commands that have not run yet).
struct LocalAccesses {
  std::vector<LocalGeometry> reads;
  std::vector<LocalGeometry> writes;
};
LocalAccesses getLocalAccesses(const cmd::Command &command,
                               const plugins::ChipDescriptor &chip);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_LOCALACCESSES_H
