//===- TopToTpuPipeline.cpp - the top -> tpu pipeline ---------------------===//

#include "backends/common/lowering/Passes.h"

#include "dialects/top/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace llmc::lowering {

/// The stage around a configured tpu-lower-top pass.
static void buildPipelineAround(OpPassManager &pm,
                                std::unique_ptr<Pass> lowering) {
  pm.addPass(top::createTopShapeInferPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(std::move(lowering));
  pm.addPass(createCSEPass());
}

void buildTopToTpuPipeline(OpPassManager &pm, const LoweringOptions &options,
                           PatternPopulator populate) {
  buildPipelineAround(pm, createTpuLowerTopPass(options, std::move(populate)));
}

namespace {
struct TopToTpuPipelineOptions
    : public PassPipelineOptions<TopToTpuPipelineOptions> {
  Option<std::string> mode{
      *this, "mode",
      llvm::cl::desc("Quantization mode (F32, W4BF16, INT8, ...)"),
      llvm::cl::init("F32")};
  Option<int64_t> groupSize{
      *this, "q-group-size",
      llvm::cl::desc("Weights per quantization group along K (0: per channel)"),
      llvm::cl::init(64)};
  Option<bool> asymmetric{*this, "asymmetric",
                          llvm::cl::desc("Quantize weights asymmetrically"),
                          llvm::cl::init(false)};
  Option<std::string> qtable{
      *this, "qtable",
      llvm::cl::desc("A file of '<op name or glob> <mode>' rules")};
  Option<std::string> calibrationTable{
      *this, "calibration-table",
      llvm::cl::desc("INT8: the activation ranges 'llmc calibrate' wrote")};
};
} // namespace

void registerTopToTpuPipeline() {
  PassPipelineRegistration<TopToTpuPipelineOptions>(
      "tpu-lower-top-pipeline",
      "Shape inference and canonicalization of top, tpu-lower-top, CSE",
      [](OpPassManager &pm, const TopToTpuPipelineOptions &options) {
        // The options go to the pass as text: it reports a bad mode or
        // qtable when it runs, with a location.
        TpuLowerTopPassOptions passOptions;
        passOptions.mode = options.mode;
        passOptions.groupSize = options.groupSize;
        passOptions.asymmetric = options.asymmetric;
        passOptions.qtable = options.qtable;
        passOptions.calibrationTable = options.calibrationTable;
        buildPipelineAround(pm, createTpuLowerTopPass(passOptions));
      });
}

} // namespace llmc::lowering
