//===- CalibrationTableTest.cpp - the table format and 8-bit parameters ---===//

#include "backends/common/quant/CalibrationTable.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc::quant;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

TEST(CalibrationTable, RoundTripsExactly) {
  CalibrationTable table;
  table.set("model.layers.0.mlp", {-1.0f / 3, 2.5f, 2.5f});
  table.set("lm_head", {-7.125f, 0.1f, 7.125f});
  std::string text;
  llvm::raw_string_ostream os(text);
  table.print(os, "method minmax\n2 prompts");
  EXPECT_THAT(text, HasSubstr("# method minmax\n# 2 prompts\n"));
  llvm::Expected<CalibrationTable> parsed = CalibrationTable::parse(text, "t");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_THAT(parsed->getNames(), ElementsAre("model.layers.0.mlp", "lm_head"));
  EXPECT_EQ(parsed->lookup("model.layers.0.mlp")->min, -1.0f / 3);
  EXPECT_EQ(parsed->lookup("lm_head")->max, 0.1f);
  EXPECT_EQ(parsed->lookup("missing"), nullptr);
}

TEST(CalibrationTable, ErrorsNameTheLine) {
  auto message = [](llvm::StringRef text) {
    llvm::Expected<CalibrationTable> table =
        CalibrationTable::parse(text, "cal.txt");
    return table ? std::string() : llvm::toString(table.takeError());
  };
  EXPECT_THAT(message("# ok\na 1 2\n"), HasSubstr("cal.txt:2: expected"));
  EXPECT_THAT(message("a 0 1 nan\n"), HasSubstr("cal.txt:1: 'a' has a value"));
  EXPECT_THAT(message("a 2 1 1\n"), HasSubstr("min <= max"));
  EXPECT_THAT(message("a 0 1 1\na 0 1 1\n"), HasSubstr("cal.txt:2: 'a' is "
                                                       "listed twice"));
}

TEST(CalibrationTable, SymmetricQuantizationUsesTheThreshold) {
  ActivationQuant quant = getActivationQuant({-1, 3, 2.54f}, false);
  EXPECT_TRUE(quant.isSigned);
  EXPECT_EQ(quant.scale, 2.54f / 127.0f);
  EXPECT_EQ(quant.zeroPoint, 0);
  EXPECT_EQ(quant.qmin(), -128);
}

TEST(CalibrationTable, AsymmetricQuantizationKeepsZeroExact) {
  ActivationQuant quant = getActivationQuant({-1, 3, 3}, true);
  EXPECT_FALSE(quant.isSigned);
  EXPECT_EQ(quant.scale, 4.0f / 255.0f);
  EXPECT_EQ(quant.zeroPoint, 64); // round(1 / (4 / 255)) = round(63.75)
  // A positive range still includes 0.
  EXPECT_EQ(getActivationQuant({0.5f, 2, 2}, true).zeroPoint, 0);
  // An empty range keeps scale 1.
  EXPECT_EQ(getActivationQuant({0, 0, 0}, false).scale, 1.0f);
  EXPECT_EQ(getActivationQuant({0, 0, 0}, true).scale, 1.0f);
}

} // namespace
