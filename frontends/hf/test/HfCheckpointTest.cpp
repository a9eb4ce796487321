//===- HfCheckpointTest.cpp - Hugging Face checkpoints, built and bundled -===//

#include "frontends/hf/HfCheckpoint.h"

#include "frontends/hf/Safetensors.h"
#include "frontends/hf/test/ErrorMessage.h"
#include "frontends/hf/test/SafetensorsWriter.h"

#include "llvm/ADT/STLExtras.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc::hf;
using namespace llmc::hf::test;
using llmc::plugins::Checkpoint;
using llmc::plugins::ModelSpec;
using llmc::plugins::TensorRole;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

constexpr llvm::StringLiteral kConfig = R"({
  "model_type": "qwen2", "hidden_size": 8, "intermediate_size": 16,
  "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
  "head_dim": 4, "vocab_size": 10, "max_position_embeddings": 32,
  "tie_word_embeddings": false
})";

/// A tiny Qwen2 checkpoint written tensor by tensor, so each test can break
/// exactly one thing.
class HfCheckpointTest : public ::testing::Test {
protected:
  void SetUp() override {
    writeFile(dir, "config.json", kConfig);
    spec.hiddenSize = 8;
    spec.intermediateSize = 16;
    spec.numLayers = 2;
    spec.numHeads = 2;
    spec.numKvHeads = 1;
    spec.headDim = 4;
    spec.vocabSize = 10;
  }

  /// Every tensor a valid checkpoint of `kConfig` holds, zero-filled F32.
  std::vector<TestTensor> allTensors() {
    const std::pair<TensorRole, const char *> model[] = {
        {TensorRole::TokenEmbedding, "model.embed_tokens.weight"},
        {TensorRole::FinalNorm, "model.norm.weight"},
        {TensorRole::LmHead, "lm_head.weight"}};
    const std::pair<TensorRole, const char *> layer[] = {
        {TensorRole::AttentionNorm, "input_layernorm.weight"},
        {TensorRole::QueryWeight, "self_attn.q_proj.weight"},
        {TensorRole::KeyWeight, "self_attn.k_proj.weight"},
        {TensorRole::ValueWeight, "self_attn.v_proj.weight"},
        {TensorRole::QueryBias, "self_attn.q_proj.bias"},
        {TensorRole::KeyBias, "self_attn.k_proj.bias"},
        {TensorRole::ValueBias, "self_attn.v_proj.bias"},
        {TensorRole::OutputWeight, "self_attn.o_proj.weight"},
        {TensorRole::MlpNorm, "post_attention_layernorm.weight"},
        {TensorRole::GateWeight, "mlp.gate_proj.weight"},
        {TensorRole::UpWeight, "mlp.up_proj.weight"},
        {TensorRole::DownWeight, "mlp.down_proj.weight"}};
    std::vector<TestTensor> tensors;
    auto add = [&](TensorRole role, const std::string &name) {
      llvm::SmallVector<int64_t> shape = getExpectedShape(spec, role);
      tensors.push_back(makeZeros(name, "F32", {shape.begin(), shape.end()}));
    };
    for (auto [role, name] : model)
      add(role, name);
    for (int i = 0; i < 2; ++i)
      for (auto [role, name] : layer)
        add(role, "model.layers." + std::to_string(i) + "." + name);
    return tensors;
  }

  std::string writeWeights(llvm::ArrayRef<TestTensor> tensors) {
    return writeFile(dir, "model.safetensors", serializeSafetensors(tensors));
  }

  /// Replaces tensor `name` by `replacement`.
  static void replace(std::vector<TestTensor> &tensors, llvm::StringRef name,
                      TestTensor replacement) {
    for (TestTensor &tensor : tensors)
      if (tensor.name == name)
        tensor = std::move(replacement);
  }

  std::string dir = makeTestDir();
  /// What kConfig says, written out independently of the code under test.
  ModelSpec spec;
};

TEST_F(HfCheckpointTest, ExpectedShapes) {
  spec.numHeads = 4;
  EXPECT_THAT(getExpectedShape(spec, TensorRole::TokenEmbedding),
              ElementsAre(10, 8));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::LmHead), ElementsAre(10, 8));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::QueryWeight),
              ElementsAre(16, 8));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::KeyWeight), ElementsAre(4, 8));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::ValueBias), ElementsAre(4));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::OutputWeight),
              ElementsAre(8, 16));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::QueryNorm), ElementsAre(4));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::MlpNorm), ElementsAre(8));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::UpWeight), ElementsAre(16, 8));
  EXPECT_THAT(getExpectedShape(spec, TensorRole::DownWeight),
              ElementsAre(8, 16));
}

TEST_F(HfCheckpointTest, LoadsSingleFile) {
  writeWeights(allTensors());
  llvm::Expected<Checkpoint> checkpoint = loadCheckpoint(dir);
  ASSERT_TRUE(static_cast<bool>(checkpoint))
      << llvm::toString(checkpoint.takeError());
  EXPECT_EQ(checkpoint->spec.family, "qwen2");
  EXPECT_EQ(checkpoint->weights->getTensorNames().size(), 27u);
}

TEST_F(HfCheckpointTest, LoadsShardedCheckpoint) {
  std::vector<TestTensor> tensors = allTensors();
  size_t half = tensors.size() / 2;
  std::string index = "{\"weight_map\": {";
  for (size_t i = 0; i < tensors.size(); ++i)
    index += (i ? ", \"" : "\"") + tensors[i].name + "\": \"model-0000" +
             (i < half ? "1" : "2") + "-of-00002.safetensors\"";
  index += "}}";
  writeFile(dir, "model.safetensors.index.json", index);
  writeFile(dir, "model-00001-of-00002.safetensors",
            serializeSafetensors(llvm::ArrayRef(tensors).take_front(half)));
  std::string second =
      writeFile(dir, "model-00002-of-00002.safetensors",
                serializeSafetensors(llvm::ArrayRef(tensors).drop_front(half)));

  llvm::Expected<Checkpoint> checkpoint = loadCheckpoint(dir);
  ASSERT_TRUE(static_cast<bool>(checkpoint))
      << llvm::toString(checkpoint.takeError());
  EXPECT_EQ(checkpoint->weights->getTensorNames().size(), tensors.size());
  auto *weights = static_cast<SafetensorsSource *>(checkpoint->weights.get());
  EXPECT_EQ(weights->getTensorFile(tensors.back().name), second);
}

TEST_F(HfCheckpointTest, NoWeightFiles) {
  EXPECT_THAT(errorMessage(loadCheckpoint(dir)),
              HasSubstr(dir + ": no model.safetensors or "
                              "model.safetensors.index.json"));
}

TEST_F(HfCheckpointTest, MissingTensor) {
  std::vector<TestTensor> tensors = allTensors();
  llvm::erase_if(tensors, [](const TestTensor &tensor) {
    return tensor.name == "model.layers.1.mlp.up_proj.weight";
  });
  writeWeights(tensors);
  EXPECT_THAT(errorMessage(loadCheckpoint(dir)),
              AllOf(HasSubstr(dir + ": tensor "
                                    "'model.layers.1.mlp.up_proj.weight'"),
                    HasSubstr("missing")));
}

TEST_F(HfCheckpointTest, MissingLmHeadOfUntiedModel) {
  std::vector<TestTensor> tensors = allTensors();
  llvm::erase_if(tensors, [](const TestTensor &tensor) {
    return tensor.name == "lm_head.weight";
  });
  writeWeights(tensors);
  EXPECT_THAT(
      errorMessage(loadCheckpoint(dir)),
      HasSubstr(dir + ": tensor 'lm_head.weight' (lm_head) is missing"));
}

TEST_F(HfCheckpointTest, ShapeMismatch) {
  std::vector<TestTensor> tensors = allTensors();
  replace(tensors, "model.layers.0.self_attn.q_proj.weight",
          makeZeros("model.layers.0.self_attn.q_proj.weight", "F32", {8, 7}));
  std::string file = writeWeights(tensors);
  EXPECT_THAT(errorMessage(loadCheckpoint(dir)),
              HasSubstr(file + ": tensor "
                               "'model.layers.0.self_attn.q_proj.weight' "
                               "(query_weight) has shape [8, 7], expected "
                               "[8, 8]"));
}

TEST_F(HfCheckpointTest, NonFloatType) {
  std::vector<TestTensor> tensors = allTensors();
  replace(tensors, "model.norm.weight",
          makeZeros("model.norm.weight", "I8", {8}));
  std::string file = writeWeights(tensors);
  EXPECT_THAT(errorMessage(loadCheckpoint(dir)),
              HasSubstr(file + ": tensor 'model.norm.weight' (final_norm) has "
                               "type i8, expected f32, f16 or bf16"));
}

TEST_F(HfCheckpointTest, BadConfigStopsBeforeWeights) {
  writeFile(dir, "config.json", R"({"model_type": "gpt2"})");
  EXPECT_THAT(
      errorMessage(loadCheckpoint(dir)),
      AllOf(HasSubstr("config.json: field 'model_type'"), HasSubstr("'gpt2'")));
}

} // namespace
