//===- SplitPatternsTest.cpp - the hand-written split-regex scanners ------===//
//
// Expected pieces follow the regexes' leftmost-first, backtracking semantics
// (Oniguruma's, which the reference library uses).
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/SplitPatterns.h"

#include "gtest/gtest.h"

namespace llmc::tokenizer {
namespace {

std::vector<std::string> split(SplitPattern pattern, llvm::StringRef text) {
  std::vector<std::string> pieces;
  size_t last = 0;
  for (auto [begin, end] : findSplitMatches(pattern, text)) {
    EXPECT_EQ(begin, last) << "a gap before a match in '" << text.str() << "'";
    pieces.push_back(text.slice(begin, end).str());
    last = end;
  }
  EXPECT_EQ(last, text.size()) << "unmatched tail in '" << text.str() << "'";
  return pieces;
}

using Pieces = std::vector<std::string>;

TEST(SplitPatternsTest, RecognizesOnlyTheKnownRegexes) {
  for (SplitPattern pattern :
       {SplitPattern::Gpt2, SplitPattern::Llama3, SplitPattern::Qwen2})
    EXPECT_EQ(recognizeSplitPattern(getSplitPatternRegex(pattern)), pattern);
  EXPECT_EQ(recognizeSplitPattern(R"(\p{L}+|\s+)"), std::nullopt);
}

TEST(SplitPatternsTest, WordsTakeTheirLeadingSpace) {
  EXPECT_EQ(split(SplitPattern::Qwen2, "Hello world!"),
            (Pieces{"Hello", " world", "!"}));
  EXPECT_EQ(split(SplitPattern::Gpt2, "Hello world!"),
            (Pieces{"Hello", " world", "!"}));
  // Any single non-letter, non-digit, non-newline leads a word in Llama 3.
  EXPECT_EQ(split(SplitPattern::Llama3, "(hi\tyou"), (Pieces{"(hi", "\tyou"}));
  EXPECT_EQ(split(SplitPattern::Gpt2, "(hi\tyou"),
            (Pieces{"(", "hi", "\t", "you"}));
}

TEST(SplitPatternsTest, SpaceRunsLeaveTheirLastSpaceToTheNextWord) {
  EXPECT_EQ(split(SplitPattern::Qwen2, "a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(split(SplitPattern::Gpt2, "a   b"), (Pieces{"a", "  ", " b"}));
  // At the end of the text the whole run is one piece.
  EXPECT_EQ(split(SplitPattern::Qwen2, "end   "), (Pieces{"end", "   "}));
  EXPECT_EQ(split(SplitPattern::Qwen2, "   "), (Pieces{"   "}));
}

TEST(SplitPatternsTest, LineBreaksEndTheirWhiteSpaceRun) {
  // `\s*[\r\n]+` ends at the run's last line break; `\s+(?!\S)` then
  // leaves one space for the word.
  EXPECT_EQ(split(SplitPattern::Llama3, "x\n\n  y"),
            (Pieces{"x", "\n\n", " ", " y"}));
  EXPECT_EQ(split(SplitPattern::Qwen2, "a \r\n b"),
            (Pieces{"a", " \r\n", " b"}));
  // Punctuation keeps the line breaks that follow it.
  EXPECT_EQ(split(SplitPattern::Llama3, "!!\n\nx"), (Pieces{"!!\n\n", "x"}));
  // GPT-2 has no line-break rule.
  EXPECT_EQ(split(SplitPattern::Gpt2, "x\n\n  y"),
            (Pieces{"x", "\n\n ", " y"}));
}

TEST(SplitPatternsTest, DigitsGroupByPattern) {
  EXPECT_EQ(split(SplitPattern::Llama3, "12345"), (Pieces{"123", "45"}));
  EXPECT_EQ(split(SplitPattern::Qwen2, "123"), (Pieces{"1", "2", "3"}));
  EXPECT_EQ(split(SplitPattern::Gpt2, "a 12345"), (Pieces{"a", " 12345"}));
  // \p{N} includes other scripts' digits and numerals such as Ⅻ.
  EXPECT_EQ(split(SplitPattern::Llama3, "٣٤Ⅻ"), (Pieces{"٣٤Ⅻ"}));
}

TEST(SplitPatternsTest, ContractionsFollowCaseRules) {
  EXPECT_EQ(split(SplitPattern::Llama3, "I'M you'll"),
            (Pieces{"I", "'M", " you", "'ll"}));
  EXPECT_EQ(split(SplitPattern::Gpt2, "I'M you'll"),
            (Pieces{"I", "'", "M", " you", "'ll"}));
  // Case-insensitive 's' also matches U+017F, which folds to it.
  EXPECT_EQ(split(SplitPattern::Qwen2, "it'\u017F"), (Pieces{"it", "'\u017F"}));
  // A quote before a non-contraction leads the word.
  EXPECT_EQ(split(SplitPattern::Qwen2, "'hello"), (Pieces{"'hello"}));
}

TEST(SplitPatternsTest, UnicodeWhiteSpaceIsSpace) {
  // U+3000 IDEOGRAPHIC SPACE is \s; U+200B ZERO WIDTH SPACE is not.
  EXPECT_EQ(split(SplitPattern::Qwen2, "a\u3000b"), (Pieces{"a", "\u3000b"}));
  EXPECT_EQ(split(SplitPattern::Gpt2, "a\u3000b"),
            (Pieces{"a", "\u3000", "b"}));
  EXPECT_EQ(split(SplitPattern::Qwen2, "a\u200Bb"), (Pieces{"a", "\u200Bb"}));
  EXPECT_EQ(split(SplitPattern::Qwen2, "你好，世界"),
            (Pieces{"你好", "，世界"}));
}

} // namespace
} // namespace llmc::tokenizer
