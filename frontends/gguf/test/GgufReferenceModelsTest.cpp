//===- GgufReferenceModelsTest.cpp - the shared reference GGUF files ------===//
//
// Loads the GGUF files of ../shared/refdata through the registered `gguf`
// frontend. Expected values were computed with Python (struct and numpy)
// from the files themselves and from the Hugging Face copies of the same
// models, independently of the code under test: dequantized tensors as
// float32 bit patterns and the zlib CRC-32 of all their bytes.
//
//===----------------------------------------------------------------------===//

#include "backends/common/quant/DerivedWeightSource.h"
#include "frontends/gguf/GgufWeights.h"
#include "plugins/Registry.h"
#include "tests/TestData.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::plugins {
void register_gguf(Registrar &registrar);
} // namespace llmc::plugins

using namespace llmc::plugins;
using llmc::gguf::GgufWeights;
using ::testing::ElementsAre;

namespace {

class GgufReferenceModelsTest : public ::testing::Test {
protected:
  void SetUp() override {
    register_gguf(registry);
    ASSERT_FALSE(static_cast<bool>(registry.takeRegistrationErrors()));
  }

  const FrontendPlugin &frontend() const {
    return *registry.getFrontends().front();
  }

  /// Loads `models/<model>/model-<type>.gguf` from refdata.
  Checkpoint load(llvm::StringRef model, llvm::StringRef type) {
    std::string path = llmc::test::getRefdataPath(
        ("models/" + model + "/model-" + type + ".gguf").str());
    llvm::Expected<const FrontendPlugin &> found =
        registry.findFrontendFor(path);
    if (!found) {
      ADD_FAILURE() << llvm::toString(found.takeError());
      return {};
    }
    EXPECT_EQ(found->getId(), "gguf");
    llvm::Expected<Checkpoint> checkpoint = found->load(path);
    if (!checkpoint) {
      ADD_FAILURE() << llvm::toString(checkpoint.takeError());
      return {};
    }
    EXPECT_EQ(checkpoint->spec.source, path);
    return std::move(*checkpoint);
  }

  /// Tensor `name` as float32 (dequantized when quantized).
  static std::vector<float> readF32(const Checkpoint &checkpoint,
                                    llvm::StringRef name) {
    llvm::Expected<TensorInfo> info = checkpoint.weights->getTensorInfo(name);
    if (!info) {
      ADD_FAILURE() << llvm::toString(info.takeError());
      return {};
    }
    std::vector<float> values(info->getNumElements());
    if (llvm::Error error = checkpoint.weights->readAsF32(name, values))
      ADD_FAILURE() << llvm::toString(std::move(error));
    return values;
  }

  /// Checks the CRC-32 of all float32 bytes of `name` and some elements.
  static void expectDequantized(const Checkpoint &checkpoint,
                                llvm::StringRef name, uint32_t crc,
                                std::vector<std::pair<int64_t, uint32_t>> bits) {
    std::vector<float> values = readF32(checkpoint, name);
    ASSERT_FALSE(values.empty());
    EXPECT_EQ(llvm::crc32(llvm::ArrayRef<uint8_t>(
                  reinterpret_cast<const uint8_t *>(values.data()),
                  values.size() * sizeof(float))),
              crc)
        << name.str();
    for (auto [index, expected] : bits)
      EXPECT_EQ(llvm::bit_cast<uint32_t>(values.at(index)), expected)
          << name.str() << "[" << index << "] = " << values[index];
  }

  Registry registry;
};

TEST_F(GgufReferenceModelsTest, AcceptsOnlyGgufFiles) {
  EXPECT_TRUE(frontend().accepts(
      llmc::test::getRefdataPath("models/tiny-llama/model-q4_0.gguf")));
  EXPECT_FALSE(
      frontend().accepts(llmc::test::getRefdataPath("models/tiny-llama")));
  EXPECT_FALSE(frontend().accepts(
      llmc::test::getRefdataPath("models/tiny-llama/model.safetensors")));
  EXPECT_FALSE(frontend().accepts(
      llmc::test::getRefdataPath("models/tiny-llama") + "/absent.gguf"));
}

TEST_F(GgufReferenceModelsTest, TinyLlamaKeepsPermutedRowsWithInterleavedRope) {
  Checkpoint checkpoint = load("tiny-llama", "f32");
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
  EXPECT_EQ(spec.ropeTheta, 10000.0);
  EXPECT_EQ(spec.rmsNormEps, static_cast<double>(1e-6f));
  EXPECT_EQ(spec.ropePairing, RopePairing::Interleaved);
  EXPECT_FALSE(spec.tieWordEmbeddings);
  EXPECT_FALSE(spec.attentionBias);
  EXPECT_FALSE(spec.qkNorm);
  EXPECT_EQ(spec.bosTokenId, 1);
  EXPECT_THAT(spec.eosTokenIds, ElementsAre(2));
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::QueryWeight, 3)),
            "blk.3.attn_q.weight");
  EXPECT_EQ(llvm::cantFail(spec.tensorName(TensorRole::LmHead)),
            "output.weight");

  llvm::Expected<TensorInfo> info =
      checkpoint.weights->getTensorInfo("blk.0.attn_q.weight");
  ASSERT_TRUE(static_cast<bool>(info)) << llvm::toString(info.takeError());
  EXPECT_EQ(info->type, WeightType::F32);
  EXPECT_THAT(info->shape, ElementsAre(256, 256));
  // GGUF row h·32 + 2i + c holds Hugging Face q_proj row h·32 + 16c + i.
  std::vector<float> query = readF32(checkpoint, "blk.0.attn_q.weight");
  ASSERT_EQ(query.size(), 256u * 256u);
  EXPECT_EQ(llvm::bit_cast<uint32_t>(query[1 * 256 + 3]), 0x3bb91feeu);
  EXPECT_EQ(llvm::bit_cast<uint32_t>(query[2 * 256 + 3]), 0xbc5bc401u);
  EXPECT_EQ(llvm::bit_cast<uint32_t>(query[37 * 256 + 100]), 0xbc9fea1du);
  std::vector<float> embedding = readF32(checkpoint, "token_embd.weight");
  ASSERT_EQ(embedding.size(), 512u * 256u);
  EXPECT_EQ(llvm::bit_cast<uint32_t>(embedding[300 * 256 + 7]), 0xbd06b426u);
}

TEST_F(GgufReferenceModelsTest, TinyQwen2AndQwen3KeepHalfPairing) {
  Checkpoint qwen2 = load("tiny-qwen2", "f16");
  EXPECT_EQ(qwen2.spec.family, "qwen2");
  EXPECT_EQ(qwen2.spec.ropePairing, RopePairing::Half);
  EXPECT_EQ(qwen2.spec.ropeTheta, 1e6);
  EXPECT_TRUE(qwen2.spec.attentionBias);
  EXPECT_FALSE(qwen2.spec.tieWordEmbeddings);
  EXPECT_EQ(qwen2.spec.bosTokenId, 509);
  EXPECT_THAT(qwen2.spec.eosTokenIds, ElementsAre(509));
  llvm::Expected<TensorInfo> info =
      qwen2.weights->getTensorInfo("blk.1.ffn_down.weight");
  ASSERT_TRUE(static_cast<bool>(info)) << llvm::toString(info.takeError());
  EXPECT_EQ(info->type, WeightType::F16);
  EXPECT_THAT(info->shape, ElementsAre(256, 768));

  Checkpoint qwen3 = load("tiny-qwen3", "f32");
  EXPECT_EQ(qwen3.spec.family, "qwen3");
  EXPECT_EQ(qwen3.spec.headDim, 64);
  EXPECT_EQ(qwen3.spec.ropePairing, RopePairing::Half);
  EXPECT_TRUE(qwen3.spec.qkNorm);
  EXPECT_FALSE(qwen3.spec.attentionBias);
  EXPECT_TRUE(qwen3.spec.tieWordEmbeddings);
  EXPECT_FALSE(qwen3.spec.hasTensor(TensorRole::LmHead));
}

TEST_F(GgufReferenceModelsTest, Q4_0DequantizesBitExactly) {
  Checkpoint llama = load("tiny-llama", "q4_0");
  expectDequantized(llama, "blk.0.attn_q.weight", 0x6a10e961,
                    {{0, 0x3b8ce000}, {17, 0x3c535000}, {32773, 0x3d11a000},
                     {65535, 0xbbabe000}});
  expectDequantized(llama, "token_embd.weight", 0x4569cccc,
                    {{0, 0x3cb10800}, {17, 0xbcd47000}, {65541, 0x3c7ba000},
                     {131071, 0x3d308000}});
  expectDequantized(load("tiny-qwen2", "q4_0"), "output.weight", 0x8f9f116f,
                    {{0, 0xbba0a000}, {17, 0xbca0a000}, {65541, 0x3cd1a000},
                     {131071, 0xbd0a5c00}});
  expectDequantized(load("tiny-qwen3", "q4_0"), "blk.2.ffn_up.weight",
                    0x5b9f0d48,
                    {{0, 0xbc83b800}, {17, 0xbcafa000}, {98309, 0xbc6d0000},
                     {196607, 0xbb8fc000}});
}

TEST_F(GgufReferenceModelsTest, Q8_0DequantizesBitExactly) {
  expectDequantized(load("tiny-llama", "q8_0"), "blk.1.ffn_down.weight",
                    0xe7505eab,
                    {{0, 0x3cdd9e00}, {17, 0x3d0bf800}, {98309, 0xbbdd2200},
                     {196607, 0xbc78f800}});
  expectDequantized(load("tiny-qwen2", "q8_0"), "blk.0.attn_k.weight",
                    0x7011bcf1,
                    {{0, 0xbc3aea00}, {17, 0xbca16d00}, {8197, 0xbca7f580},
                     {16383, 0x3ba23200}});
  expectDequantized(load("tiny-qwen3", "q8_0"), "token_embd.weight",
                    0x0973986d,
                    {{0, 0x3cb6e600}, {17, 0xbcdf0c00}, {65541, 0x3c534000},
                     {131071, 0x3d255e40}});
}

TEST_F(GgufReferenceModelsTest, Q4_0AndQ8_0CompileAsStored) {
  for (auto [type, bits] : {std::pair<const char *, int64_t>{"q4_0", 4},
                            std::pair<const char *, int64_t>{"q8_0", 8}}) {
    SCOPED_TRACE(type);
    Checkpoint checkpoint = load("tiny-llama", type);
    ASSERT_TRUE(checkpoint.weights);
    EXPECT_THAT(checkpoint.warnings, ::testing::IsEmpty());
    const auto &weights = static_cast<const GgufWeights &>(*checkpoint.weights);
    const std::string name = "blk.0.attn_k.weight";
    std::optional<StoredQuantization> stored =
        weights.getStoredQuantization(name);
    ASSERT_TRUE(stored);
    EXPECT_EQ(*stored, (StoredQuantization{bits, 32, false, WeightType::F16}));
    EXPECT_FALSE(weights.getStoredQuantization("blk.0.attn_norm.weight"));

    // The derived weight a weight-only binary holds: ggml's own scales
    // (block by block, from the file) and exactly ggml's dequantized values.
    llmc::quant::DerivedWeightSource derived(weights);
    std::string derivation =
        name + "#w" + std::to_string(bits) + "_g32_sym_f16";
    llvm::Expected<llvm::ArrayRef<uint8_t>> scales =
        derived.getTensorData(derivation + ".scale");
    ASSERT_TRUE(static_cast<bool>(scales))
        << llvm::toString(scales.takeError());
    llvm::ArrayRef<uint8_t> blocks =
        weights.getFile().getBytes(*weights.getFile().findTensor(name));
    size_t blockBytes = bits == 4 ? 18 : 34;
    ASSERT_EQ(scales->size(), blocks.size() / blockBytes * 2);
    for (size_t block = 0; block < blocks.size() / blockBytes; ++block)
      ASSERT_TRUE((*scales)[2 * block] == blocks[block * blockBytes] &&
                  (*scales)[2 * block + 1] == blocks[block * blockBytes + 1])
          << "block " << block;
    llvm::Expected<llvm::ArrayRef<uint8_t>> dequantized =
        derived.getTensorData(derivation);
    llvm::Expected<llvm::ArrayRef<uint8_t>> ggml = weights.getTensorData(name);
    ASSERT_TRUE(dequantized && ggml);
    EXPECT_TRUE(*dequantized == *ggml) << "not ggml's dequantized values";
  }
}

} // namespace
