//===- Codegen.h - a placed tpu piece to a command stream -------*- C++ -*-===//
//
// The last stage of a backend's pipeline: walks a piece that tpu-address-
// assign has placed and emits its command stream (docs/command-stream.md),
// op by op, each op tiled to the chip's local memory with its loads issued
// ahead of its computations. Weights are addressed through the binary's
// coeff layout, so one stream is valid for one layout.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_CODEGEN_H
#define LLMC_BACKENDS_COMMON_CODEGEN_CODEGEN_H

#include "backends/common/codegen/GlobalViews.h"
#include "backends/common/cmodel/command_stream.pb.h"

#include "plugins/ChipDescriptor.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace llmc::codegen {

/// The command stream of `function` (lowered to tpu and placed) for `chip`,
/// its weights at `weights` in the coeff region. Errors name the op, its
/// location and what codegen cannot do.
llvm::Expected<cmd::CommandStream>
generateCommandStream(mlir::func::FuncOp function,
                      const plugins::ChipDescriptor &chip,
                      const WeightOffsets &weights);

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_CODEGEN_H
