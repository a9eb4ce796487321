//===- LoweredWeightsTest.cpp - top pieces retargeted to lowered weights --===//

#include "backends/common/lowering/LoweredWeights.h"
#include "dialects/Registration.h"
#include "dialects/top/IR/TopOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

/// An LM head whose norm and matmul read checkpoint weights.
const char *const kLmHead = R"mlir(
func.func @lm_head(%arg0: tensor<1x64xf32>) -> tensor<1x512xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x64xf32>) -> tensor<1x64xf32>
  %n = top.Weight "model.norm.weight" : () -> tensor<64xf32>
  %y = top.RMSNorm %x, %n {eps = 1.0e-6 : f64} : (tensor<1x64xf32>, tensor<64xf32>) -> tensor<1x64xf32>
  %w = top.Weight "model.embed_tokens.weight" : () -> tensor<512x64xf32>
  %l = top.MatMul %y, %w, %none {right_transpose = true} : (tensor<1x64xf32>, tensor<512x64xf32>, none) -> tensor<1x512xf32> loc("model.embed_tokens")
  return %l : tensor<1x512xf32>
}
)mlir";

class LoweredWeightsTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry dialects;
    registerAllDialects(dialects);
    context.appendDialectRegistry(dialects);
    context.loadAllAvailableDialects();
  }

  /// The weight names of kLmHead after retargeting under `options`.
  std::vector<std::string> retarget(const lowering::LoweringOptions &options) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(kLmHead, &context);
    EXPECT_TRUE(module);
    if (llvm::Error error =
            lowering::retargetToLoweredWeights(*module, options)) {
      ADD_FAILURE() << llvm::toString(std::move(error));
      return {};
    }
    std::vector<std::string> names;
    module->walk(
        [&](top::WeightOp weight) { names.push_back(weight.getName().str()); });
    // Only names change: the ops stay top ops.
    int topMatMuls = 0;
    module->walk([&](top::MatMulOp) { ++topMatMuls; });
    EXPECT_EQ(topMatMuls, 1);
    return names;
  }

  mlir::MLIRContext context;
};

TEST_F(LoweredWeightsTest, F32KeepsTheNames) {
  EXPECT_THAT(retarget({}),
              ElementsAre("model.norm.weight", "model.embed_tokens.weight"));
}

TEST_F(LoweredWeightsTest, ReadsQuantizedAndRoundedValues) {
  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::W4BF16;
  options.asymmetric = true;
  options.groupSize = 32;
  EXPECT_THAT(retarget(options),
              ElementsAre("model.norm.weight#bf16",
                          "model.embed_tokens.weight#w4_g32_asym_bf16"));
}

TEST_F(LoweredWeightsTest, FollowsTheQTable) {
  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::W8F16;
  options.qtable = {{"model.embed_tokens", lowering::QuantMode::F32, "q:1"}};
  EXPECT_THAT(retarget(options), ElementsAre("model.norm.weight#f16",
                                             "model.embed_tokens.weight"));
}

TEST_F(LoweredWeightsTest, ReportsLoweringErrors) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kLmHead, &context);
  lowering::LoweringOptions options;
  // INT8 with no calibration table has no range for the activations.
  options.mode = lowering::QuantMode::INT8;
  EXPECT_THAT(
      llvm::toString(lowering::retargetToLoweredWeights(*module, options)),
      HasSubstr("cannot lower to INT8: tpu-lower-top: INT8 quantizes "
                "activations and needs a calibration table"));
}

} // namespace
