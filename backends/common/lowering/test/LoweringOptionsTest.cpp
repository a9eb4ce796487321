//===- LoweringOptionsTest.cpp - quantization modes and qtable files ------===//

#include "backends/common/lowering/LoweringOptions.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc::lowering;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

template <typename T> std::string errorOf(llvm::Expected<T> result) {
  EXPECT_FALSE(static_cast<bool>(result)) << "expected an error";
  return result ? "" : llvm::toString(result.takeError());
}

TEST(QuantModeTest, ParsesEveryModeIgnoringCase) {
  for (QuantMode mode : getAllQuantModes()) {
    llvm::Expected<QuantMode> parsed = parseQuantMode(stringifyQuantMode(mode));
    ASSERT_TRUE(static_cast<bool>(parsed));
    EXPECT_EQ(*parsed, mode);
  }
  llvm::Expected<QuantMode> lower = parseQuantMode("w4bf16");
  ASSERT_TRUE(static_cast<bool>(lower));
  EXPECT_EQ(*lower, QuantMode::W4BF16);
}

TEST(QuantModeTest, UnknownModeListsTheValidOnes) {
  EXPECT_EQ(errorOf(parseQuantMode("INT4")),
            "unknown quantization mode 'INT4'; valid modes: F32, F16, BF16, "
            "W8F16, W8BF16, W4F16, W4BF16, INT8");
}

TEST(QuantModeTest, Int8QuantizesActivationsAndNeedsACalibrationTable) {
  EXPECT_TRUE(quantizesActivations(QuantMode::INT8));
  EXPECT_FALSE(quantizesActivations(QuantMode::W8F16));
  EXPECT_EQ(getWeightBits(QuantMode::INT8), 0);
  EXPECT_EQ(getActivationType(QuantMode::INT8), llmc::quant::FloatType::F16);
  LoweringOptions options;
  options.mode = QuantMode::F16;
  options.qtable = {{"lm_head", QuantMode::INT8, "q:1"}};
  EXPECT_EQ(llvm::toString(options.validate()),
            "INT8 quantizes activations and needs a calibration table (llmc "
            "calibrate; --calibration-table)");
  options.calibration = std::make_shared<llmc::quant::CalibrationTable>();
  EXPECT_EQ(llvm::toString(options.validate()), "");
}

TEST(QuantModeTest, ActivationTypesAndWeightBits) {
  EXPECT_EQ(getActivationType(QuantMode::F32), llmc::quant::FloatType::F32);
  EXPECT_EQ(getActivationType(QuantMode::W8F16), llmc::quant::FloatType::F16);
  EXPECT_EQ(getActivationType(QuantMode::W4BF16), llmc::quant::FloatType::BF16);
  EXPECT_EQ(getWeightBits(QuantMode::BF16), 0);
  EXPECT_EQ(getWeightBits(QuantMode::W8BF16), 8);
  EXPECT_EQ(getWeightBits(QuantMode::W4F16), 4);
  EXPECT_EQ(getFloatMode(QuantMode::W4F16), QuantMode::F16);
  EXPECT_EQ(getFloatMode(QuantMode::W8BF16), QuantMode::BF16);
  EXPECT_EQ(getFloatMode(QuantMode::INT8), QuantMode::F16);
  EXPECT_EQ(getFloatMode(QuantMode::F32), QuantMode::F32);
}

TEST(QTableTest, ParsesRulesCommentsAndBlankLines) {
  llvm::Expected<std::vector<QTableRule>> rules =
      parseQTable("# precision overrides\n"
                  "\n"
                  "model.layers.*.mlp*   F16\n"
                  "  lm_head\tf32   # the logits\n",
                  "q.txt");
  ASSERT_TRUE(static_cast<bool>(rules)) << llvm::toString(rules.takeError());
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ((*rules)[0].pattern, "model.layers.*.mlp*");
  EXPECT_EQ((*rules)[0].mode, QuantMode::F16);
  EXPECT_EQ((*rules)[0].origin, "q.txt:3");
  EXPECT_EQ((*rules)[1].pattern, "lm_head");
  EXPECT_EQ((*rules)[1].mode, QuantMode::F32);
  EXPECT_EQ((*rules)[1].origin, "q.txt:4");
}

TEST(QTableTest, ErrorsNameFileAndLine) {
  EXPECT_EQ(errorOf(parseQTable("a F16\nlm_head\n", "q.txt")),
            "q.txt:2: expected '<op name or glob> <mode>', got 'lm_head'");
  EXPECT_EQ(errorOf(parseQTable("a b F16\n", "q.txt")),
            "q.txt:1: expected '<op name or glob> <mode>', got 'a b F16'");
  EXPECT_THAT(errorOf(parseQTable("\n\nlm_head W3F16\n", "q.txt")),
              HasSubstr("q.txt:3: unknown quantization mode 'W3F16'; valid "
                        "modes: F32,"));
  EXPECT_THAT(errorOf(parseQTable("layers.[1 F16\n", "q.txt")),
              HasSubstr("q.txt:1: bad pattern 'layers.[1'"));
  EXPECT_THAT(errorOf(readQTableFile("/nonexistent/qtable.txt")),
              HasSubstr("cannot read qtable '/nonexistent/qtable.txt'"));
}

TEST(LoweringOptionsTest, UsedModesAndValidation) {
  LoweringOptions options;
  options.mode = QuantMode::W4BF16;
  options.qtable = {{"lm_head", QuantMode::F32, "q:1"},
                    {"a*", QuantMode::W4BF16, "q:2"},
                    {"b*", QuantMode::F16, "q:3"}};
  EXPECT_THAT(options.getUsedModes(),
              ElementsAre(QuantMode::W4BF16, QuantMode::F32, QuantMode::F16));
  EXPECT_FALSE(static_cast<bool>(options.validate()));
  options.groupSize = -1;
  EXPECT_THAT(llvm::toString(options.validate()),
              HasSubstr("group size must be positive, or 0 for per-channel"));
}

} // namespace
