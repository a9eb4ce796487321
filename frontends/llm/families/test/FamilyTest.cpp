//===- FamilyTest.cpp - the family table's lookups ------------------------===//

#include "frontends/llm/families/Family.h"

#include "gtest/gtest.h"

using namespace llmc::families;
using llmc::plugins::ModelSpec;
using llmc::plugins::TensorRole;

namespace {

TEST(FamilyTest, FindsFamiliesByTheirFormatsNames) {
  EXPECT_EQ(findHfFamily("qwen2"), &getQwen2Family());
  EXPECT_EQ(findHfFamily("mistral"), &getMistralFamily());
  EXPECT_EQ(findHfFamily("gemma2"), nullptr);
  EXPECT_EQ(findGgufFamily("qwen3"), &getQwen3Family());
  // llama.cpp writes Mistral as `llama`: no architecture of its own.
  EXPECT_EQ(findGgufFamily("mistral"), nullptr);
  EXPECT_EQ(findFamily("mistral"), &getMistralFamily());
  EXPECT_EQ(findFamily("internlm2"), nullptr);
}

TEST(FamilyTest, ListsNamesForErrors) {
  EXPECT_EQ(listHfModelTypes(), "qwen2, qwen3, llama and mistral");
  EXPECT_EQ(listHfModelTypes({"minicpmv"}),
            "qwen2, qwen3, llama, mistral and minicpmv");
  EXPECT_EQ(listGgufArchitectures(), "qwen2, qwen3 and llama");
}

/// What an ONNX export, which names no family, reads as.
TEST(FamilyTest, MatchesFeatures) {
  EXPECT_EQ(matchFamily(false, false), &getLlamaFamily());
  EXPECT_EQ(matchFamily(true, false), &getQwen2Family());
  EXPECT_EQ(matchFamily(false, true), &getQwen3Family());
  EXPECT_EQ(matchFamily(true, true), &getQwen3Family())
      << "Qwen3's biases are optional";
}

/// Every family names every role its flags ask for, in both formats.
TEST(FamilyTest, NamesEveryRoleItUses) {
  for (const Family *family : getFamilies()) {
    for (auto name : {family->nameHfTensors, family->nameGgufTensors}) {
      ModelSpec spec;
      spec.attentionBias = true;
      spec.qkNorm = true;
      name(spec);
      EXPECT_EQ(spec.tensorNames.size(), 17u) << family->name.str();
      spec = ModelSpec();
      spec.tieWordEmbeddings = true;
      name(spec);
      EXPECT_EQ(spec.tensorNames.size(), 11u) << family->name.str();
      EXPECT_FALSE(spec.hasTensor(TensorRole::LmHead));
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

} // namespace
