//===- InternVLConfigTest.cpp - InternVL's vision settings ----------------===//

#include "frontends/hf/InternVLConfig.h"

#include "frontends/hf/test/JsonText.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::hf {
namespace {

using ::testing::HasSubstr;

using test::parseObject;

constexpr llvm::StringLiteral kConfig = R"({
  "force_image_size": 448, "downsample_ratio": 0.5,
  "vision_config": {"patch_size": 14, "hidden_size": 1024,
    "num_hidden_layers": 24, "num_attention_heads": 16,
    "intermediate_size": 4096, "layer_norm_eps": 1e-6, "qkv_bias": true,
    "hidden_act": "gelu", "image_size": 448},
  "llm_config": {"hidden_size": 896}})";

TEST(InternVLConfigTest, ReadsTheVisionTowerAndProjectorSizes) {
  llvm::Expected<plugins::InternVisionSpec> spec =
      readInternVisionSpec(parseObject(kConfig), "config.json");
  ASSERT_TRUE(static_cast<bool>(spec)) << toString(spec.takeError());
  EXPECT_EQ(spec->imageSize, 448);
  EXPECT_EQ(spec->numLayers, 24);
  EXPECT_EQ(spec->llmHiddenSize, 896);
  // InternVL2-1B: 448 / 14 = 32 patches a side, 2 x 2 joined: 256 tokens.
  EXPECT_EQ(spec->getTokensPerTile(), 256);
}

TEST(InternVLConfigTest, RefusesWhatItCannotBuild) {
  auto errorOf = [](llvm::json::Object config) {
    llvm::Expected<plugins::InternVisionSpec> spec =
        readInternVisionSpec(config, "config.json");
    return spec ? std::string("read") : toString(spec.takeError());
  };
  llvm::json::Object noVision = parseObject(kConfig);
  noVision.erase("vision_config");
  EXPECT_EQ(errorOf(std::move(noVision)),
            "config.json: an InternVL config needs 'vision_config' and "
            "'llm_config' objects");
  llvm::json::Object qkNorm = parseObject(kConfig);
  (*qkNorm.getObject("vision_config"))["qk_normalization"] = true;
  EXPECT_THAT(errorOf(std::move(qkNorm)), HasSubstr("qk_normalization"));
  llvm::json::Object missing = parseObject(kConfig);
  missing.getObject("vision_config")->erase("num_attention_heads");
  EXPECT_THAT(errorOf(std::move(missing)),
              HasSubstr("vision_config.num_attention_heads"));
}

} // namespace
} // namespace llmc::hf
