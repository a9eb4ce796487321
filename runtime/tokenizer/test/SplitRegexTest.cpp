//===- SplitRegexTest.cpp - split patterns run by PCRE2 -------------------===//
//
// Expected pieces follow the regexes' leftmost-first, backtracking semantics
// (Oniguruma's, which the reference library uses), on the patterns real
// tokenizer.json files carry.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/SplitRegex.h"

#include "gtest/gtest.h"

#include <string_view>

namespace llmc::tokenizer {
namespace {

constexpr std::string_view kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
/// GPT-4o's (o200k): case runs split inside words, contractions trail them.
constexpr std::string_view kGpt4o =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::vector<std::string> split(std::string_view pattern,
                               std::string_view text) {
  absl::StatusOr<std::shared_ptr<const SplitRegex>> compiled =
      SplitRegex::compile(pattern);
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  if (!compiled.ok())
    return {};
  std::shared_ptr<const SplitRegex> regex = *compiled;
  std::vector<std::string> pieces;
  size_t last = 0;
  for (auto [begin, end] : regex->findMatches(text)) {
    EXPECT_EQ(begin, last) << "a gap before a match in '" << text << "'";
    pieces.push_back(std::string(text.substr(begin, end - begin)));
    last = end;
  }
  EXPECT_EQ(last, text.size()) << "unmatched tail in '" << text << "'";
  return pieces;
}

using Pieces = std::vector<std::string>;

TEST(SplitRegexTest, ABadPatternNamesWhereItFails) {
  absl::StatusOr<std::shared_ptr<const SplitRegex>> regex =
      SplitRegex::compile(R"(\p{L}+|(\s+)");
  ASSERT_FALSE(regex.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(regex.status()));
  std::string message(regex.status().message());
  EXPECT_NE(message.find(
                "does not compile at offset 11: missing closing parenthesis"),
            std::string::npos)
      << message;
}

TEST(SplitRegexTest, EmptyMatchesAreSkipped) {
  std::shared_ptr<const SplitRegex> regex = SplitRegex::compile("x*").value();
  EXPECT_EQ(regex->findMatches("axxb\u00e9x"),
            (std::vector<std::pair<size_t, size_t>>{{1, 3}, {6, 7}}));
}

TEST(SplitRegexTest, CatastrophicBacktrackingStopsInsteadOfHanging) {
  std::shared_ptr<const SplitRegex> regex =
      SplitRegex::compile("(a|aa)+b|c").value();
  // Each start would try 2^64 ways to split the run before giving up on
  // "b"; the limit ends the search at the first.
  EXPECT_TRUE(regex->findMatches(std::string(64, 'a') + "c").empty());
}

TEST(SplitRegexTest, IllFormedUtf8MatchesNothing) {
  EXPECT_TRUE(SplitRegex::getGpt2().findMatches("ok \xff").empty());
}

TEST(SplitRegexTest, CaseRunsSplitWordsInGpt4o) {
  EXPECT_EQ(split(kGpt4o, "HelloWorld's JSONParser"),
            (Pieces{"Hello", "World's", " JSONParser"}));
  // A single non-letter leads a word; punctuation keeps the slashes and
  // line breaks after it.
  EXPECT_EQ(split(kGpt4o, "path/to\n"), (Pieces{"path", "/to", "\n"}));
  EXPECT_EQ(split(kGpt4o, "a.//\nb"), (Pieces{"a", ".//\n", "b"}));
}

TEST(SplitRegexTest, WordsTakeTheirLeadingSpace) {
  EXPECT_EQ(split(kQwen2, "Hello world!"), (Pieces{"Hello", " world", "!"}));
  EXPECT_EQ(split(kGpt2, "Hello world!"), (Pieces{"Hello", " world", "!"}));
  // Any single non-letter, non-digit, non-newline leads a word in Llama 3.
  EXPECT_EQ(split(kLlama3, "(hi\tyou"), (Pieces{"(hi", "\tyou"}));
  EXPECT_EQ(split(kGpt2, "(hi\tyou"), (Pieces{"(", "hi", "\t", "you"}));
}

TEST(SplitRegexTest, SpaceRunsLeaveTheirLastSpaceToTheNextWord) {
  EXPECT_EQ(split(kQwen2, "a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(split(kGpt2, "a   b"), (Pieces{"a", "  ", " b"}));
  // At the end of the text the whole run is one piece.
  EXPECT_EQ(split(kQwen2, "end   "), (Pieces{"end", "   "}));
  EXPECT_EQ(split(kQwen2, "   "), (Pieces{"   "}));
}

TEST(SplitRegexTest, LineBreaksEndTheirWhiteSpaceRun) {
  // `\s*[\r\n]+` ends at the run's last line break; `\s+(?!\S)` then
  // leaves one space for the word.
  EXPECT_EQ(split(kLlama3, "x\n\n  y"), (Pieces{"x", "\n\n", " ", " y"}));
  EXPECT_EQ(split(kQwen2, "a \r\n b"), (Pieces{"a", " \r\n", " b"}));
  // Punctuation keeps the line breaks that follow it.
  EXPECT_EQ(split(kLlama3, "!!\n\nx"), (Pieces{"!!\n\n", "x"}));
  // GPT-2 has no line-break rule.
  EXPECT_EQ(split(kGpt2, "x\n\n  y"), (Pieces{"x", "\n\n ", " y"}));
}

TEST(SplitRegexTest, DigitsGroupByPattern) {
  EXPECT_EQ(split(kLlama3, "12345"), (Pieces{"123", "45"}));
  EXPECT_EQ(split(kQwen2, "123"), (Pieces{"1", "2", "3"}));
  EXPECT_EQ(split(kGpt2, "a 12345"), (Pieces{"a", " 12345"}));
  // \p{N} includes other scripts' digits and numerals such as Ⅻ.
  EXPECT_EQ(split(kLlama3, "٣٤Ⅻ"), (Pieces{"٣٤Ⅻ"}));
}

TEST(SplitRegexTest, ContractionsFollowCaseRules) {
  EXPECT_EQ(split(kLlama3, "I'M you'll"), (Pieces{"I", "'M", " you", "'ll"}));
  EXPECT_EQ(split(kGpt2, "I'M you'll"), (Pieces{"I", "'", "M", " you", "'ll"}));
  // Case-insensitive 's' also matches U+017F, which folds to it.
  EXPECT_EQ(split(kQwen2, "it'\u017F"), (Pieces{"it", "'\u017F"}));
  // A quote before a non-contraction leads the word.
  EXPECT_EQ(split(kQwen2, "'hello"), (Pieces{"'hello"}));
}

TEST(SplitRegexTest, UnicodeWhiteSpaceIsSpace) {
  // U+3000 IDEOGRAPHIC SPACE is \s; U+200B ZERO WIDTH SPACE is not.
  EXPECT_EQ(split(kQwen2, "a\u3000b"), (Pieces{"a", "\u3000b"}));
  EXPECT_EQ(split(kGpt2, "a\u3000b"), (Pieces{"a", "\u3000", "b"}));
  EXPECT_EQ(split(kQwen2, "a\u200Bb"), (Pieces{"a", "\u200Bb"}));
  EXPECT_EQ(split(kQwen2, "你好，世界"), (Pieces{"你好", "，世界"}));
}

} // namespace
} // namespace llmc::tokenizer
