//===- StreamingDetokenizerTest.cpp - text of tokens as they come ---------===//

#include "runtime/tokenizer/StreamingDetokenizer.h"
#include "runtime/tokenizer/Utf8.h"
#include "runtime/tokenizer/test/ReferenceData.h"

#include "gtest/gtest.h"

namespace llmc::tokenizer::test {
namespace {

/// Streams `ids` and checks that every piece is well-formed UTF-8; returns
/// the pieces, the flushed rest last.
std::vector<std::string> stream(const Tokenizer &tokenizer,
                                absl::Span<const int32_t> ids,
                                bool skipSpecial = false) {
  StreamingDetokenizer detokenizer(tokenizer, skipSpecial);
  std::vector<std::string> pieces;
  for (int32_t id : ids)
    pieces.push_back(detokenizer.push(id));
  pieces.push_back(detokenizer.flush());
  for (const std::string &piece : pieces)
    EXPECT_TRUE(isValidUtf8(piece)) << "half a character: " << piece;
  return pieces;
}

std::string join(absl::Span<const std::string> pieces) {
  std::string text;
  for (const std::string &piece : pieces)
    text += piece;
  return text;
}

class StreamingCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamingCorpusTest, StreamsConcatenateToDecode) {
  std::unique_ptr<Tokenizer> tokenizer =
      loadReferenceTokenizer("tokenizer/" + GetParam());
  ASSERT_TRUE(tokenizer);
  for (const ReferenceLine &line : readReferenceLines(GetParam())) {
    EXPECT_EQ(join(stream(*tokenizer, line.ids)), tokenizer->decode(line.ids))
        << "text: " << line.text;
  }
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, StreamingCorpusTest,
                         ::testing::Values("qwen3", "llama3", "llama2"));

TEST(StreamingDetokenizerTest, HoldsBackByteFallbackCharacters) {
  std::unique_ptr<Tokenizer> llama2 =
      loadReferenceTokenizer("tokenizer/llama2");
  ASSERT_TRUE(llama2);
  std::vector<int32_t> ids = llama2->encode("a🤖b");
  // 🤖 is not in the vocabulary: four <0xNN> tokens spell it.
  std::vector<std::string> pieces = stream(*llama2, ids);
  size_t robot = 0;
  while (robot < ids.size() && llama2->idToToken(ids[robot]) != "<0xF0>")
    ++robot;
  ASSERT_LE(robot + 4, ids.size());
  EXPECT_EQ(pieces[robot], "");
  EXPECT_EQ(pieces[robot + 1], "");
  EXPECT_EQ(pieces[robot + 2], "");
  EXPECT_EQ(pieces[robot + 3], "🤖");
  EXPECT_EQ(join(pieces), "a🤖b");
}

TEST(StreamingDetokenizerTest, HoldsBackByteLevelCharacters) {
  std::unique_ptr<Tokenizer> qwen3 = loadReferenceTokenizer("tokenizer/qwen3");
  ASSERT_TRUE(qwen3);
  // Rare characters (CJK extension B, a musical symbol, a skin-tone emoji)
  // are split into tokens that each hold part of a character.
  std::string text = "𠀀𠀁𝄞👍🏽";
  std::vector<int32_t> ids = qwen3->encode(text);
  EXPECT_GT(ids.size(), 4u);
  EXPECT_EQ(join(stream(*qwen3, ids)), text);
}

TEST(StreamingDetokenizerTest, FlushShowsAnIncompleteCharacter) {
  std::unique_ptr<Tokenizer> llama2 =
      loadReferenceTokenizer("tokenizer/llama2");
  ASSERT_TRUE(llama2);
  std::optional<int32_t> lead = llama2->tokenToId("<0xF0>");
  std::optional<int32_t> next = llama2->tokenToId("<0x9F>");
  std::optional<int32_t> word = llama2->tokenToId("▁Hello");
  ASSERT_TRUE(lead && next && word);
  StreamingDetokenizer detokenizer(*llama2);
  EXPECT_EQ(detokenizer.push(*word), "Hello");
  EXPECT_EQ(detokenizer.push(*lead), "");
  EXPECT_EQ(detokenizer.push(*next), "");
  EXPECT_EQ(detokenizer.flush(), "\uFFFD");
  // After a flush the next text starts afresh: its first space is stripped.
  EXPECT_EQ(detokenizer.push(*word), "Hello");
}

TEST(StreamingDetokenizerTest, SkipsSpecialTokensWhenAsked) {
  std::unique_ptr<Tokenizer> qwen3 = loadReferenceTokenizer("tokenizer/qwen3");
  ASSERT_TRUE(qwen3);
  std::vector<int32_t> ids = qwen3->encode("<|im_start|>user\nhi<|im_end|>");
  EXPECT_EQ(join(stream(*qwen3, ids, /*skipSpecial=*/true)), "user\nhi");
  EXPECT_EQ(join(stream(*qwen3, ids)), "<|im_start|>user\nhi<|im_end|>");
}

} // namespace
} // namespace llmc::tokenizer::test
