//===- SentencePieceModelTest.cpp - tokenizer.model as tokenizer.json -----===//
//
// Hand-made SentencePiece models (the proto's own classes) converted, and
// the tokenizer.json they give checked field by field: the merges and their
// order, the normalizer, the special pieces, and the refusals.
//
//===----------------------------------------------------------------------===//

#include "frontends/hf/HfConfig.h"
#include "frontends/hf/SentencePieceModel.h"
#include "frontends/hf/sentencepiece_model.pb.h"
#include "frontends/hf/test/SafetensorsWriter.h"

#include "llvm/Support/JSON.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc::hf;
using namespace llmc::hf::test;
using ::testing::HasSubstr;
namespace sp = llmc::hf::sentencepiece;
using Piece = sp::ModelProto::SentencePiece;

namespace {

/// <unk> <s> </s>, then `pieces` with descending scores (SentencePiece's
/// BPE scores its pieces by merge order).
sp::ModelProto makeModel(sp::TrainerSpec::ModelType type,
                         std::vector<std::string> pieces) {
  sp::ModelProto model;
  auto add = [&](const std::string &text, Piece::Type kind, float score) {
    Piece *piece = model.add_pieces();
    piece->set_piece(text);
    piece->set_score(score);
    piece->set_type(kind);
  };
  add("<unk>", Piece::UNKNOWN, 0);
  add("<s>", Piece::CONTROL, 0);
  add("</s>", Piece::CONTROL, 0);
  for (size_t i = 0; i < pieces.size(); ++i)
    add(pieces[i], Piece::NORMAL, -float(i));
  model.mutable_trainer_spec()->set_model_type(type);
  model.mutable_trainer_spec()->set_byte_fallback(true);
  model.mutable_normalizer_spec()->set_name("identity");
  model.mutable_normalizer_spec()->set_remove_extra_whitespaces(false);
  return model;
}

llvm::json::Value convert(const sp::ModelProto &model) {
  std::string path =
      writeFile(makeTestDir(), "tokenizer.model", model.SerializeAsString());
  llvm::Expected<std::string> json = convertSentencePieceModel(path);
  if (!json) {
    ADD_FAILURE() << llvm::toString(json.takeError());
    return nullptr;
  }
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(*json);
  if (!value) {
    ADD_FAILURE() << llvm::toString(value.takeError());
    return nullptr;
  }
  return std::move(*value);
}

/// The normalizer `model` converts to, as JSON text.
std::string convertNormalizer(const sp::ModelProto &model) {
  llvm::json::Value value = convert(model);
  std::string normalizer;
  if (const llvm::json::Object *root = value.getAsObject())
    llvm::raw_string_ostream(normalizer) << *root->get("normalizer");
  return normalizer;
}

std::string convertError(const sp::ModelProto &model) {
  std::string path =
      writeFile(makeTestDir(), "tokenizer.model", model.SerializeAsString());
  llvm::Expected<std::string> json = convertSentencePieceModel(path);
  return json ? "" : llvm::toString(json.takeError());
}

TEST(SentencePieceModelTest, BpeMergesInScoreOrder) {
  // "▁a" (score -3) merges before "ab" (-4) and "▁ab" (-5), which splits as
  // "▁"+"ab" and "▁a"+"b": both are pieces, ordered by their halves' ids.
  llvm::json::Value value = convert(makeModel(
      sp::TrainerSpec::BPE, {"▁", "a", "b", "▁a", "ab", "▁ab"}));
  const llvm::json::Object *model = value.getAsObject()->getObject("model");
  ASSERT_TRUE(model);
  EXPECT_EQ(*model->getString("type"), "BPE");
  EXPECT_EQ(*model->getBoolean("byte_fallback"), true);
  EXPECT_EQ(*model->getString("unk_token"), "<unk>");
  EXPECT_EQ(*model->getObject("vocab")->getInteger("▁ab"), 8);
  std::string merges;
  llvm::raw_string_ostream(merges) << *model->get("merges");
  EXPECT_EQ(merges,
            R"([["▁","a"],["a","b"],["▁","ab"],["▁a","b"]])");
  // The special pieces are special added tokens.
  const llvm::json::Array *added =
      value.getAsObject()->getArray("added_tokens");
  ASSERT_EQ(added->size(), 3u);
  EXPECT_EQ(*(*added)[1].getAsObject()->getString("content"), "<s>");
  EXPECT_EQ(*(*added)[1].getAsObject()->getBoolean("special"), true);
}

TEST(SentencePieceModelTest, NormalizerFollowsTheSpec) {
  sp::ModelProto model = makeModel(sp::TrainerSpec::UNIGRAM, {"▁", "a"});
  model.mutable_normalizer_spec()->set_remove_extra_whitespaces(true);
  EXPECT_EQ(convertNormalizer(model),
            R"({"normalizers":[)"
            R"({"content":"","pattern":{"Regex":"\\A +| +\\z"},"type":"Replace"},)"
            R"({"content":" ","pattern":{"Regex":" {2,}"},"type":"Replace"},)"
            R"({"prepend":"▁","type":"Prepend"},)"
            R"({"content":"▁","pattern":{"String":" "},"type":"Replace"}],)"
            R"("type":"Sequence"})");
  llvm::json::Value value = convert(model);
  const llvm::json::Object *unigram =
      value.getAsObject()->getObject("model");
  EXPECT_EQ(*unigram->getString("type"), "Unigram");
  EXPECT_EQ(*unigram->getInteger("unk_id"), 0);
  EXPECT_EQ(unigram->getArray("vocab")->size(), 5u);
}

TEST(SentencePieceModelTest, PrecompiledMapComesFirst) {
  sp::ModelProto model = makeModel(sp::TrainerSpec::UNIGRAM, {"▁", "a"});
  model.mutable_normalizer_spec()->set_name("nmt_nfkc");
  model.mutable_normalizer_spec()->set_precompiled_charsmap("map");
  model.mutable_normalizer_spec()->set_add_dummy_prefix(false);
  model.mutable_normalizer_spec()->set_escape_whitespaces(false);
  // "map" in base64.
  EXPECT_EQ(convertNormalizer(model),
            R"({"normalizers":[)"
            R"({"precompiled_charsmap":"bWFw","type":"Precompiled"}],)"
            R"("type":"Sequence"})");
}

TEST(SentencePieceModelTest, RefusesWhatItCannotConvert) {
  EXPECT_THAT(convertError(makeModel(sp::TrainerSpec::WORD, {"a"})),
              HasSubstr("llmc reads BPE and Unigram models"));
  sp::ModelProto twice = makeModel(sp::TrainerSpec::BPE, {"a", "a"});
  EXPECT_THAT(convertError(twice), HasSubstr("piece 'a' is defined twice"));
  std::string path = writeFile(makeTestDir(), "tokenizer.model", "\xff\xff");
  llvm::Expected<std::string> garbage = convertSentencePieceModel(path);
  ASSERT_FALSE(static_cast<bool>(garbage));
  EXPECT_THAT(llvm::toString(garbage.takeError()),
              HasSubstr(path + ": not a SentencePiece model"));
}

TEST(SentencePieceModelTest, CheckpointWithoutTokenizerJson) {
  std::string directory = makeTestDir();
  writeFile(directory, "tokenizer.model",
            makeModel(sp::TrainerSpec::BPE, {"▁", "a"}).SerializeAsString());
  llmc::plugins::ModelSpec spec;
  ASSERT_FALSE(static_cast<bool>(readCompanionFiles(directory, spec)));
  EXPECT_THAT(spec.tokenizerJson, HasSubstr(R"("type":"BPE")"));
}

} // namespace
