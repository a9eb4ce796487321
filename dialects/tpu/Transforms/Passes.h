//===- Passes.h - passes and pipelines on the tpu dialect ------*- C++ -*-===//

#ifndef LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_H
#define LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_H

#include "backends/common/lowering/LoweringOptions.h"
#include "dialects/top/IR/TopDialect.h"
#include "dialects/tpu/IR/TpuDialect.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Pass/Pass.h"

#include <functional>

namespace mlir {
class OpPassManager;
class RewritePatternSet;
} // namespace mlir

namespace llmc::tpu {

#define GEN_PASS_DECL
#include "dialects/tpu/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/tpu/Transforms/Passes.h.inc"

/// Adds the top -> tpu lowering patterns for `options`; a backend's own
/// populate function, or lowering::populateTopToTpuPatterns.
using PatternPopulator = std::function<void(mlir::RewritePatternSet &,
                                            const lowering::LoweringOptions &)>;

/// tpu-lower-top with options already parsed (the qtable read), lowering
/// with the patterns `populate` adds (the common ones when it is empty).
std::unique_ptr<mlir::Pass>
createTpuLowerTopPass(const lowering::LoweringOptions &options,
                      PatternPopulator populate);

/// The top -> tpu stage of a backend's pipeline: top shape inference and
/// canonicalization, tpu-lower-top with `options` and `populate`, CSE.
void buildTopToTpuPipeline(mlir::OpPassManager &pm,
                           const lowering::LoweringOptions &options,
                           PatternPopulator populate = nullptr);

/// Registers buildTopToTpuPipeline as `tpu-lower-top-pipeline`, with the
/// options of tpu-lower-top.
void registerTopToTpuPipeline();

} // namespace llmc::tpu

#endif // LLMC_DIALECTS_TPU_TRANSFORMS_PASSES_H
