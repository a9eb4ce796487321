//===- FamilyTest.cpp - the family table's lookups ------------------------===//

#include "frontends/llm/families/Family.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <vector>

using namespace llmc::families;
using ::testing::Each;
using ::testing::ElementsAre;
using llmc::plugins::ModelSpec;
using llmc::plugins::TensorRole;

namespace {

TEST(FamilyTest, FindsFamiliesByTheirFormatsNames) {
  EXPECT_EQ(findHfFamily("qwen2"), &getQwen2Family());
  EXPECT_EQ(findHfFamily("mistral"), &getMistralFamily());
  EXPECT_EQ(findHfFamily("gemma3_text"), &getGemma3Family());
  EXPECT_EQ(findHfFamily("gemma"), nullptr);
  EXPECT_EQ(findGgufFamily("qwen3"), &getQwen3Family());
  // llama.cpp writes Mistral as `llama`: no architecture of its own.
  EXPECT_EQ(findGgufFamily("mistral"), nullptr);
  EXPECT_EQ(findFamily("mistral"), &getMistralFamily());
  EXPECT_EQ(findGgufFamily("gemma3"), &getGemma3Family());
  EXPECT_EQ(findFamily("gemma"), nullptr);
}

TEST(FamilyTest, ListsNamesForErrors) {
  EXPECT_EQ(listHfModelTypes(), "qwen2, qwen3, llama, mistral, phi3, "
                                "internlm2, gemma2 and gemma3_text");
  EXPECT_EQ(listHfModelTypes({"minicpmv"}),
            "qwen2, qwen3, llama, mistral, phi3, internlm2, gemma2, "
            "gemma3_text and minicpmv");
  EXPECT_EQ(listGgufArchitectures(),
            "qwen2, qwen3, llama, phi3, internlm2, gemma2 and gemma3");
}

/// What an ONNX export, which names no family, reads as.
TEST(FamilyTest, MatchesFeatures) {
  EXPECT_EQ(matchFamily(false, false), &getLlamaFamily());
  EXPECT_EQ(matchFamily(true, false), &getQwen2Family());
  EXPECT_EQ(matchFamily(false, true), &getQwen3Family());
  EXPECT_EQ(matchFamily(true, true), &getQwen3Family())
      << "Qwen3's biases are optional";
}

/// transformers' (layer + 1) % n != 0 and llama.cpp's i % n < n - 1 alike.
TEST(FamilyTest, SlidesAllButEveryPeriodthLayer) {
  std::vector<bool> six, zero;
  for (int64_t layer = 0; layer < 7; ++layer) {
    six.push_back(slidesInPattern(layer, 6));
    zero.push_back(slidesInPattern(layer, 0));
  }
  EXPECT_THAT(six, ElementsAre(true, true, true, true, true, false, true));
  EXPECT_THAT(zero, Each(true));
}

/// Every family names every role its flags ask for, in both formats, and
/// Gemma's post norms besides.
TEST(FamilyTest, NamesEveryRoleItUses) {
  for (const Family *family : getFamilies()) {
    size_t postNorms = family->scalesEmbedding ? 2 : 0;
    for (auto name : {family->nameHfTensors, family->nameGgufTensors}) {
      ModelSpec spec;
      spec.attentionBias = true;
      spec.qkNorm = true;
      name(spec);
      EXPECT_EQ(spec.tensorNames.size(), 17u + postNorms) << family->name.str();
      spec = ModelSpec();
      spec.tieWordEmbeddings = true;
      name(spec);
      EXPECT_EQ(spec.tensorNames.size(), 11u + postNorms) << family->name.str();
      EXPECT_FALSE(spec.hasTensor(TensorRole::LmHead));
      EXPECT_EQ(spec.hasTensor(TensorRole::PostAttentionNorm),
                family->scalesEmbedding);
      EXPECT_EQ(spec.hasTensor(TensorRole::PostMlpNorm),
                family->scalesEmbedding);
    }
  }
}

TEST(FamilyTest, NamesTensorsAsEachFormatDoes) {
  ModelSpec hf, gguf;
  getLlamaFamily().nameHfTensors(hf);
  getLlamaFamily().nameGgufTensors(gguf);
  EXPECT_EQ(llvm::cantFail(hf.tensorName(TensorRole::DownWeight, 3)),
            "model.layers.3.mlp.down_proj.weight");
  EXPECT_EQ(llvm::cantFail(gguf.tensorName(TensorRole::DownWeight, 3)),
            "blk.3.ffn_down.weight");
}

/// A model with 4 query heads, 2 key/value heads of 2 rows each, an MLP of
/// 3, and 1 layer.
ModelSpec fusedSpec(const Family &family, bool gguf) {
  ModelSpec spec;
  spec.numLayers = 1;
  spec.numHeads = 4;
  spec.numKvHeads = 2;
  spec.headDim = 2;
  spec.intermediateSize = 3;
  (gguf ? family.nameGgufTensors : family.nameHfTensors)(spec);
  return spec;
}

TEST(FamilyTest, Phi3SlicesQkvAndGateUpInTurn) {
  for (bool gguf : {false, true}) {
    const Family &phi3 = getPhi3Family();
    ModelSpec spec = fusedSpec(phi3, gguf);
    std::vector<llmc::plugins::RowSlice> slices =
        (gguf ? phi3.getGgufSlices : phi3.getHfSlices)(spec);
    ASSERT_EQ(slices.size(), 5u);
    EXPECT_EQ(slices[0].name, gguf ? "blk.0.attn_qkv.weight:q"
                                   : "model.layers.0.self_attn.qkv_proj."
                                     "weight:q");
    EXPECT_EQ(slices[0].source, gguf ? "blk.0.attn_qkv.weight"
                                     : "model.layers.0.self_attn.qkv_proj."
                                       "weight");
    using Ranges = std::vector<std::pair<int64_t, int64_t>>;
    EXPECT_EQ(slices[0].rowRanges, (Ranges{{0, 8}}));
    EXPECT_EQ(slices[1].rowRanges, (Ranges{{8, 4}}));
    EXPECT_EQ(slices[2].rowRanges, (Ranges{{12, 4}}));
    EXPECT_EQ(slices[3].rowRanges, (Ranges{{0, 3}})) << "gate first";
    EXPECT_EQ(slices[4].rowRanges, (Ranges{{3, 3}}));
  }
}

/// wqkv is grouped by key/value head: q q k v | q q k v.
TEST(FamilyTest, InternLM2SlicesWqkvByGroup) {
  const Family &internlm2 = getInternLM2Family();
  EXPECT_EQ(internlm2.getGgufSlices, nullptr) << "llama.cpp splits wqkv";
  ModelSpec spec = fusedSpec(internlm2, false);
  std::vector<llmc::plugins::RowSlice> slices = internlm2.getHfSlices(spec);
  ASSERT_EQ(slices.size(), 3u);
  using Ranges = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(slices[0].name, "model.layers.0.attention.wqkv.weight:q");
  EXPECT_EQ(slices[0].rowRanges, (Ranges{{0, 4}, {8, 4}}));
  EXPECT_EQ(slices[1].rowRanges, (Ranges{{4, 2}, {12, 2}}));
  EXPECT_EQ(slices[2].rowRanges, (Ranges{{6, 2}, {14, 2}}));
}

} // namespace
