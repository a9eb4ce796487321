//===- Passes.h - the top -> tpu lowering pass and pipeline ----*- C++ -*-===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_PASSES_H
#define LLMC_BACKENDS_COMMON_LOWERING_PASSES_H

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

namespace llmc::lowering {

#define GEN_PASS_DECL
#include "backends/common/lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "backends/common/lowering/Passes.h.inc"

/// Adds the top -> tpu lowering patterns for `options`; a backend's own
/// populate function, or populateTopToTpuPatterns.
using PatternPopulator =
    std::function<void(mlir::RewritePatternSet &, const LoweringOptions &)>;

/// tpu-lower-top with options already parsed (the qtable read), lowering
/// with the patterns `populate` adds (the common ones when it is empty).
std::unique_ptr<mlir::Pass>
createTpuLowerTopPass(const LoweringOptions &options,
                      PatternPopulator populate);

/// The top -> tpu stage of a backend's pipeline: top shape inference and
/// canonicalization, tpu-lower-top with `options` and `populate`, CSE.
void buildTopToTpuPipeline(mlir::OpPassManager &pm,
                           const LoweringOptions &options,
                           PatternPopulator populate = nullptr);

/// Registers buildTopToTpuPipeline as `tpu-lower-top-pipeline`, with the
/// options of tpu-lower-top (registerLoweringPasses registers the pass).
void registerTopToTpuPipeline();

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_PASSES_H
