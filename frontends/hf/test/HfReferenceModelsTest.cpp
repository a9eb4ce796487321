//===- HfReferenceModelsTest.cpp - the shared reference checkpoints -------===//
//
// Loads the checkpoints of ../shared/refdata through the registered `hf`
// frontend. Expected tensor values were read from the safetensors files with
// Python's struct module, independently of the code under test.
//
//===----------------------------------------------------------------------===//

#include "plugins/Registry.h"
#include "tests/TestData.h"

#include "llvm/Support/Path.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::plugins {
void register_hf(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc::plugins;
using ::testing::ElementsAre;
using ::testing::StartsWith;

namespace {

class HfReferenceModelsTest : public ::testing::Test {
protected:
  void SetUp() override {
    register_hf(registry);
    ASSERT_FALSE(static_cast<bool>(registry.takeRegistrationErrors()));
  }

  /// Loads `relative` (inside refdata) with the frontend that accepts it.
  Checkpoint load(llvm::StringRef relative) {
    std::string path = llmc::test::getRefdataPath(relative);
    llvm::Expected<const FrontendPlugin &> frontend =
        registry.findFrontendFor(path);
    if (!frontend) {
      ADD_FAILURE() << llvm::toString(frontend.takeError());
      return {};
    }
    EXPECT_EQ(frontend->getId(), "hf");
    llvm::Expected<Checkpoint> checkpoint = frontend->load(path);
    if (!checkpoint) {
      ADD_FAILURE() << llvm::toString(checkpoint.takeError());
      return {};
    }
    EXPECT_EQ(checkpoint->spec.source, path);
    return std::move(*checkpoint);
  }

  /// Element `index` of tensor `name`, converted to F32.
  static float element(const Checkpoint &checkpoint, llvm::StringRef name,
                       int64_t index) {
    llvm::Expected<TensorInfo> info = checkpoint.weights->getTensorInfo(name);
    if (!info) {
      ADD_FAILURE() << llvm::toString(info.takeError());
      return 0;
    }
    std::vector<float> values(info->getNumElements());
    if (llvm::Error error = checkpoint.weights->readAsF32(name, values)) {
      ADD_FAILURE() << llvm::toString(std::move(error));
      return 0;
    }
    return values.at(index);
  }

  Registry registry;
};

TEST_F(HfReferenceModelsTest, AcceptsOnlyDirectoriesWithConfig) {
  const FrontendPlugin &hf = *registry.getFrontends().front();
  EXPECT_TRUE(hf.accepts(llmc::test::getRefdataPath("models/tiny-llama")));
  EXPECT_FALSE(hf.accepts(
      llmc::test::getRefdataPath("models/tiny-llama/model.safetensors")));
  EXPECT_FALSE(hf.accepts(llmc::test::getRefdataPath("models")));
}

TEST_F(HfReferenceModelsTest, TinyLlama) {
  Checkpoint checkpoint = load("models/tiny-llama");
  ASSERT_TRUE(checkpoint.weights);
  const ModelSpec &spec = checkpoint.spec;
  EXPECT_EQ(spec.family, "llama");
  EXPECT_EQ(spec.hiddenSize, 256);
  EXPECT_EQ(spec.intermediateSize, 768);
  EXPECT_EQ(spec.numLayers, 4);
  EXPECT_EQ(spec.numHeads, 8);
  EXPECT_EQ(spec.numKvHeads, 2);
  EXPECT_EQ(spec.headDim, 32);
  EXPECT_EQ(spec.rotaryDim, 32);
  EXPECT_EQ(spec.vocabSize, 512);
  EXPECT_EQ(spec.maxPositions, 512);
  EXPECT_DOUBLE_EQ(spec.rmsNormEps, 1e-6);
  EXPECT_DOUBLE_EQ(spec.ropeTheta, 1e4);
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::None);
  EXPECT_FALSE(spec.attentionBias);
  EXPECT_FALSE(spec.qkNorm);
  EXPECT_FALSE(spec.tieWordEmbeddings);
  EXPECT_TRUE(spec.hasTensor(TensorRole::LmHead));
  EXPECT_EQ(spec.bosTokenId, 1);
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(2));
  EXPECT_TRUE(spec.chatTemplate.empty());
  EXPECT_THAT(spec.tokenizerJson, StartsWith("{"));
  EXPECT_EQ(checkpoint.weights->getTensorNames().size(), 39u);

  EXPECT_FLOAT_EQ(element(checkpoint, "model.norm.weight", 0),
                  1.180605411529541f);
  EXPECT_FLOAT_EQ(element(checkpoint, "model.norm.weight", 255),
                  1.03807532787323f);
  EXPECT_FLOAT_EQ(
      element(checkpoint, "model.layers.1.input_layernorm.weight", 7),
      1.1479074954986572f);
  EXPECT_FLOAT_EQ(element(checkpoint, "lm_head.weight", 0),
                  0.0020695182029157877f);
  EXPECT_FLOAT_EQ(element(checkpoint, "lm_head.weight", 511 * 256 + 255),
                  0.018527768552303314f);
}

TEST_F(HfReferenceModelsTest, TinyQwen2) {
  Checkpoint checkpoint = load("models/tiny-qwen2");
  ASSERT_TRUE(checkpoint.weights);
  const ModelSpec &spec = checkpoint.spec;
  EXPECT_EQ(spec.family, "qwen2");
  EXPECT_EQ(spec.headDim, 32);
  EXPECT_DOUBLE_EQ(spec.ropeTheta, 1e6);
  EXPECT_TRUE(spec.attentionBias);
  EXPECT_FALSE(spec.qkNorm);
  EXPECT_FALSE(spec.tieWordEmbeddings);
  EXPECT_EQ(spec.bosTokenId, 509);
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(509));
  EXPECT_EQ(checkpoint.weights->getTensorNames().size(), 51u);
  llvm::StringRef bias = "model.layers.0.self_attn.q_proj.bias";
  EXPECT_FLOAT_EQ(element(checkpoint, bias, 0), -0.01289338804781437f);
  EXPECT_FLOAT_EQ(element(checkpoint, bias, 1), 0.021256431937217712f);
  EXPECT_FLOAT_EQ(element(checkpoint, bias, 255), -0.00340284314006567f);
}

TEST_F(HfReferenceModelsTest, TinyInternVL) {
  Checkpoint checkpoint = load("vlm/models/tiny-internvl");
  ASSERT_TRUE(checkpoint.weights);
  const ModelSpec &spec = checkpoint.spec;
  // The language model is llm_config's Qwen2, its tensors under
  // language_model.; the vision tower is vision_config's.
  EXPECT_EQ(spec.family, "qwen2");
  EXPECT_EQ(spec.hiddenSize, 128);
  EXPECT_EQ(spec.vocabSize, 521);
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::QueryBias, 1)),
            "language_model.model.layers.1.self_attn.q_proj.bias");
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::LmHead)),
            "language_model.lm_head.weight");
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(509, 511));
  ASSERT_TRUE(spec.internVision);
  EXPECT_EQ(spec.internVision->imageSize, 112);
  EXPECT_EQ(spec.internVision->getTokensPerTile(), 16);
  EXPECT_EQ(spec.internVision->maxTiles, 6);
  EXPECT_TRUE(spec.internVision->thumbnail);
  // Its tokenizer config has no template: conversation.py's internvl2_5,
  // ChatML with InternVL's system message.
  EXPECT_THAT(spec.chatTemplate,
              StartsWith("{% if messages[0]['role'] != 'system' "
                         "%}<|im_start|>system\n你是书生·万象"));
  llvm::Expected<TensorInfo> cls = checkpoint.weights->getTensorInfo(
      "vision_model.embeddings.class_embedding");
  ASSERT_TRUE(static_cast<bool>(cls)) << llvm::toString(cls.takeError());
  EXPECT_THAT(cls->shape, ElementsAre(1, 1, 64));
}

TEST_F(HfReferenceModelsTest, TinyMiniCPMV) {
  Checkpoint checkpoint = load("vlm/models/tiny-minicpmv");
  ASSERT_TRUE(checkpoint.weights);
  const ModelSpec &spec = checkpoint.spec;
  // The Qwen2 settings at the top level, the tensors under llm.; the
  // vision tower is vision_config's SigLIP, the resampler query_num's.
  EXPECT_EQ(spec.family, "qwen2");
  EXPECT_EQ(spec.hiddenSize, 256);
  EXPECT_EQ(spec.vocabSize, 528);
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::DownWeight, 1)),
            "llm.model.layers.1.mlp.down_proj.weight");
  EXPECT_FALSE(spec.internVision);
  ASSERT_TRUE(spec.miniCPMVision);
  const MiniCPMVisionSpec &vision = *spec.miniCPMVision;
  EXPECT_EQ(vision.hiddenSize, 64);
  EXPECT_EQ(vision.intermediateSize, 160);
  EXPECT_EQ(vision.positionsPerSide, 20);
  EXPECT_EQ(vision.queryNum, 16);
  EXPECT_EQ(vision.embedDim, 256);
  EXPECT_EQ(vision.getResamplerHeads(), 2);
  EXPECT_EQ(vision.scaleResolution, 112);
  // 8 patches a side, each side rounded up by at most one patch.
  EXPECT_EQ(vision.getMaxPatches(), 81);
  EXPECT_TRUE(vision.useImageId);
}

TEST_F(HfReferenceModelsTest, TinyQwen3) {
  Checkpoint checkpoint = load("models/tiny-qwen3");
  ASSERT_TRUE(checkpoint.weights);
  const ModelSpec &spec = checkpoint.spec;
  EXPECT_EQ(spec.family, "qwen3");
  EXPECT_EQ(spec.headDim, 64) << "explicit, not hidden / heads";
  EXPECT_EQ(spec.rotaryDim, 64);
  EXPECT_TRUE(spec.qkNorm);
  EXPECT_FALSE(spec.attentionBias);
  EXPECT_TRUE(spec.tieWordEmbeddings);
  EXPECT_FALSE(spec.hasTensor(TensorRole::LmHead));
  EXPECT_EQ(checkpoint.weights->getTensorNames().size(), 46u);
  llvm::StringRef norm = "model.layers.2.self_attn.k_norm.weight";
  EXPECT_FLOAT_EQ(element(checkpoint, norm, 5), 0.9488409161567688f);
  EXPECT_FLOAT_EQ(element(checkpoint, norm, 63), 0.8831787109375f);
}

TEST_F(HfReferenceModelsTest, FortuneQwen2InBf16) {
  Checkpoint checkpoint = load("demo/fortune-qwen2");
  ASSERT_TRUE(checkpoint.weights);
  const ModelSpec &spec = checkpoint.spec;
  EXPECT_EQ(spec.family, "qwen2");
  EXPECT_EQ(spec.numLayers, 6);
  EXPECT_EQ(spec.vocabSize, 4096);
  EXPECT_EQ(spec.headDim, 32) << "hidden_size / num_attention_heads";
  EXPECT_TRUE(spec.attentionBias);
  EXPECT_TRUE(spec.tieWordEmbeddings);
  EXPECT_FALSE(spec.hasTensor(TensorRole::LmHead));
  EXPECT_EQ(spec.bosTokenId, 4093);
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(4093));
  EXPECT_THAT(spec.chatTemplate, StartsWith("{% for message in messages %}"));
  EXPECT_THAT(spec.tokenizerJson, StartsWith("{"));
  EXPECT_EQ(checkpoint.weights->getTensorNames().size(), 74u);
  EXPECT_EQ(
      cantFail(checkpoint.weights->getTensorInfo("model.norm.weight")).type,
      WeightType::BF16);

  // BF16 bits 0x4001, 0x3fef, 0xbce5 and 0xbeb4.
  EXPECT_EQ(element(checkpoint, "model.norm.weight", 0), 2.015625f);
  EXPECT_EQ(element(checkpoint, "model.norm.weight", 255), 1.8671875f);
  EXPECT_EQ(element(checkpoint, "model.layers.5.self_attn.v_proj.bias", 3),
            -0.0279541015625f);
  EXPECT_EQ(element(checkpoint, "model.embed_tokens.weight", 4095 * 256 + 1),
            -0.3515625f);
}

} // namespace
