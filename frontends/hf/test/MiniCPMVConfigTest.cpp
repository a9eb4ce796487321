//===- MiniCPMVConfigTest.cpp - MiniCPM-V's vision settings ---------------===//

#include "frontends/hf/MiniCPMVConfig.h"

#include "frontends/hf/test/JsonText.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::hf {
namespace {

using ::testing::HasSubstr;

using test::parseObject;

/// MiniCPM-V 2.6's sizes.
constexpr llvm::StringLiteral kConfig = R"({
  "hidden_size": 3584, "query_num": 64, "version": 2.6,
  "slice_config": {"max_slice_nums": 9, "patch_size": 14,
    "scale_resolution": 448},
  "vision_config": {"hidden_size": 1152, "image_size": 980,
    "intermediate_size": 4304, "num_attention_heads": 16,
    "num_hidden_layers": 27, "patch_size": 14}})";

TEST(MiniCPMVConfigTest, ReadsTheTowerResamplerAndSlicing) {
  llvm::Expected<plugins::MiniCPMVisionSpec> spec =
      readMiniCPMVisionSpec(parseObject(kConfig), "config.json");
  ASSERT_TRUE(static_cast<bool>(spec)) << toString(spec.takeError());
  EXPECT_EQ(spec->positionsPerSide, 70);
  EXPECT_EQ(spec->getResamplerHeads(), 28);
  // 32 patches a side, rounded up by at most one each.
  EXPECT_EQ(spec->getMaxPatches(), 33 * 33);
  EXPECT_EQ(spec->maxSlices, 9);
}

TEST(MiniCPMVConfigTest, RefusesWhatItCannotBuild) {
  auto error = [](llvm::StringRef text) {
    llvm::Expected<plugins::MiniCPMVisionSpec> spec =
        readMiniCPMVisionSpec(parseObject(text), "config.json");
    return spec ? std::string() : toString(spec.takeError());
  };
  EXPECT_THAT(error(R"({"hidden_size": 3584})"),
              HasSubstr("config.json: a MiniCPM-V config needs a "
                        "'vision_config' object"));
  std::string older = kConfig.str();
  older.replace(older.find("2.6"), 3, "2.5");
  EXPECT_THAT(error(older), HasSubstr("version 2.5"));
  std::string other = kConfig.str();
  other.replace(other.find("\"hidden_size\": 1152"), 19,
                "\"hidden_act\": \"gelu\", \"hidden_size\": 1152");
  EXPECT_THAT(error(other), HasSubstr("hidden_act 'gelu' is not supported"));
  std::string noQueries = kConfig.str();
  noQueries.replace(noQueries.find("\"query_num\": 64, "), 17, "");
  EXPECT_THAT(error(noQueries), HasSubstr("query_num"));
}

} // namespace
} // namespace llmc::hf
