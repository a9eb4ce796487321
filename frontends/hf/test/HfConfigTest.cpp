//===- HfConfigTest.cpp - config.json and companions as a ModelSpec -------===//

#include "frontends/hf/HfConfig.h"

#include "frontends/hf/test/ErrorMessage.h"
#include "frontends/hf/test/SafetensorsWriter.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace llmc::hf;
using namespace llmc::hf::test;
using llmc::plugins::ModelSpec;
using llmc::plugins::RopePairing;
using llmc::plugins::RopeScalingType;
using llmc::plugins::TensorRole;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

llvm::json::Object llamaConfig() {
  return llvm::json::Object{
      {"model_type", "llama"},    {"hidden_size", 64},
      {"intermediate_size", 128}, {"num_hidden_layers", 2},
      {"num_attention_heads", 4}, {"num_key_value_heads", 2},
      {"vocab_size", 100},        {"max_position_embeddings", 256},
      {"rms_norm_eps", 1e-5},     {"rope_theta", 500000.0},
      {"rope_scaling", nullptr},  {"tie_word_embeddings", false},
      {"bos_token_id", 1},        {"eos_token_id", 2},
      {"hidden_act", "silu"},
  };
}

class HfConfigTest : public ::testing::Test {
protected:
  /// Writes `object` as `name` in the checkpoint directory.
  std::string writeJson(llvm::StringRef name, llvm::json::Object object) {
    std::string text;
    llvm::raw_string_ostream(text)
        << llvm::formatv("{0:2}", llvm::json::Value(std::move(object)));
    return writeFile(dir, name, text);
  }
  std::string writeConfig(llvm::json::Object config) {
    return configPath = writeJson("config.json", std::move(config));
  }
  /// Reads a spec that must be valid.
  ModelSpec read() {
    llvm::Expected<ModelSpec> spec = readModelSpec(dir);
    if (!spec) {
      ADD_FAILURE() << llvm::toString(spec.takeError());
      return {};
    }
    return std::move(*spec);
  }
  std::string readError() { return errorMessage(readModelSpec(dir)); }

  std::string dir = makeTestDir();
  std::string configPath;
};

TEST_F(HfConfigTest, ReadsLlama) {
  writeConfig(llamaConfig());
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "llama");
  EXPECT_EQ(spec.source, dir);
  EXPECT_EQ(spec.hiddenSize, 64);
  EXPECT_EQ(spec.intermediateSize, 128);
  EXPECT_EQ(spec.numLayers, 2);
  EXPECT_EQ(spec.numHeads, 4);
  EXPECT_EQ(spec.numKvHeads, 2);
  EXPECT_EQ(spec.headDim, 16) << "hidden_size / num_attention_heads";
  EXPECT_EQ(spec.rotaryDim, 16);
  EXPECT_EQ(spec.ropePairing, RopePairing::Half);
  EXPECT_EQ(spec.vocabSize, 100);
  EXPECT_EQ(spec.maxPositions, 256);
  EXPECT_DOUBLE_EQ(spec.rmsNormEps, 1e-5);
  EXPECT_DOUBLE_EQ(spec.ropeTheta, 500000.0);
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::None);
  EXPECT_FALSE(spec.attentionBias);
  EXPECT_FALSE(spec.qkNorm);
  EXPECT_FALSE(spec.tieWordEmbeddings);
  EXPECT_EQ(spec.hiddenAct, "silu");
  EXPECT_EQ(spec.bosTokenId, 1);
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(2));
  EXPECT_TRUE(spec.chatTemplate.empty());
  EXPECT_TRUE(spec.tokenizerJson.empty());

  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::TokenEmbedding)),
            "model.embed_tokens.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::FinalNorm)),
            "model.norm.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::LmHead)), "lm_head.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::AttentionNorm, 1)),
            "model.layers.1.input_layernorm.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::QueryWeight, 1)),
            "model.layers.1.self_attn.q_proj.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::OutputWeight, 0)),
            "model.layers.0.self_attn.o_proj.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::MlpNorm, 0)),
            "model.layers.0.post_attention_layernorm.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::DownWeight, 1)),
            "model.layers.1.mlp.down_proj.weight");
  EXPECT_FALSE(spec.hasTensor(TensorRole::QueryBias));
  EXPECT_FALSE(spec.hasTensor(TensorRole::QueryNorm));
}

TEST_F(HfConfigTest, LlamaWithBiasesAndTiedEmbeddings) {
  llvm::json::Object config = llamaConfig();
  config["attention_bias"] = true;
  config["tie_word_embeddings"] = true;
  config["hidden_act"] = "gelu_pytorch_tanh";
  config.erase("num_key_value_heads");
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_TRUE(spec.attentionBias);
  EXPECT_TRUE(spec.tieWordEmbeddings);
  EXPECT_FALSE(spec.hasTensor(TensorRole::LmHead));
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::ValueBias, 1)),
            "model.layers.1.self_attn.v_proj.bias");
  EXPECT_EQ(spec.numKvHeads, 4) << "defaults to num_attention_heads";
  EXPECT_EQ(spec.hiddenAct, "gelu_tanh");
}

TEST_F(HfConfigTest, Qwen2AlwaysHasBiases) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "qwen2";
  config["head_dim"] = 32;
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "qwen2");
  EXPECT_TRUE(spec.attentionBias);
  EXPECT_FALSE(spec.qkNorm);
  EXPECT_EQ(spec.headDim, 32) << "an explicit head_dim wins";
  EXPECT_EQ(spec.rotaryDim, 32);
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::QueryBias, 0)),
            "model.layers.0.self_attn.q_proj.bias");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::KeyBias, 0)),
            "model.layers.0.self_attn.k_proj.bias");
}

TEST_F(HfConfigTest, Qwen3HasQkNorms) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "qwen3";
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_TRUE(spec.qkNorm);
  EXPECT_FALSE(spec.attentionBias);
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::QueryNorm, 1)),
            "model.layers.1.self_attn.q_norm.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::KeyNorm, 1)),
            "model.layers.1.self_attn.k_norm.weight");
}

TEST_F(HfConfigTest, Qwen3AttentionBias) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "qwen3";
  config["attention_bias"] = true;
  writeConfig(std::move(config));
  EXPECT_TRUE(read().hasTensor(TensorRole::KeyBias));
}

//===----------------------------------------------------------------------===//
// RoPE scaling
//===----------------------------------------------------------------------===//

TEST_F(HfConfigTest, LinearRopeScaling) {
  llvm::json::Object config = llamaConfig();
  config["rope_scaling"] =
      llvm::json::Object{{"rope_type", "linear"}, {"factor", 4.0}};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::Linear);
  EXPECT_DOUBLE_EQ(spec.ropeScaling.factor, 4.0);
}

TEST_F(HfConfigTest, Llama3RopeScalingUnderLegacyTypeKey) {
  llvm::json::Object config = llamaConfig();
  config["rope_scaling"] =
      llvm::json::Object{{"type", "llama3"},
                         {"factor", 8.0},
                         {"low_freq_factor", 1.0},
                         {"high_freq_factor", 4.0},
                         {"original_max_position_embeddings", 8192}};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::Llama3);
  EXPECT_DOUBLE_EQ(spec.ropeScaling.factor, 8.0);
  EXPECT_DOUBLE_EQ(spec.ropeScaling.lowFreqFactor, 1.0);
  EXPECT_DOUBLE_EQ(spec.ropeScaling.highFreqFactor, 4.0);
  EXPECT_EQ(spec.ropeScaling.originalMaxPositions, 8192);
}

TEST_F(HfConfigTest, DefaultRopeTypeMeansNoScaling) {
  llvm::json::Object config = llamaConfig();
  config["rope_scaling"] = llvm::json::Object{{"rope_type", "default"}};
  writeConfig(std::move(config));
  EXPECT_EQ(read().ropeScaling.type, RopeScalingType::None);
}

TEST_F(HfConfigTest, UnsupportedRopeScaling) {
  llvm::json::Object config = llamaConfig();
  config["rope_scaling"] =
      llvm::json::Object{{"rope_type", "yarn"}, {"factor", 4.0}};
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              AllOf(HasSubstr(configPath), HasSubstr("rope_scaling.rope_type"),
                    HasSubstr("'yarn'")));
}

TEST_F(HfConfigTest, Llama3RopeScalingMissingParameter) {
  llvm::json::Object config = llamaConfig();
  config["rope_scaling"] = llvm::json::Object{
      {"rope_type", "llama3"}, {"factor", 8.0}, {"high_freq_factor", 4.0}};
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr(configPath +
                        ": field 'rope_scaling.low_freq_factor' is missing"));
}

TEST_F(HfConfigTest, RopeScalingNotAnObject) {
  llvm::json::Object config = llamaConfig();
  config["rope_scaling"] = "linear";
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr(configPath + ": field 'rope_scaling' must be an "
                                     "object"));
}

//===----------------------------------------------------------------------===//
// Generation config, chat template and tokenizer
//===----------------------------------------------------------------------===//

TEST_F(HfConfigTest, GenerationConfigOverridesTokenIds) {
  writeConfig(llamaConfig());
  writeJson("generation_config.json",
            llvm::json::Object{{"bos_token_id", 5},
                               {"eos_token_id", llvm::json::Array{2, 7}}});
  ModelSpec spec = read();
  EXPECT_EQ(spec.bosTokenId, 5);
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(2, 7));
}

TEST_F(HfConfigTest, GenerationConfigWithMistypedEos) {
  writeConfig(llamaConfig());
  std::string file = writeJson("generation_config.json",
                               llvm::json::Object{{"eos_token_id", "</s>"}});
  EXPECT_THAT(readError(),
              HasSubstr(file + ": field 'eos_token_id' must be an integer or "
                               "a list of integers"));
}

TEST_F(HfConfigTest, KeepsChatTemplateAndTokenizerText) {
  writeConfig(llamaConfig());
  writeJson("tokenizer_config.json",
            llvm::json::Object{{"chat_template", "{{ messages }}"}});
  std::string tokenizer = "{\n  \"model\":  {\"type\": \"BPE\"}\n}\n";
  writeFile(dir, "tokenizer.json", tokenizer);
  ModelSpec spec = read();
  EXPECT_EQ(spec.chatTemplate, "{{ messages }}");
  EXPECT_EQ(spec.tokenizerJson, tokenizer);
}

TEST_F(HfConfigTest, PrefersChatTemplateFile) {
  writeConfig(llamaConfig());
  writeJson("tokenizer_config.json",
            llvm::json::Object{{"chat_template", "old"}});
  writeFile(dir, "chat_template.jinja", "{% for m in messages %}{% endfor %}");
  EXPECT_EQ(read().chatTemplate, "{% for m in messages %}{% endfor %}");
}

TEST_F(HfConfigTest, PicksDefaultOfNamedChatTemplates) {
  writeConfig(llamaConfig());
  writeJson(
      "tokenizer_config.json",
      llvm::json::Object{
          {"chat_template",
           llvm::json::Array{
               llvm::json::Object{{"name", "tool_use"}, {"template", "t"}},
               llvm::json::Object{{"name", "default"}, {"template", "d"}}}}});
  EXPECT_EQ(read().chatTemplate, "d");
}

//===----------------------------------------------------------------------===//
// Bad configs: each error names the file and the field.
//===----------------------------------------------------------------------===//

TEST_F(HfConfigTest, MissingConfig) {
  EXPECT_THAT(readError(),
              AllOf(HasSubstr(dir + "/config.json"), HasSubstr("cannot read")));
}

TEST_F(HfConfigTest, MalformedConfig) {
  std::string file = writeFile(dir, "config.json", "{\"model_type\": ");
  EXPECT_THAT(readError(), AllOf(HasSubstr(file), HasSubstr("not valid JSON")));
}

TEST_F(HfConfigTest, MissingRequiredField) {
  llvm::json::Object config = llamaConfig();
  config.erase("hidden_size");
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr(configPath + ": field 'hidden_size' is missing"));
}

TEST_F(HfConfigTest, MistypedField) {
  llvm::json::Object config = llamaConfig();
  config["num_hidden_layers"] = "2";
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr(configPath + ": field 'num_hidden_layers' must be an "
                                     "integer, got \"2\""));
}

TEST_F(HfConfigTest, MistypedOptionalField) {
  llvm::json::Object config = llamaConfig();
  config["tie_word_embeddings"] = 1;
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr(configPath + ": field 'tie_word_embeddings' must be "
                                     "true or false"));
}

TEST_F(HfConfigTest, MissingModelType) {
  llvm::json::Object config = llamaConfig();
  config.erase("model_type");
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr(configPath + ": field 'model_type' is missing"));
}

TEST_F(HfConfigTest, UnknownModelType) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "falcon";
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), AllOf(HasSubstr(configPath + ": field 'model_type'"),
                                 HasSubstr("'falcon' is not supported (llmc "
                                           "reads qwen2, qwen3, llama, "
                                           "mistral, phi3, internlm2, gemma2, "
                                           "gemma3_text, internvl_chat, "
                                           "minicpmv and gemma3)")));
}

TEST_F(HfConfigTest, UnsupportedActivation) {
  llvm::json::Object config = llamaConfig();
  config["hidden_act"] = "mish";
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), AllOf(HasSubstr(configPath + ": field 'hidden_act'"),
                                 HasSubstr("'mish'")));
}

TEST_F(HfConfigTest, MlpBiasUnsupported) {
  llvm::json::Object config = llamaConfig();
  config["mlp_bias"] = true;
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), HasSubstr(configPath + ": field 'mlp_bias'"));
}

/// Phi-3.5: fused projections, a window, LongRoPE on part of each head.
TEST_F(HfConfigTest, Phi3LongRope) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "phi3";
  config["max_position_embeddings"] = 256;
  config["original_max_position_embeddings"] = 128;
  config["partial_rotary_factor"] = 0.5;
  config["sliding_window"] = 48;
  config["rope_scaling"] =
      llvm::json::Object{{"type", "longrope"},
                         {"short_factor", llvm::json::Array{1.0, 2.0, 3.0, 4.0}},
                         {"long_factor", llvm::json::Array{5.0, 6.0, 7.0, 8.0}}};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "phi3");
  EXPECT_EQ(spec.rotaryDim, 8) << "half of head_dim 16";
  EXPECT_THAT(spec.layerWindows, ElementsAre(48, 48));
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::LongRope);
  EXPECT_THAT(spec.ropeScaling.frequencyFactors, ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(spec.ropeScaling.longFrequencyFactors, ElementsAre(5, 6, 7, 8));
  EXPECT_EQ(spec.ropeScaling.originalMaxPositions, 128);
  // transformers: sqrt(1 + ln(256 / 128) / ln(128)).
  EXPECT_DOUBLE_EQ(spec.ropeScaling.attentionFactor,
                   std::sqrt(1.0 + std::log(2.0) / std::log(128.0)));
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::KeyWeight, 1)),
            "model.layers.1.self_attn.qkv_proj.weight:k");
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::UpWeight, 0)),
            "model.layers.0.mlp.gate_up_proj.weight:up");
}

TEST_F(HfConfigTest, LongRopeNeedsOnePairOfFactorsPerPair) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "phi3";
  config["original_max_position_embeddings"] = 128;
  config["rope_scaling"] =
      llvm::json::Object{{"rope_type", "longrope"},
                         {"short_factor", llvm::json::Array{1.0, 2.0}},
                         {"long_factor", llvm::json::Array{"x"}}};
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr("field 'rope_scaling.long_factor' must be a list of "
                        "numbers"));
}

TEST_F(HfConfigTest, InternLM2) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "internlm2";
  config["bias"] = false;
  config["rope_scaling"] =
      llvm::json::Object{{"type", "dynamic"}, {"factor", 2.0}};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "internlm2");
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::None)
      << "dynamic NTK scaling changes nothing within the positions";
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::QueryWeight, 0)),
            "model.layers.0.attention.wqkv.weight:q");
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::DownWeight, 0)),
            "model.layers.0.feed_forward.w2.weight");
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::LmHead)),
            "output.weight");
}

TEST_F(HfConfigTest, InternLM2BiasRefused) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "internlm2";
  config["bias"] = true;
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), HasSubstr(configPath + ": field 'bias' is not "
                                                  "supported for internlm2"));
}

//===----------------------------------------------------------------------===//
// Sliding windows
//===----------------------------------------------------------------------===//

TEST_F(HfConfigTest, MistralSlidingWindow) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "mistral";
  config["sliding_window"] = 32;
  config["attention_bias"] = true;
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "mistral");
  EXPECT_THAT(spec.layerWindows, ElementsAre(32, 32));
  EXPECT_FALSE(spec.attentionBias) << "Mistral has no Q/K/V biases";
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::GateWeight, 1)),
            "model.layers.1.mlp.gate_proj.weight");
}

/// Mistral v0.2 on: null; a window as long as the context changes nothing.
TEST_F(HfConfigTest, MistralWithoutAWindow) {
  for (std::optional<int64_t> window : {std::optional<int64_t>(),
                                        std::optional<int64_t>(256),
                                        std::optional<int64_t>(4096)}) {
    llvm::json::Object config = llamaConfig();
    config["model_type"] = "mistral";
    config["sliding_window"] =
        window ? llvm::json::Value(*window) : llvm::json::Value(nullptr);
    writeConfig(std::move(config));
    EXPECT_TRUE(read().layerWindows.empty()) << window.value_or(-1);
  }
}

/// A Gemma config with only the keys every one has; the rest are the
/// transformers defaults.
llvm::json::Object gemmaConfig(llvm::StringRef modelType, int64_t layers) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = modelType;
  config["num_hidden_layers"] = layers;
  config["max_position_embeddings"] = 8192;
  config.erase("tie_word_embeddings");
  config.erase("hidden_act");
  return config;
}

TEST_F(HfConfigTest, Gemma2Defaults) {
  writeConfig(gemmaConfig("gemma2", 4));
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "gemma2");
  EXPECT_TRUE(spec.tieWordEmbeddings);
  EXPECT_EQ(spec.hiddenAct, "gelu_tanh");
  EXPECT_EQ(spec.embeddingMultiplier, 8.0);
  EXPECT_EQ(spec.normWeightOffset, 1.0);
  EXPECT_DOUBLE_EQ(spec.attentionScale, 1.0 / 16) << "query_pre_attn_scalar 256";
  EXPECT_EQ(spec.attentionSoftcap, 50.0);
  EXPECT_EQ(spec.finalLogitSoftcap, 30.0);
  EXPECT_EQ(spec.slidingRopeTheta, 0.0);
  // sliding_window 4096, every other layer from the first.
  EXPECT_THAT(spec.layerWindows, ElementsAre(4096, 0, 4096, 0));
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::MlpNorm, 1)),
            "model.layers.1.pre_feedforward_layernorm.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::PostAttentionNorm, 1)),
            "model.layers.1.post_attention_layernorm.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::PostMlpNorm, 1)),
            "model.layers.1.post_feedforward_layernorm.weight");
}

TEST_F(HfConfigTest, Gemma2ExplicitKeys) {
  llvm::json::Object config = gemmaConfig("gemma2", 3);
  config["query_pre_attn_scalar"] = 144;
  config["attn_logit_softcapping"] = nullptr;
  config["final_logit_softcapping"] = 20.0;
  config["hidden_activation"] = "gelu_pytorch_tanh";
  config["hidden_act"] = "silu";
  config["sliding_window"] = 16;
  config["layer_types"] = llvm::json::Array{
      "full_attention", "sliding_attention", "full_attention"};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.hiddenAct, "gelu_tanh") << "hidden_activation wins";
  EXPECT_DOUBLE_EQ(spec.attentionScale, 1.0 / 12);
  EXPECT_EQ(spec.attentionSoftcap, 0.0) << "null turns the cap off";
  EXPECT_EQ(spec.finalLogitSoftcap, 20.0);
  EXPECT_THAT(spec.layerWindows, ElementsAre(0, 16, 0));
}

TEST_F(HfConfigTest, Gemma3SlidingPatternAndLocalBase) {
  llvm::json::Object config = gemmaConfig("gemma3_text", 7);
  config["sliding_window"] = 512;
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "gemma3");
  EXPECT_TRUE(spec.qkNorm);
  EXPECT_EQ(spec.attentionSoftcap, 0.0);
  EXPECT_EQ(spec.finalLogitSoftcap, 0.0);
  EXPECT_EQ(spec.slidingRopeTheta, 10000.0);
  // Five sliding layers to each global one.
  EXPECT_THAT(spec.layerWindows, ElementsAre(512, 512, 512, 512, 512, 0, 512));
}

/// Gemma3ForConditionalGeneration as Google ships it: the text_config
/// states the sizes, Gemma3TextConfig's defaults the rest.
TEST_F(HfConfigTest, Gemma3VisionLanguageCheckpointReadsItsLanguageModel) {
  llvm::json::Object text{{"model_type", "gemma3_text"},
                          {"hidden_size", 2560},
                          {"intermediate_size", 10240},
                          {"num_hidden_layers", 34},
                          {"sliding_window", 1024},
                          {"rope_scaling", llvm::json::Object{
                                               {"rope_type", "linear"},
                                               {"factor", 8.0}}}};
  writeConfig(llvm::json::Object{
      {"model_type", "gemma3"},
      {"text_config", std::move(text)},
      {"vision_config",
       llvm::json::Object{{"model_type", "siglip_vision_model"}}}});
  ModelSpec spec = read();
  EXPECT_EQ(spec.family, "gemma3");
  EXPECT_EQ(spec.hiddenSize, 2560);
  EXPECT_EQ(spec.numLayers, 34);
  EXPECT_EQ(spec.numHeads, 8);
  EXPECT_EQ(spec.numKvHeads, 4);
  EXPECT_EQ(spec.headDim, 256);
  EXPECT_EQ(spec.vocabSize, 262208);
  EXPECT_EQ(spec.ropeTheta, 1000000.0);
  EXPECT_EQ(spec.slidingRopeTheta, 10000.0);
  EXPECT_TRUE(spec.tieWordEmbeddings);
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::TokenEmbedding)),
            "language_model.model.embed_tokens.weight");
  EXPECT_EQ(cantFail(spec.tensorName(TensorRole::QueryWeight, 3)),
            "language_model.model.layers.3.self_attn.q_proj.weight");

  writeConfig(llvm::json::Object{{"model_type", "gemma3"}});
  EXPECT_THAT(readError(), HasSubstr("a gemma3 config needs 'text_config'"));
  writeConfig(llvm::json::Object{
      {"model_type", "gemma3"},
      {"text_config", llvm::json::Object{{"model_type", "gemma3_text"},
                                         {"num_attention_heads", "many"}}}});
  EXPECT_THAT(readError(), HasSubstr("field 'text_config.num_attention_heads'"));
}

TEST_F(HfConfigTest, GemmaRefusesBadKeys) {
  for (auto [key, value] :
       {std::pair<const char *, double>{"sliding_window_pattern", 0},
        {"query_pre_attn_scalar", -1}, {"attn_logit_softcapping", -5}}) {
    llvm::json::Object config = gemmaConfig("gemma3_text", 2);
    config[key] = value;
    writeConfig(std::move(config));
    EXPECT_THAT(readError(), HasSubstr("field '" + std::string(key) + "'"))
        << key;
  }
}

TEST_F(HfConfigTest, NegativeSlidingWindow) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "mistral";
  config["sliding_window"] = -1;
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), HasSubstr(configPath + ": field 'sliding_window' "
                                                  "is negative"));
}

/// Llama has no window: the keys mean nothing there, as in transformers.
TEST_F(HfConfigTest, LlamaIgnoresWindowKeys) {
  llvm::json::Object config = llamaConfig();
  config["sliding_window"] = 16;
  config["use_sliding_window"] = true;
  writeConfig(std::move(config));
  EXPECT_TRUE(read().layerWindows.empty());
}

/// Qwen2's window is gated and starts at max_window_layers; off, its
/// sliding_window means nothing.
TEST_F(HfConfigTest, QwenWindowOffByDefault) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "qwen2";
  config["sliding_window"] = 16;
  config["use_sliding_window"] = false;
  writeConfig(std::move(config));
  EXPECT_TRUE(read().layerWindows.empty());
}

/// Qwen2's window slides from layer max_window_layers on.
TEST_F(HfConfigTest, QwenWindowFromMaxWindowLayers) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "qwen2";
  config["use_sliding_window"] = true;
  config["sliding_window"] = 16;
  config["max_window_layers"] = 1;
  writeConfig(std::move(config));
  EXPECT_THAT(read().layerWindows, ElementsAre(0, 16));
}

/// Newer configs list each layer's kind; the list decides.
TEST_F(HfConfigTest, QwenLayerTypes) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "qwen2";
  config["use_sliding_window"] = true;
  config["sliding_window"] = 16;
  config["max_window_layers"] = 1;
  config["layer_types"] =
      llvm::json::Array{"sliding_attention", "full_attention"};
  writeConfig(std::move(config));
  EXPECT_THAT(read().layerWindows, ElementsAre(16, 0));
  config = llamaConfig();
  config["model_type"] = "qwen2";
  config["use_sliding_window"] = true;
  config["sliding_window"] = 16;
  config["layer_types"] = llvm::json::Array{"chunked_attention", "x"};
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), HasSubstr("field 'layer_types' holds "
                                     "'chunked_attention'"));
}

/// A layer count no model has sizes nothing before validate refuses it.
TEST_F(HfConfigTest, HugeLayerCountWithAWindow) {
  llvm::json::Object config = llamaConfig();
  config["model_type"] = "mistral";
  config["sliding_window"] = 16;
  config["num_hidden_layers"] = int64_t(1) << 40;
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), HasSubstr("num_hidden_layers (1099511627776) "
                                     "exceeds llmc's limit of 4096"));
}

TEST_F(HfConfigTest, InconsistentHeadCounts) {
  llvm::json::Object config = llamaConfig();
  config["num_key_value_heads"] = 3;
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              AllOf(HasSubstr(dir), HasSubstr("num_key_value_heads")));
}

TEST_F(HfConfigTest, TransformersV5RopeParameters) {
  // transformers v5 states theta and scaling in rope_parameters.
  llvm::json::Object config = llamaConfig();
  config.erase("rope_theta");
  config.erase("rope_scaling");
  config["rope_parameters"] =
      llvm::json::Object{{"rope_type", "llama3"},
                         {"rope_theta", 500000.0},
                         {"factor", 8.0},
                         {"low_freq_factor", 1.0},
                         {"high_freq_factor", 4.0},
                         {"original_max_position_embeddings", 8192}};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.ropeTheta, 500000.0);
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::Llama3);
  EXPECT_DOUBLE_EQ(spec.ropeScaling.factor, 8.0);
  EXPECT_EQ(spec.ropeScaling.originalMaxPositions, 8192);
}

TEST_F(HfConfigTest, TransformersV5RopeParametersWin) {
  // A v4 key left beside rope_parameters does not override it.
  llvm::json::Object config = llamaConfig();
  config["rope_parameters"] =
      llvm::json::Object{{"rope_type", "default"}, {"rope_theta", 1e6}};
  config["rope_scaling"] =
      llvm::json::Object{{"rope_type", "linear"}, {"factor", 4.0}};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.ropeTheta, 1e6);
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::None);
}

TEST_F(HfConfigTest, TransformersV5RopeParametersPerLayerType) {
  // Gemma 3 under v5: one object per layer type.
  llvm::json::Object config = gemmaConfig("gemma3_text", 7);
  config["sliding_window"] = 512;
  config["rope_parameters"] = llvm::json::Object{
      {"full_attention",
       llvm::json::Object{{"rope_type", "linear"},
                          {"rope_theta", 1e6},
                          {"factor", 8.0}}},
      {"sliding_attention",
       llvm::json::Object{{"rope_type", "default"}, {"rope_theta", 1e4}}}};
  writeConfig(std::move(config));
  ModelSpec spec = read();
  EXPECT_EQ(spec.ropeTheta, 1e6);
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::Linear);
  EXPECT_DOUBLE_EQ(spec.ropeScaling.factor, 8.0);
  EXPECT_EQ(spec.slidingRopeTheta, 1e4);
}

TEST_F(HfConfigTest, TransformersV5RopeParametersErrors) {
  llvm::json::Object config = llamaConfig();
  config["rope_parameters"] = llvm::json::Object{{"rope_type", "default"}};
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr(configPath +
                        ": field 'rope_parameters.rope_theta' is missing"));

  config = llamaConfig();
  config["rope_parameters"] = 10000.0;
  writeConfig(std::move(config));
  EXPECT_THAT(readError(), HasSubstr(configPath + ": field 'rope_parameters' "
                                                  "must be an object"));

  config = gemmaConfig("gemma3_text", 2);
  config["rope_parameters"] = llvm::json::Object{
      {"full_attention",
       llvm::json::Object{{"rope_type", "default"}, {"rope_theta", 1e6}}},
      {"sliding_attention",
       llvm::json::Object{{"rope_type", "linear"},
                          {"rope_theta", 1e4},
                          {"factor", 2.0}}}};
  writeConfig(std::move(config));
  EXPECT_THAT(readError(),
              HasSubstr("field 'rope_parameters.sliding_attention.rope_type' "
                        "must be default"));
}

} // namespace
