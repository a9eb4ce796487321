//===- Bm1684xLoweringTest.cpp - the BM1684X backend's lowering hooks -----===//
//
// The plugin as the driver sees it: registered, found by chip id, asked for
// its lowering pipeline, and the pipeline run on a piece.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/CommonBackend.h"
#include "dialects/Registration.h"
#include "plugins/Registry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::plugins {
void register_bm1684x(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using ::testing::HasSubstr;

namespace {

const char *const kPiece = R"mlir(
func.func @lm_head(%arg0: tensor<1x64xf32>) -> tensor<1x512xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x64xf32>) -> tensor<1x64xf32>
  %w = top.Weight "lm_head.weight" : () -> tensor<512x64xf32>
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x64xf32>, tensor<512x64xf32>, none) -> tensor<1x512xf32>
  return %y : tensor<1x512xf32>
}
)mlir";

class Bm1684xLoweringTest : public ::testing::Test {
protected:
  void SetUp() override {
    plugins::register_bm1684x(registry);
    ASSERT_FALSE(static_cast<bool>(registry.takeRegistrationErrors()));
    mlir::DialectRegistry dialects;
    registerAllDialects(dialects);
    context.appendDialectRegistry(dialects);
    context.loadAllAvailableDialects();
  }

  const plugins::BackendPlugin &backend() {
    return llvm::cantFail(registry.findBackend("bm1684x"));
  }

  /// Lowers kPiece with the chip's pipeline and returns the printed IR.
  std::string lower(const lowering::LoweringOptions &options) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(kPiece, &context);
    EXPECT_TRUE(module);
    mlir::PassManager pm(&context);
    if (llvm::Error error = backend().buildLoweringPipeline(pm, options)) {
      ADD_FAILURE() << llvm::toString(std::move(error));
      return "";
    }
    EXPECT_TRUE(mlir::succeeded(pm.run(*module)));
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }

  plugins::Registry registry;
  mlir::MLIRContext context;
};

TEST_F(Bm1684xLoweringTest, LowersEveryModeItLists) {
  for (const std::string &name : backend().getDescriptor().quantModes) {
    lowering::LoweringOptions options;
    options.mode = llvm::cantFail(lowering::parseQuantMode(name));
    std::string ir = lower(options);
    EXPECT_THAT(ir, ::testing::Not(HasSubstr("top.MatMul"))) << name;
    if (lowering::getWeightBits(options.mode))
      EXPECT_THAT(ir, HasSubstr("tpu.A16MatMul")) << name;
    else
      EXPECT_THAT(ir, HasSubstr("tpu.MatMul")) << name;
  }
}

TEST_F(Bm1684xLoweringTest, W4BF16QuantizesTheLmHead) {
  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::W4BF16;
  options.groupSize = 32;
  options.asymmetric = true;
  std::string ir = lower(options);
  EXPECT_THAT(ir, HasSubstr("top.Weight \"lm_head.weight#w4_g32_asym_bf16.zp\" "
                            ": () -> tensor<512x2xui4>"));
  EXPECT_THAT(ir, HasSubstr("tensor<512x64x!quant.any<u4:bf16>>"));
}

TEST_F(Bm1684xLoweringTest, RejectsModesTheChipDoesNotList) {
  // A chip like the BM1684X but without 4-bit weights.
  class NoW4Backend : public lowering::CommonBackendPlugin {
  public:
    NoW4Backend(plugins::ChipDescriptor chip) : chip(std::move(chip)) {}
    const plugins::ChipDescriptor &getDescriptor() const override {
      return chip;
    }
    plugins::ChipDescriptor chip;
  };
  plugins::ChipDescriptor chip = backend().getDescriptor();
  chip.id = "no_w4";
  chip.quantModes = {"F32", "F16", "W8F16"};
  NoW4Backend noW4(chip);

  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::W4F16;
  mlir::PassManager pm(&context);
  EXPECT_EQ(llvm::toString(noW4.buildLoweringPipeline(pm, options)),
            "chip 'no_w4' does not support quantization mode 'W4F16'; it "
            "supports F32, F16, W8F16");
  options.mode = lowering::QuantMode::W8F16;
  options.qtable = {{"lm_head", lowering::QuantMode::BF16, "q.txt:4"}};
  EXPECT_EQ(llvm::toString(noW4.buildLoweringPipeline(pm, options)),
            "q.txt:4: chip 'no_w4' does not support quantization mode "
            "'BF16'; it supports F32, F16, W8F16");
  options.qtable.clear();
  options.groupSize = -1;
  EXPECT_THAT(llvm::toString(noW4.buildLoweringPipeline(pm, options)),
              HasSubstr("group size must be positive"));
}

} // namespace
