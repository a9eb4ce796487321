//===- Passes.h - layer groups of the chips' common backend ----*- C++ -*-===//

#ifndef LLMC_BACKENDS_COMMON_LAYERGROUP_PASSES_H
#define LLMC_BACKENDS_COMMON_LAYERGROUP_PASSES_H

#include "plugins/ChipDescriptor.h"

#include "mlir/Pass/Pass.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace llmc::layergroup {

#define GEN_PASS_DECL
#include "backends/common/layergroup/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backends/common/layergroup/Passes.h.inc"

/// tpu-layer-group for `chip` (a backend's pipeline).
std::unique_ptr<mlir::Pass>
createTpuLayerGroupPass(const plugins::ChipDescriptor &chip);

} // namespace llmc::layergroup

#endif // LLMC_BACKENDS_COMMON_LAYERGROUP_PASSES_H
