//===- ReferenceTokenizersTest.cpp - ids identical to HF tokenizers -------===//
//
// Encodes every line of refdata/tokenizer/corpus.jsonl with the Qwen3, Llama 3
// and Llama 2 tokenizers and requires exactly the ids that the Hugging Face
// `tokenizers` library produced (ref_<name>.jsonl), then checks decoding.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/test/ReferenceData.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

namespace llmc::tokenizer::test {
namespace {

std::string printIds(llvm::ArrayRef<int32_t> ids) {
  return "[" +
         llvm::join(llvm::map_range(
                        ids, [](int32_t id) { return std::to_string(id); }),
                    ",") +
         "]";
}

/// `text` as a JSON string, so control characters are visible.
std::string quote(llvm::StringRef text) {
  std::string out;
  llvm::raw_string_ostream(out) << llvm::json::Value(text.str());
  return out;
}

class ReferenceTokenizerTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    tokenizer = loadReferenceTokenizer("tokenizer/" + GetParam());
    lines = readReferenceLines(GetParam());
    ASSERT_TRUE(tokenizer);
    ASSERT_FALSE(lines.empty());
  }

  std::unique_ptr<Tokenizer> tokenizer;
  std::vector<ReferenceLine> lines;
};

TEST_P(ReferenceTokenizerTest, EncodesLikeReference) {
  size_t matching = 0;
  for (const ReferenceLine &line : lines) {
    std::vector<int32_t> ids = tokenizer->encode(line.text);
    if (ids == line.ids) {
      ++matching;
      continue;
    }
    ADD_FAILURE() << "text: " << quote(line.text)
                  << "\n  expected: " << printIds(line.ids)
                  << "\n  actual:   " << printIds(ids);
  }
  EXPECT_EQ(matching, lines.size());
  std::cout << GetParam() << ": " << matching << "/" << lines.size()
            << " lines encode to the reference ids\n";
}

TEST_P(ReferenceTokenizerTest, DecodesReferenceIdsToText) {
  for (const ReferenceLine &line : lines) {
    // SentencePiece-style decoding strips the space the normalizer
    // prepends to each stretch; after an added token that stretch's space
    // is kept, so text that has added tokens comes back with extra spaces.
    bool hasAddedToken = llvm::any_of(
        line.ids, [&](int32_t id) { return tokenizer->isSpecial(id); });
    if (GetParam() == "llama2" && hasAddedToken)
      continue;
    EXPECT_EQ(tokenizer->decode(line.ids), line.text)
        << "ids: " << printIds(line.ids);
  }
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, ReferenceTokenizerTest,
                         ::testing::Values("qwen3", "llama3", "llama2"));

} // namespace
} // namespace llmc::tokenizer::test
