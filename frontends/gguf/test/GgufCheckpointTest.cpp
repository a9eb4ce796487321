//===- GgufCheckpointTest.cpp - metadata mapping and tensor checks --------===//

#include "frontends/gguf/GgufCheckpoint.h"

#include "frontends/gguf/GgufSpec.h"
#include "frontends/gguf/test/ErrorMessage.h"
#include "frontends/gguf/test/GgufBuilder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace llmc::gguf;
using namespace llmc::gguf::test;
using llmc::plugins::Checkpoint;
using llmc::plugins::ModelSpec;
using llmc::plugins::RopePairing;
using llmc::plugins::RopeScalingType;
using llmc::plugins::TensorRole;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

/// Hyperparameters of a tiny model: hidden 8, 2 layers, 2 heads of 4, one
/// KV head, FFN 16, vocabulary 4 (or another hidden and FFN size).
GgufBuilder tinyMetadata(llvm::StringRef arch, uint32_t hidden = 8,
                         uint32_t ffn = 16, uint32_t layers = 2) {
  std::string prefix = arch.str() + ".";
  GgufBuilder builder;
  builder.addString("general.architecture", arch)
      .addU32(prefix + "block_count", layers)
      .addU32(prefix + "embedding_length", hidden)
      .addU32(prefix + "feed_forward_length", ffn)
      .addU32(prefix + "attention.head_count", 2)
      .addU32(prefix + "attention.head_count_kv", 1)
      .addU32(prefix + "context_length", 64)
      .addF32(prefix + "attention.layer_norm_rms_epsilon", 1e-5f)
      .addString("tokenizer.ggml.model", "gpt2")
      .addString("tokenizer.ggml.pre", "qwen2")
      .addStrings("tokenizer.ggml.tokens", {"a", "b", "ab", "<|end|>"})
      .addI32s("tokenizer.ggml.token_type", {1, 1, 1, 3})
      .addStrings("tokenizer.ggml.merges", {"a b"})
      .addU32("tokenizer.ggml.eos_token_id", 3);
  return builder;
}

/// Adds every tensor of a tiny llama (ne in ggml order: [in, out]).
GgufBuilder &addLlamaTensors(GgufBuilder &builder, bool withOutput = true) {
  auto add = [&](const std::string &name, std::vector<uint64_t> ne) {
    uint64_t count = 1;
    for (uint64_t dim : ne)
      count *= dim;
    builder.addF32Tensor(name, ne, std::vector<float>(count, 0.5f));
  };
  add("token_embd.weight", {8, 4});
  add("output_norm.weight", {8});
  if (withOutput)
    add("output.weight", {8, 4});
  for (int layer = 0; layer < 2; ++layer) {
    std::string blk = "blk." + std::to_string(layer) + ".";
    add(blk + "attn_norm.weight", {8});
    add(blk + "attn_q.weight", {8, 8});
    add(blk + "attn_k.weight", {8, 4});
    add(blk + "attn_v.weight", {8, 4});
    add(blk + "attn_output.weight", {8, 8});
    add(blk + "ffn_norm.weight", {8});
    add(blk + "ffn_gate.weight", {8, 16});
    add(blk + "ffn_up.weight", {8, 16});
    add(blk + "ffn_down.weight", {16, 8});
  }
  return builder;
}

llvm::Expected<ModelSpec> readSpec(const std::string &bytes) {
  llvm::Expected<std::unique_ptr<GgufFile>> file = GgufFile::parse(
      "spec.gguf", llvm::MemoryBuffer::getMemBufferCopy(bytes, "spec.gguf"));
  if (!file)
    return file.takeError();
  return readModelSpec(**file);
}

TEST(GgufCheckpointTest, MapsLlamaMetadataWithDefaults) {
  GgufBuilder builder = tinyMetadata("llama");
  builder.addU32("tokenizer.ggml.eot_token_id", 2)
      .addString("tokenizer.chat_template", "{{ messages }}")
      .addU32("tokenizer.ggml.bos_token_id", 0);
  std::string path =
      writeTempFile("llama.gguf", addLlamaTensors(builder, false).build());
  EXPECT_TRUE(isGgufFile(path));
  llvm::Expected<Checkpoint> checkpoint = loadCheckpoint(path);
  ASSERT_TRUE(static_cast<bool>(checkpoint))
      << llvm::toString(checkpoint.takeError());
  const ModelSpec &spec = checkpoint->spec;
  EXPECT_EQ(spec.family, "llama");
  EXPECT_EQ(spec.headDim, 4) << "embedding_length / head_count";
  EXPECT_EQ(spec.rotaryDim, 4);
  EXPECT_EQ(spec.vocabSize, 4) << "the token count";
  EXPECT_EQ(spec.ropeTheta, 10000.0);
  EXPECT_EQ(spec.rmsNormEps, static_cast<double>(1e-5f));
  EXPECT_EQ(spec.ropePairing, RopePairing::Interleaved);
  EXPECT_EQ(spec.ropeScaling.type, RopeScalingType::None);
  EXPECT_TRUE(spec.tieWordEmbeddings) << "no output.weight";
  EXPECT_FALSE(spec.attentionBias);
  EXPECT_EQ(spec.bosTokenId, 0);
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(3, 2));
  EXPECT_EQ(spec.chatTemplate, "{{ messages }}");
  EXPECT_THAT(spec.tokenizerJson, StartsWith("{"));
  EXPECT_EQ(checkpoint->weights->getTensorNames().size(), 20u);
}

TEST(GgufCheckpointTest, ReadsOptionalHyperparameters) {
  GgufBuilder builder = tinyMetadata("qwen3");
  builder.addU32("qwen3.attention.key_length", 8)
      .addU32("qwen3.attention.value_length", 8)
      .addU32("qwen3.rope.dimension_count", 4)
      .addF32("qwen3.rope.freq_base", 1e6f)
      .addU32("qwen3.vocab_size", 6)
      .addString("qwen3.rope.scaling.type", "linear")
      .addF32("qwen3.rope.scaling.factor", 4.0f);
  llvm::Expected<ModelSpec> spec = readSpec(builder.build());
  ASSERT_TRUE(static_cast<bool>(spec)) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->headDim, 8);
  EXPECT_EQ(spec->rotaryDim, 4);
  EXPECT_EQ(spec->vocabSize, 6);
  EXPECT_EQ(spec->ropeTheta, 1e6);
  EXPECT_EQ(spec->ropeScaling.type, RopeScalingType::Linear);
  EXPECT_EQ(spec->ropeScaling.factor, 4.0);
  EXPECT_EQ(spec->ropePairing, RopePairing::Half);
  EXPECT_TRUE(spec->qkNorm);
  EXPECT_EQ(llvm::cantFail(spec->tensorName(TensorRole::KeyNorm, 1)),
            "blk.1.attn_k_norm.weight");
  EXPECT_FALSE(spec->hasTensor(TensorRole::QueryBias));
}

/// Llama 3.1 in GGUF: its rope scaling is the rope_freqs tensor.
TEST(GgufCheckpointTest, ReadsPerFrequencyRopeFactors) {
  llvm::Expected<ModelSpec> spec = readSpec(
      tinyMetadata("llama")
          .addF32Tensor("rope_freqs.weight", {2}, {1.0f, 8.0f})
          .build());
  ASSERT_TRUE(static_cast<bool>(spec)) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->ropeScaling.type, RopeScalingType::PerFrequency);
  EXPECT_THAT(spec->ropeScaling.frequencyFactors, ElementsAre(1.0, 8.0));
}

/// Phi-3.5 in GGUF: LongRoPE as two factor tensors and metadata, and the
/// window llama.cpp reads (and then does not apply).
TEST(GgufCheckpointTest, ReadsPhi3LongRopeAndWindow) {
  llvm::Expected<ModelSpec> spec = readSpec(
      tinyMetadata("phi3")
          .addU32("phi3.rope.scaling.original_context_length", 32)
          .addF32("phi3.rope.scaling.attn_factor", 1.25f)
          .addU32("phi3.attention.sliding_window", 16)
          .addF32Tensor("rope_factors_short.weight", {2}, {1.0f, 2.0f})
          .addF32Tensor("rope_factors_long.weight", {2}, {3.0f, 4.0f})
          .build());
  ASSERT_TRUE(static_cast<bool>(spec)) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->family, "phi3");
  EXPECT_EQ(spec->ropePairing, RopePairing::Half);
  EXPECT_THAT(spec->layerWindows, ElementsAre(16, 16));
  EXPECT_EQ(spec->ropeScaling.type, RopeScalingType::LongRope);
  EXPECT_THAT(spec->ropeScaling.frequencyFactors, ElementsAre(1.0, 2.0));
  EXPECT_THAT(spec->ropeScaling.longFrequencyFactors, ElementsAre(3.0, 4.0));
  EXPECT_EQ(spec->ropeScaling.originalMaxPositions, 32);
  EXPECT_EQ(spec->ropeScaling.attentionFactor, 1.25);
  EXPECT_EQ(llvm::cantFail(spec->tensorName(TensorRole::ValueWeight, 1)),
            "blk.1.attn_qkv.weight:v");
  EXPECT_THAT(errorMessage(readSpec(
                  tinyMetadata("phi3")
                      .addF32Tensor("rope_factors_short.weight", {2}, {1, 2})
                      .build())),
              HasSubstr("only one of tensors 'rope_factors_short.weight' and "
                        "'rope_factors_long.weight'"));
}

/// Gemma 2 as llama.cpp reads it: the converter stored 1 + w, the caps
/// default to 50 and 30, every other layer slides.
TEST(GgufCheckpointTest, ReadsGemma2) {
  llvm::Expected<ModelSpec> spec = readSpec(
      tinyMetadata("gemma2", 8, 16, 4)
          .addU32("gemma2.attention.sliding_window", 16)
          .addF32("gemma2.final_logit_softcapping", 20.0f)
          .build());
  ASSERT_TRUE(static_cast<bool>(spec)) << llvm::toString(spec.takeError());
  EXPECT_EQ(spec->family, "gemma2");
  EXPECT_EQ(spec->hiddenAct, "gelu_tanh");
  EXPECT_EQ(spec->normWeightOffset, 0.0);
  EXPECT_DOUBLE_EQ(spec->embeddingMultiplier, std::sqrt(8.0));
  EXPECT_EQ(spec->attentionScale, 0.0) << "1 / sqrt(head_dim)";
  EXPECT_EQ(spec->attentionSoftcap, 50.0);
  EXPECT_EQ(spec->finalLogitSoftcap, 20.0);
  EXPECT_THAT(spec->layerWindows, ElementsAre(16, 0, 16, 0));
  EXPECT_EQ(llvm::cantFail(spec->tensorName(TensorRole::PostMlpNorm, 1)),
            "blk.1.post_ffw_norm.weight");
}

/// Gemma 3: a per-layer pattern, the sliding layers' base, and llama.cpp's
/// wider attention scale for its 27B models (62 layers).
TEST(GgufCheckpointTest, ReadsGemma3PatternsAndScale) {
  llvm::Expected<ModelSpec> flagged = readSpec(
      tinyMetadata("gemma3")
          .addU32("gemma3.attention.sliding_window", 16)
          .addBools("gemma3.attention.sliding_window_pattern", {false, true})
          .addF32("gemma3.rope.freq_base_swa", 5000.0f)
          .build());
  ASSERT_TRUE(static_cast<bool>(flagged))
      << llvm::toString(flagged.takeError());
  EXPECT_TRUE(flagged->qkNorm);
  EXPECT_EQ(flagged->attentionSoftcap, 0.0);
  EXPECT_EQ(flagged->finalLogitSoftcap, 0.0);
  EXPECT_EQ(flagged->slidingRopeTheta, 5000.0);
  EXPECT_THAT(flagged->layerWindows, ElementsAre(0, 16));

  llvm::Expected<ModelSpec> wide =
      readSpec(tinyMetadata("gemma3", 16, 16, 62)
                   .addU32("gemma3.attention.key_length", 4)
                   .addU32("gemma3.attention.value_length", 4)
                   .addU32("gemma3.attention.sliding_window", 16)
                   .build());
  ASSERT_TRUE(static_cast<bool>(wide)) << llvm::toString(wide.takeError());
  EXPECT_EQ(wide->slidingRopeTheta, 10000.0);
  EXPECT_DOUBLE_EQ(wide->attentionScale, 1.0 / std::sqrt(8.0))
      << "hidden_size / heads, not head_dim";
  EXPECT_TRUE(wide->hasWindow(4));
  EXPECT_FALSE(wide->hasWindow(5)) << "every sixth layer is global";

  EXPECT_THAT(errorMessage(readSpec(
                  tinyMetadata("gemma3")
                      .addBools("gemma3.attention.sliding_window_pattern",
                                {true, false, true})
                      .build())),
              HasSubstr("flags 3 layers, not 2"));
}

TEST(GgufCheckpointTest, RejectsWhatLlmcCannotHonour) {
  auto error = [](GgufBuilder builder) {
    std::string message = errorMessage(readSpec(builder.build()));
    EXPECT_THAT(message, StartsWith("spec.gguf: ")) << message;
    return message;
  };
  EXPECT_THAT(error(GgufBuilder()), HasSubstr("metadata 'general.architecture' "
                                              "is missing"));
  EXPECT_THAT(error(tinyMetadata("gemma")),
              HasSubstr("'gemma' is not supported (llmc reads qwen2, qwen3, "
                        "llama, phi3, internlm2, gemma2 and gemma3)"));
  GgufBuilder noLayers;
  noLayers.addString("general.architecture", "qwen2");
  EXPECT_THAT(error(noLayers), HasSubstr("metadata 'qwen2.block_count' is "
                                         "missing"));
  EXPECT_THAT(error(tinyMetadata("llama").addString(
                  "llama.rope.scaling.type", "yarn")),
              HasSubstr("'llama.rope.scaling.type' 'yarn' is not supported"));
  EXPECT_THAT(error(tinyMetadata("llama").addF32Tensor("rope_freqs.weight",
                                                        {3}, {1, 1, 1})),
              HasSubstr("tensor 'rope_freqs.weight', which is not 2 F32 "
                        "factors (one per rotary pair)"));
  EXPECT_THAT(error(tinyMetadata("llama").addF32Tensor("rope_freqs.weight",
                                                        {2}, {1, 0})),
              HasSubstr("whose factor 1 is not a positive number"));
  EXPECT_THAT(error(tinyMetadata("llama")
                        .addString("llama.rope.scaling.type", "linear")
                        .addF32("llama.rope.scaling.factor", 2.0f)
                        .addF32Tensor("rope_freqs.weight", {2}, {1, 1})),
              HasSubstr("and the rope factor tensors both scale the rotary "
                        "frequencies"));
  EXPECT_THAT(error(tinyMetadata("llama").addU32("llama.expert_count", 8)),
              HasSubstr("'llama.expert_count' is positive"));
  EXPECT_THAT(error(tinyMetadata("qwen3").addU32(
                  "qwen3.attention.value_length", 2)),
              HasSubstr("differs from the key length 4"));
  EXPECT_THAT(error(tinyMetadata("llama").addString("llama.rope.freq_base",
                                                     "fast")),
              HasSubstr("metadata 'llama.rope.freq_base' must be a float, got "
                        "string 'fast'"));
  EXPECT_THAT(error(tinyMetadata("qwen2").addU32("qwen2.rope.dimension_count",
                                                  6)),
              HasSubstr("the rotary dimension 6 must be even and at most "
                        "head_dim 4"));
}

TEST(GgufCheckpointTest, ChecksTensorsAgainstTheSpec) {
  auto loadError = [](GgufBuilder builder) {
    std::string path = writeTempFile("broken.gguf", builder.build());
    std::string message = errorMessage(loadCheckpoint(path));
    EXPECT_THAT(message, StartsWith(path + ": ")) << message;
    return message;
  };
  GgufBuilder missing = tinyMetadata("qwen2");
  addLlamaTensors(missing);
  EXPECT_THAT(loadError(missing),
              HasSubstr("tensor 'blk.0.attn_q.bias' (query_bias) is missing "
                        "from the file"));

  GgufBuilder wrongShape = tinyMetadata("llama");
  wrongShape.addF32Tensor("token_embd.weight", {4, 8},
                          std::vector<float>(32));
  EXPECT_THAT(loadError(wrongShape),
              HasSubstr("tensor 'token_embd.weight' (token_embedding) has "
                        "shape [8, 4], expected [4, 8]"));

  GgufBuilder unsupported = tinyMetadata("llama");
  unsupported.addTensor("token_embd.weight", /*IQ4_NL=*/20, {32, 4},
                        std::string(4 * 18, '\0'));
  EXPECT_THAT(loadError(unsupported),
              HasSubstr("tensor 'token_embd.weight' has ggml type iq4_nl, "
                        "which llmc does not read"));

  GgufBuilder integer = tinyMetadata("llama");
  integer.addTensor("token_embd.weight", /*I8=*/24, {8, 4},
                    std::string(32, '\0'));
  EXPECT_THAT(loadError(integer),
              HasSubstr("has type i8, expected a floating-point or quantized "
                        "type"));
}

/// A tiny llama of hidden and FFN size 32 whose matrices are blocks of ggml
/// `type` (all bytes zero), norms and embedding f32.
GgufBuilder blockQuantizedLlama(uint32_t type, size_t blockBytes) {
  GgufBuilder builder = tinyMetadata("llama", 32, 32);
  auto matrix = [&](const std::string &name, uint64_t in, uint64_t out) {
    builder.addTensor(name, type, {in, out},
                      std::string(in * out / 32 * blockBytes, '\0'));
  };
  builder.addF32Tensor("token_embd.weight", {32, 4}, std::vector<float>(128));
  builder.addF32Tensor("output_norm.weight", {32}, std::vector<float>(32));
  matrix("output.weight", 32, 4);
  for (int layer = 0; layer < 2; ++layer) {
    std::string blk = "blk." + std::to_string(layer) + ".";
    builder.addF32Tensor(blk + "attn_norm.weight", {32},
                         std::vector<float>(32));
    builder.addF32Tensor(blk + "ffn_norm.weight", {32}, std::vector<float>(32));
    for (const char *name :
         {"attn_q", "attn_output", "ffn_gate", "ffn_up", "ffn_down"})
      matrix(blk + name + ".weight", 32, 32);
    matrix(blk + "attn_k.weight", 32, 16);
    matrix(blk + "attn_v.weight", 32, 16);
  }
  return builder;
}

TEST(GgufCheckpointTest, SaysWhichBlockTypesAreDequantized) {
  std::string q4_0 =
      writeTempFile("q4_0.gguf", blockQuantizedLlama(/*Q4_0=*/2, 18).build());
  llvm::Expected<Checkpoint> stored = loadCheckpoint(q4_0);
  ASSERT_TRUE(static_cast<bool>(stored)) << llvm::toString(stored.takeError());
  EXPECT_THAT(stored->warnings, ::testing::IsEmpty());
  EXPECT_TRUE(stored->weights->getStoredQuantization("blk.1.ffn_down.weight"));
  EXPECT_FALSE(stored->weights->getStoredQuantization("blk.1.ffn_norm.weight"));

  std::string q4_1 =
      writeTempFile("q4_1.gguf", blockQuantizedLlama(/*Q4_1=*/3, 20).build());
  llvm::Expected<Checkpoint> offset = loadCheckpoint(q4_1);
  ASSERT_TRUE(static_cast<bool>(offset)) << llvm::toString(offset.takeError());
  EXPECT_THAT(offset->warnings, ::testing::IsEmpty());
  std::optional<llmc::plugins::StoredQuantization> q4_1Layout =
      offset->weights->getStoredQuantization("blk.1.ffn_down.weight");
  ASSERT_TRUE(q4_1Layout);
  EXPECT_TRUE(q4_1Layout->asymmetric && q4_1Layout->floatZeroPoints);

  std::string q5_0 =
      writeTempFile("q5_0.gguf", blockQuantizedLlama(/*Q5_0=*/6, 22).build());
  llvm::Expected<Checkpoint> converted = loadCheckpoint(q5_0);
  ASSERT_TRUE(static_cast<bool>(converted))
      << llvm::toString(converted.takeError());
  EXPECT_FALSE(
      converted->weights->getStoredQuantization("blk.1.ffn_down.weight"));
  EXPECT_THAT(converted->warnings,
              ElementsAre(q5_0 + ": 15 q5_0 tensor(s) are dequantized to f32 "
                                 "(only q8_0, q4_0 and q4_1 compile as "
                                 "stored); weight-only modes requantize them "
                                 "with their own scheme"));
}

TEST(GgufCheckpointTest, RecognisesGgufFilesByTheirMagic) {
  EXPECT_TRUE(isGgufFile(writeTempFile("a.bin", "GGUF")));
  EXPECT_FALSE(isGgufFile(writeTempFile("b.gguf", "GGU")));
  EXPECT_FALSE(isGgufFile(writeTempFile("c.gguf", "{\"GGUF\": 1}")));
  EXPECT_FALSE(isGgufFile(::testing::TempDir()));
  EXPECT_FALSE(isGgufFile(::testing::TempDir() + "/absent.gguf"));
  EXPECT_THAT(errorMessage(loadCheckpoint(writeTempFile("d.gguf", "GGUF"))),
              HasSubstr("version"));
}

} // namespace
