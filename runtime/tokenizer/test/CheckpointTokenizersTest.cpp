//===- CheckpointTokenizersTest.cpp - the reference models' tokenizers ----===//
//
// The tiny models' and the demo model's own tokenizer.json files (small
// trained BPEs in the Qwen2 and Llama layouts) load from their checkpoint
// directories, cover the model's vocabulary and round-trip text.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/test/ReferenceData.h"

#include "tests/TestData.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

namespace llmc::tokenizer::test {
namespace {

/// The JSON object in `refdata/<relative>`; empty with a test failure when
/// it cannot be read.
llvm::json::Object readJson(llvm::StringRef relative) {
  std::string path = llmc::test::getRefdataPath(relative);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    ADD_FAILURE() << path << ": " << buffer.getError().message();
    return {};
  }
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*buffer)->getBuffer());
  if (!value || !value->getAsObject()) {
    ADD_FAILURE() << path << ": not a JSON object";
    if (!value)
      llvm::consumeError(value.takeError());
    return {};
  }
  return std::move(*value->getAsObject());
}

class CheckpointTokenizerTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckpointTokenizerTest, CoversTheModelVocabularyAndRoundTrips) {
  std::unique_ptr<Tokenizer> tokenizer = loadReferenceTokenizer(GetParam());
  ASSERT_TRUE(tokenizer);
  llvm::json::Object config = readJson(GetParam() + "/config.json");
  EXPECT_EQ(tokenizer->vocabSize(), config.getInteger("vocab_size"));

  std::vector<std::string> corpus = readCorpus();
  ASSERT_FALSE(corpus.empty());
  for (const std::string &text : corpus) {
    std::vector<int32_t> ids = tokenizer->encode(text);
    // SentencePiece-style decoding cannot restore the spaces around added
    // tokens (each stretch of text gets its own "▁").
    if (llvm::any_of(ids, [&](int32_t id) { return tokenizer->isSpecial(id); }))
      continue;
    EXPECT_EQ(tokenizer->decode(ids), text);
  }
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, CheckpointTokenizerTest,
                         ::testing::Values("models/tiny-llama",
                                           "models/tiny-qwen2",
                                           "models/tiny-qwen3",
                                           "demo/fortune-qwen2"));

TEST(CheckpointTokenizerTest, DemoPromptsReencodeToTheirIds) {
  std::unique_ptr<Tokenizer> tokenizer =
      loadReferenceTokenizer("demo/fortune-qwen2");
  ASSERT_TRUE(tokenizer);
  for (llvm::StringRef prompt : {"en", "zh", "mixed"}) {
    llvm::json::Object ref =
        readJson(("demo/refs/fortune-qwen2.f32." + prompt + ".json").str());
    std::vector<int32_t> ids;
    if (const llvm::json::Array *list = ref.getArray("prompt"))
      for (const llvm::json::Value &id : *list)
        ids.push_back(static_cast<int32_t>(id.getAsInteger().value_or(-1)));
    ASSERT_FALSE(ids.empty()) << prompt.str();
    std::string text = tokenizer->decode(ids);
    EXPECT_EQ(tokenizer->encode(text), ids) << prompt.str() << ": " << text;
  }
}

} // namespace
} // namespace llmc::tokenizer::test
