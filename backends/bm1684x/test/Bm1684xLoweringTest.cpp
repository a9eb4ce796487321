//===- Bm1684xLoweringTest.cpp - the BM1684X backend's lowering hooks -----===//
//
// The plugin as the driver sees it: registered, found by chip id, asked for
// its lowering pipeline, and the pipeline run on a piece.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/CommonBackend.h"
#include "backends/common/lowering/test/ChipBackendTest.h"

#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::plugins {
void register_bm1684x(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc;
using ::testing::HasSubstr;

namespace {

class Bm1684xLoweringTest : public test::ChipBackendTest {
protected:
  Bm1684xLoweringTest()
      : ChipBackendTest(plugins::register_bm1684x, "bm1684x") {}

  const std::string kPiece = test::makeLmHeadPiece(64, 512);
};

TEST_F(Bm1684xLoweringTest, LowersEveryModeItLists) {
  expectLowersEveryModeItLists(kPiece);
}

TEST_F(Bm1684xLoweringTest, W4BF16QuantizesTheLmHead) {
  lowering::LoweringOptions options;
  options.mode = lowering::QuantMode::W4BF16;
  options.groupSize = 32;
  options.asymmetric = true;
  std::string ir = lower(kPiece, options);
  EXPECT_THAT(ir, HasSubstr("top.Weight \"lm_head.weight#w4_g32_asym_bf16.zp\" "
                            ": () -> tensor<512x2xui4>"));
  EXPECT_THAT(ir, HasSubstr("tensor<512x64x!quant.any<u4:bf16>>"));
}

TEST_F(Bm1684xLoweringTest, HasOneCore) {
  lowering::LoweringOptions options;
  EXPECT_THAT(lower(test::makeLmHeadPiece(64, 4096), options),
              ::testing::Not(HasSubstr("core_split")));
  options.cores = 2;
  mlir::PassManager pm(&context);
  EXPECT_EQ(llvm::toString(backend().buildLoweringPipeline(pm, options)),
            "chip 'bm1684x' has 1 core(s); cannot split across 2");
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
