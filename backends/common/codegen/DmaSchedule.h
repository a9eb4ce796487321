//===- DmaSchedule.h - weight loads ahead of other DMAs ---------*- C++ -*-===//
//
// The DMA queue runs in order. An op's last store waits for its last
// computation, and every DMA behind it waits too, though the next ops'
// weight loads need nothing from it: the queue idles while the chip
// computes. This pass moves each weight load (the coeff region, which no
// command writes) ahead of the DMAs before it that it does not depend on,
// and keeps a move only when the chip's time model finds the stream
// faster: a weight load ahead of an activation's load can also delay the
// computation that waits for that activation.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_DMASCHEDULE_H
#define LLMC_BACKENDS_COMMON_CODEGEN_DMASCHEDULE_H

#include "backends/common/cmodel/command_stream.pb.h"

#include "plugins/ChipDescriptor.h"

#include "support/Status.h"

namespace llmc::codegen {

/// Reorders every DMA queue of `stream` as above. A load moves past a DMA
/// only when neither touches local bytes the other writes; a computation
/// that waited for the load and also needs that DMA (queue order had
/// ordered them) then waits for it explicitly. A load never passes a DMA
/// it depends on through its waits, nor another weight load.
absl::Status hoistWeightLoads(cmd::CommandStream &stream,
                              const plugins::ChipDescriptor &chip);

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_DMASCHEDULE_H
