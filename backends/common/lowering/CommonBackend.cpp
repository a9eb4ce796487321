//===- CommonBackend.cpp - a backend lowering with the common patterns ----===//

#include "backends/common/lowering/CommonBackend.h"

#include "backends/common/cmodel/CModel.h"
#include "backends/common/codegen/Codegen.h"
#include "backends/common/layergroup/Passes.h"
#include "backends/common/lowering/Passes.h"
#include "backends/common/lowering/TopToTpu.h"
#include "dialects/tpu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

namespace llmc::lowering {

llvm::Error checkQuantModes(const plugins::ChipDescriptor &chip,
                            const LoweringOptions &options) {
  auto unsupported = [&](QuantMode mode, const llvm::Twine &where) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        where + "chip '" + chip.id + "' does not support quantization mode '" +
            stringifyQuantMode(mode) + "'; it supports " +
            llvm::join(chip.quantModes, ", "));
  };
  if (!chip.supportsQuantMode(stringifyQuantMode(options.mode)))
    return unsupported(options.mode, "");
  for (const QTableRule &rule : options.qtable)
    if (!chip.supportsQuantMode(stringifyQuantMode(rule.mode)))
      return unsupported(rule.mode, rule.origin + ": ");
  return llvm::Error::success();
}

void CommonBackendPlugin::populateLoweringPatterns(
    mlir::RewritePatternSet &patterns, const LoweringOptions &options) const {
  populateTopToTpuPatterns(patterns, options);
}

llvm::Error CommonBackendPlugin::buildLoweringPipeline(
    mlir::OpPassManager &pm, const LoweringOptions &options) const {
  if (llvm::Error error = checkQuantModes(getDescriptor(), options))
    return error;
  if (llvm::Error error = options.validate())
    return error;
  const plugins::ChipDescriptor &chip = getDescriptor();
  if (options.cores > chip.cores)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "chip '" + chip.id + "' has " + llvm::Twine(chip.cores) +
            " core(s); cannot split across " + llvm::Twine(options.cores));
  buildTopToTpuPipeline(pm, options,
                        [this](mlir::RewritePatternSet &patterns,
                               const LoweringOptions &patternOptions) {
                          populateLoweringPatterns(patterns, patternOptions);
                        });
  tpu::TpuCoreSplitPassOptions split;
  split.cores = options.cores ? options.cores : chip.cores;
  split.minWeightBytes = options.coreSplitMinWeightBytes;
  pm.addNestedPass<mlir::func::FuncOp>(tpu::createTpuCoreSplitPass(split));
  // After the split: a split projection's cores cannot read what a group
  // holds, so the planner must see which ones are.
  pm.addNestedPass<mlir::func::FuncOp>(
      layergroup::createTpuLayerGroupPass(chip));
  return llvm::Error::success();
}

llvm::Error CommonBackendPlugin::generateStream(
    mlir::Operation *function, const llvm::StringMap<uint64_t> &weightOffsets,
    cmd::CommandStream &stream) const {
  llvm::Expected<cmd::CommandStream> generated = codegen::generateCommandStream(
      llvm::cast<mlir::func::FuncOp>(function), getDescriptor(), weightOffsets);
  if (!generated)
    return generated.takeError();
  stream = std::move(*generated);
  return llvm::Error::success();
}

std::unique_ptr<cmodel::StreamDevice>
CommonBackendPlugin::createDevice(const cmodel::DeviceOptions &options) const {
  return cmodel::createCModelDevice(getDescriptor(), options);
}

} // namespace llmc::lowering
