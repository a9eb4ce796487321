//===- GgufTokenizerTest.cpp - tokenizer.ggml.* as tokenizer.json ---------===//

#include "frontends/gguf/GgufTokenizer.h"

#include "frontends/gguf/test/ErrorMessage.h"
#include "frontends/gguf/test/GgufBuilder.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "tests/TestData.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace llmc::gguf;
using namespace llmc::gguf::test;
namespace json = llvm::json;
using ::testing::HasSubstr;

namespace {

std::unique_ptr<GgufFile> parseFile(const std::string &bytes) {
  llvm::Expected<std::unique_ptr<GgufFile>> file = GgufFile::parse(
      "tok.gguf", llvm::MemoryBuffer::getMemBufferCopy(bytes, "tok.gguf"));
  if (!file) {
    ADD_FAILURE() << llvm::toString(file.takeError());
    return nullptr;
  }
  return std::move(*file);
}

json::Object parseJson(llvm::StringRef text) {
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value || !value->getAsObject()) {
    ADD_FAILURE() << (value ? "not an object"
                            : llvm::toString(value.takeError()));
    return {};
  }
  return std::move(*value->getAsObject());
}

json::Object tokenizerOf(const std::string &bytes) {
  std::unique_ptr<GgufFile> file = parseFile(bytes);
  if (!file)
    return {};
  llvm::Expected<std::string> text = buildTokenizerJson(*file);
  if (!text) {
    ADD_FAILURE() << llvm::toString(text.takeError());
    return {};
  }
  return parseJson(*text);
}

std::string tokenizerError(const std::string &bytes) {
  std::unique_ptr<GgufFile> file = parseFile(bytes);
  return file ? errorMessage(buildTokenizerJson(*file)) : "";
}

/// A SentencePiece-style vocabulary whose merges must be derived.
GgufBuilder sentencePiece() {
  GgufBuilder builder;
  builder.addString("tokenizer.ggml.model", "llama")
      .addStrings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a", "b",
                                            "c", "ab", "bc", "abc", "<tool>"})
      .addI32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 1, 1, 1, 1, 4})
      .addF32s("tokenizer.ggml.scores",
               {0, 0, 0, -1e6f, -1e6f, -1e6f, -1, -2, -0.5f, 0})
      .addU32("tokenizer.ggml.bos_token_id", 1)
      .addU32("tokenizer.ggml.eos_token_id", 2)
      .addU32("tokenizer.ggml.unknown_token_id", 0);
  return builder;
}

/// A byte-level BPE vocabulary.
GgufBuilder byteLevel(llvm::StringRef pre) {
  GgufBuilder builder;
  builder.addString("tokenizer.ggml.model", "gpt2")
      .addString("tokenizer.ggml.pre", pre)
      .addStrings("tokenizer.ggml.tokens", {"a", "b", "ab", "<|end|>"})
      .addI32s("tokenizer.ggml.token_type", {1, 1, 1, 3})
      .addStrings("tokenizer.ggml.merges", {"a b"});
  return builder;
}

TEST(GgufTokenizerTest, DerivesSentencePieceMergesFromScores) {
  json::Object tokenizer = tokenizerOf(sentencePiece().build());
  const json::Object *model = tokenizer.getObject("model");
  ASSERT_TRUE(model);
  // By the merged token's score; splits of one token by (left, right) id.
  EXPECT_EQ(
      *model->get("merges"),
      json::Value(json::Array{json::Array{"a", "bc"}, json::Array{"ab", "c"},
                              json::Array{"a", "b"}, json::Array{"b", "c"}}));
  EXPECT_EQ(*model->get("unk_token"), json::Value("<unk>"));
  EXPECT_EQ(model->getBoolean("byte_fallback"), true);
  EXPECT_EQ(model->getObject("vocab")->getInteger("abc"), 8);
  const json::Array *added = tokenizer.getArray("added_tokens");
  ASSERT_TRUE(added);
  ASSERT_EQ(added->size(), 4u);
  EXPECT_EQ((*added)[0].getAsObject()->getString("content"), "<unk>");
  EXPECT_EQ((*added)[3].getAsObject()->getInteger("id"), 9);
  EXPECT_EQ((*added)[3].getAsObject()->getBoolean("special"), false)
      << "user-defined tokens are not special";
  EXPECT_EQ((*added)[1].getAsObject()->getBoolean("special"), true);
  // add_bos defaults to true for SentencePiece vocabularies.
  const json::Object *post = tokenizer.getObject("post_processor");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->getString("type"), "TemplateProcessing");
  EXPECT_EQ(post->getArray("single")->size(), 2u);
  EXPECT_EQ(post->getArray("pair")->size(), 4u);
  EXPECT_EQ(tokenizer.getObject("normalizer")->getArray("normalizers")->size(),
            2u);
  EXPECT_EQ(tokenizer.getObject("decoder")->getArray("decoders")->size(), 4u);
}

TEST(GgufTokenizerTest, HonoursSpacePrefixAndEos) {
  json::Object tokenizer =
      tokenizerOf(sentencePiece()
                      .addBool("tokenizer.ggml.add_space_prefix", false)
                      .addBool("tokenizer.ggml.add_bos_token", false)
                      .addBool("tokenizer.ggml.add_eos_token", true)
                      .build());
  EXPECT_EQ(tokenizer.getObject("normalizer")->getArray("normalizers")->size(),
            1u);
  EXPECT_EQ(tokenizer.getObject("decoder")->getArray("decoders")->size(), 3u);
  const json::Object *post = tokenizer.getObject("post_processor");
  ASSERT_TRUE(post);
  const json::Array &single = *post->getArray("single");
  ASSERT_EQ(single.size(), 2u);
  EXPECT_EQ(
      *single[1].getAsObject()->getObject("SpecialToken")->getString("id"),
      "</s>");
}

TEST(GgufTokenizerTest, ChoosesThePreTokenizerByName) {
  json::Object llama3 = tokenizerOf(byteLevel("llama-bpe").build());
  EXPECT_EQ(llama3.getObject("model")->getBoolean("ignore_merges"), true);
  EXPECT_EQ(*llama3.get("normalizer"), json::Value(nullptr));
  const json::Value &split =
      (*llama3.getObject("pre_tokenizer")->getArray("pretokenizers"))[0];
  EXPECT_THAT(
      split.getAsObject()->getObject("pattern")->getString("Regex")->str(),
      HasSubstr("\\p{N}{1,3}"));
  EXPECT_EQ(*llama3.getObject("model")->get("merges"),
            json::Value(json::Array{json::Array{"a", "b"}}));

  // DeepSeek LLM: six splits (the last one digits apart), then bytes.
  json::Object deepSeekLlm = tokenizerOf(byteLevel("deepseek-llm").build());
  const json::Array &steps =
      *deepSeekLlm.getObject("pre_tokenizer")->getArray("pretokenizers");
  ASSERT_EQ(steps.size(), 7u);
  EXPECT_EQ(*steps[5].getAsObject()->getObject("pattern")->getString("Regex"),
            "\\p{N}");
  EXPECT_EQ(steps[6].getAsObject()->getBoolean("use_regex"), false);

  json::Object gpt2 = tokenizerOf(byteLevel("gpt-2").build());
  EXPECT_EQ(gpt2.getObject("pre_tokenizer")->getBoolean("use_regex"), true);
  EXPECT_EQ(gpt2.getObject("post_processor")->getString("type"), "ByteLevel");
  EXPECT_EQ(gpt2.getArray("added_tokens")->size(), 1u);
}

TEST(GgufTokenizerTest, NoTokenizerIsEmpty) {
  std::unique_ptr<GgufFile> file = parseFile(GgufBuilder().build());
  ASSERT_TRUE(file);
  EXPECT_EQ(llvm::cantFail(buildTokenizerJson(*file)), "");
}

TEST(GgufTokenizerTest, ReportsBrokenTokenizers) {
  EXPECT_THAT(
      tokenizerError(
          GgufBuilder().addString("tokenizer.ggml.model", "bert").build()),
      HasSubstr("tok.gguf: metadata 'tokenizer.ggml.model' 'bert' is "
                "not supported"));
  EXPECT_THAT(tokenizerError(byteLevel("no-such-split").build()),
              HasSubstr("metadata 'tokenizer.ggml.pre' 'no-such-split' is not "
                        "supported"));
  EXPECT_THAT(
      tokenizerError(
          byteLevel("qwen2").addU32("tokenizer.ggml.bos_token_id", 4).build()),
      HasSubstr("'tokenizer.ggml.bos_token_id' is 4, beyond the 4 "
                "tokens"));
  EXPECT_THAT(tokenizerError(byteLevel("qwen2")
                                 .addBool("tokenizer.ggml.add_bos_token", true)
                                 .build()),
              HasSubstr("'tokenizer.ggml.add_bos_token' is set, but "
                        "tokenizer.ggml.bos_token_id is not"));
  EXPECT_THAT(tokenizerError(GgufBuilder()
                                 .addString("tokenizer.ggml.model", "gpt2")
                                 .addStrings("tokenizer.ggml.tokens", {"a"})
                                 .build()),
              HasSubstr("'tokenizer.ggml.merges' is missing"));
  EXPECT_THAT(tokenizerError(GgufBuilder()
                                 .addString("tokenizer.ggml.model", "gpt2")
                                 .addStrings("tokenizer.ggml.tokens", {"a"})
                                 .addStrings("tokenizer.ggml.merges", {"ab"})
                                 .build()),
              HasSubstr("'tokenizer.ggml.merges' entry 0 is not two UTF-8 "
                        "tokens separated by a space"));
  EXPECT_THAT(tokenizerError(GgufBuilder()
                                 .addString("tokenizer.ggml.model", "gpt2")
                                 .addStrings("tokenizer.ggml.tokens", {"a"})
                                 .addI32s("tokenizer.ggml.token_type", {1, 1})
                                 .build()),
              HasSubstr("'tokenizer.ggml.token_type' has 2 entries for 1 "
                        "tokens"));
  EXPECT_THAT(
      tokenizerError(GgufBuilder()
                         .addString("tokenizer.ggml.model", "gpt2")
                         .addStrings("tokenizer.ggml.tokens", {"a", "\xff"})
                         .build()),
      HasSubstr("token 1 is not valid UTF-8"));
  EXPECT_THAT(tokenizerError(GgufBuilder()
                                 .addString("tokenizer.ggml.model", "llama")
                                 .addStrings("tokenizer.ggml.tokens", {"a"})
                                 .build()),
              HasSubstr("'tokenizer.ggml.scores' has 0 entries for 1 tokens"));
  EXPECT_THAT(tokenizerError(GgufBuilder()
                                 .addString("tokenizer.ggml.model", "llama")
                                 .addStrings("tokenizer.ggml.tokens", {"a"})
                                 .addF32s("tokenizer.ggml.scores", {NAN})
                                 .build()),
              HasSubstr("'tokenizer.ggml.scores' holds NaN"));
  EXPECT_THAT(tokenizerError(GgufBuilder()
                                 .addString("tokenizer.ggml.model", "gpt2")
                                 .addU32("tokenizer.ggml.tokens", 3)
                                 .build()),
              HasSubstr("'tokenizer.ggml.tokens' must be an array of strings, "
                        "got u32 3"));
}

//===----------------------------------------------------------------------===//
// The reference models: the same tokenizers as their Hugging Face files
//===----------------------------------------------------------------------===//

struct ReferencePair {
  json::Object ours;
  json::Object huggingFace;
};

ReferencePair loadReference(llvm::StringRef model) {
  std::string directory = llmc::test::getRefdataPath(("models/" + model).str());
  ReferencePair pair;
  llvm::Expected<std::unique_ptr<GgufFile>> file =
      GgufFile::open(directory + "/model-f32.gguf");
  if (!file) {
    ADD_FAILURE() << llvm::toString(file.takeError());
    return pair;
  }
  llvm::Expected<std::string> text = buildTokenizerJson(**file);
  if (!text) {
    ADD_FAILURE() << llvm::toString(text.takeError());
    return pair;
  }
  pair.ours = parseJson(*text);
  auto buffer = llvm::MemoryBuffer::getFile(directory + "/tokenizer.json");
  if (!buffer) {
    ADD_FAILURE() << "cannot read " << directory << "/tokenizer.json";
    return pair;
  }
  pair.huggingFace = parseJson((*buffer)->getBuffer());
  return pair;
}

/// Merges as `left right` strings, whichever form the file uses.
std::vector<std::string> mergeStrings(const json::Object &tokenizer) {
  std::vector<std::string> merges;
  for (const json::Value &merge :
       *tokenizer.getObject("model")->getArray("merges")) {
    if (std::optional<llvm::StringRef> text = merge.getAsString())
      merges.push_back(text->str());
    else
      merges.push_back((*merge.getAsArray())[0].getAsString()->str() + " " +
                       (*merge.getAsArray())[1].getAsString()->str());
  }
  return merges;
}

TEST(GgufTokenizerTest, TinyQwen2MatchesItsTokenizerJson) {
  ReferencePair pair = loadReference("tiny-qwen2");
  for (llvm::StringRef field : {"added_tokens", "normalizer", "pre_tokenizer",
                                "post_processor", "decoder"})
    EXPECT_EQ(*pair.ours.get(field), *pair.huggingFace.get(field))
        << field.str();
  EXPECT_EQ(*pair.ours.getObject("model")->get("vocab"),
            *pair.huggingFace.getObject("model")->get("vocab"));
  EXPECT_EQ(mergeStrings(pair.ours), mergeStrings(pair.huggingFace));
}

TEST(GgufTokenizerTest, TinyLlamaMatchesItsTokenizerJson) {
  ReferencePair pair = loadReference("tiny-llama");
  for (llvm::StringRef field : {"added_tokens", "normalizer", "pre_tokenizer",
                                "post_processor", "decoder"})
    EXPECT_EQ(*pair.ours.get(field), *pair.huggingFace.get(field))
        << field.str();
  EXPECT_EQ(*pair.ours.getObject("model")->get("vocab"),
            *pair.huggingFace.getObject("model")->get("vocab"));
  // Scores rank merged tokens, not splits: each of Hugging Face's 192 merges
  // appears in order, with 8 more splits of the same tokens beside them.
  std::vector<std::string> ours = mergeStrings(pair.ours);
  std::vector<std::string> theirs = mergeStrings(pair.huggingFace);
  EXPECT_EQ(ours.size(), 200u);
  size_t next = 0;
  for (const std::string &merge : ours)
    if (next < theirs.size() && merge == theirs[next])
      ++next;
  EXPECT_EQ(next, theirs.size()) << "first missing: " << theirs[next];
}

/// Encodes every line of the shared corpus with the runtime tokenizer built
/// from the GGUF file's metadata and from the model's tokenizer.json; the
/// ids must agree line for line.
void expectSameIdsOnCorpus(llvm::StringRef model) {
  std::string directory = llmc::test::getRefdataPath(("models/" + model).str());
  llvm::Expected<std::unique_ptr<GgufFile>> file =
      GgufFile::open(directory + "/model-f32.gguf");
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  std::string text = llvm::cantFail(buildTokenizerJson(**file));
  auto ours = llmc::tokenizer::Tokenizer::fromJson(text, "gguf");
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  auto theirs = llmc::tokenizer::Tokenizer::fromFile(directory);
  ASSERT_TRUE(theirs.ok()) << theirs.status().message();
  auto corpus = llvm::MemoryBuffer::getFile(
      llmc::test::getRefdataPath("tokenizer/corpus.jsonl"));
  ASSERT_TRUE(static_cast<bool>(corpus));
  int lines = 0;
  for (llvm::line_iterator line(**corpus, /*SkipBlanks=*/true);
       !line.is_at_end(); ++line, ++lines) {
    llvm::Expected<json::Value> value = json::parse(*line);
    ASSERT_TRUE(value && value->getAsString()) << line->str();
    llvm::StringRef sample = *value->getAsString();
    for (bool special : {false, true})
      EXPECT_EQ((*ours)->encode(sample, special),
                (*theirs)->encode(sample, special))
          << model.str() << ": " << sample.str();
  }
  EXPECT_GT(lines, 100);
}

TEST(GgufTokenizerTest, TinyQwen2TokenizesLikeItsTokenizerJson) {
  expectSameIdsOnCorpus("tiny-qwen2");
}

TEST(GgufTokenizerTest, TinyLlamaTokenizesLikeItsTokenizerJson) {
  expectSameIdsOnCorpus("tiny-llama");
}

} // namespace
