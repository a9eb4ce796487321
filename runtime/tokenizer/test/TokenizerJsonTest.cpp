//===- TokenizerJsonTest.cpp - tokenizer.json features and errors ---------===//
//
// Small hand-written tokenizer.json files, each exercising one feature of the
// format or one way a file can be malformed.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Tokenizer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <string_view>

namespace llmc::tokenizer {
namespace {

using Ids = std::vector<int32_t>;

std::unique_ptr<Tokenizer> load(std::string_view json) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromJson(json, "test.json");
  if (!tokenizer.ok()) {
    ADD_FAILURE() << tokenizer.status().message();
    return nullptr;
  }
  return std::move(*tokenizer);
}

std::string loadError(std::string_view json) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromJson(json, "bad.json");
  if (tokenizer.ok()) {
    ADD_FAILURE() << "expected an error for " << json;
    return {};
  }
  EXPECT_TRUE(absl::IsInvalidArgument(tokenizer.status()));
  return std::string(tokenizer.status().message());
}

/// A character-level BPE over a, b, c with the given extra model fields.
std::string charModel(std::string_view merges, std::string_view extra = "") {
  return std::string(
             R"({"model": {"type": "BPE", "vocab": {"<unk>": 0, "a": 1, "b": 2,
           "c": 3, "ab": 4, "bc": 5, "abc": 6, " ": 7, "<s>": 8},
           "merges": )")
      .append(merges)
      .append(extra)
      .append("}");
}

TEST(TokenizerJsonTest, MergesApplyInRankOrder) {
  auto bcFirst = load(charModel(R"(["b c", "a b"]})"));
  auto abFirst = load(charModel(R"(["a b", "b c"]})"));
  ASSERT_TRUE(bcFirst && abFirst);
  EXPECT_EQ(bcFirst->encode("abc"), (Ids{1, 5}));
  EXPECT_EQ(abFirst->encode("abc"), (Ids{4, 3}));
  // The pair form of merges means the same.
  auto pairs = load(charModel(R"([["b", "c"], ["a", "b"]]})"));
  ASSERT_TRUE(pairs);
  EXPECT_EQ(pairs->encode("abcabc"), bcFirst->encode("abcabc"));
}

TEST(TokenizerJsonTest, IgnoreMergesTakesWholeVocabularyWords) {
  auto merging = load(charModel(R"(["a b"]})"));
  auto ignoring = load(charModel(R"(["a b"], "ignore_merges": true})"));
  ASSERT_TRUE(merging && ignoring);
  EXPECT_EQ(merging->encode("abc"), (Ids{4, 3}));
  EXPECT_EQ(ignoring->encode("abc"), (Ids{6}));
}

TEST(TokenizerJsonTest, UnknownCharactersBecomeTheUnknownToken) {
  auto separate = load(charModel(R"([], "unk_token": "<unk>"})"));
  auto fused =
      load(charModel(R"([], "unk_token": "<unk>", "fuse_unk": true})"));
  auto dropped = load(charModel("[]}"));
  ASSERT_TRUE(separate && fused && dropped);
  EXPECT_EQ(separate->encode("axyb"), (Ids{1, 0, 0, 2}));
  EXPECT_EQ(fused->encode("axyb"), (Ids{1, 0, 2}));
  EXPECT_EQ(dropped->encode("axyb"), (Ids{1, 2}));
}

TEST(TokenizerJsonTest, ByteFallbackSpellsUnknownCharactersAsBytes) {
  auto tokenizer = load(R"({
    "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": true,
      "vocab": {"<unk>": 0, "a": 1, "<0xC3>": 2, "<0xA9>": 3}, "merges": []},
    "decoder": {"type": "Sequence", "decoders": [
      {"type": "ByteFallback"}, {"type": "Fuse"}]}})");
  ASSERT_TRUE(tokenizer);
  // é is C3 A9; 中 has bytes the vocabulary lacks.
  EXPECT_EQ(tokenizer->encode("a\u00E9\u4E2D"), (Ids{1, 2, 3, 0}));
  EXPECT_EQ(tokenizer->decode({1, 2, 3}), "a\u00E9");
  // A lone lead byte cannot be decoded: HF shows one U+FFFD per byte.
  EXPECT_EQ(tokenizer->decode({2, 1}), "\uFFFDa");
}

TEST(TokenizerJsonTest, AddedTokensAreFoundBeforeTheModel) {
  auto tokenizer = load(charModel(R"(["a b"]}, "added_tokens": [
      {"id": 8, "content": "<s>", "special": true},
      {"id": 9, "content": "<m>", "special": false, "normalized": false,
       "lstrip": true, "rstrip": true},
      {"id": 10, "content": "ab", "special": false, "normalized": false,
       "single_word": true}],
    "post_processor": {"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}}],
      "special_tokens": {"<s>": {"id": "<s>", "ids": [8], "tokens": ["<s>"]}}}
    )"));
  ASSERT_TRUE(tokenizer);
  EXPECT_EQ(tokenizer->encode("a<s>b"), (Ids{1, 8, 2}));
  // lstrip and rstrip absorb the spaces around the token.
  EXPECT_EQ(tokenizer->encode("a  <m>  b"), (Ids{1, 9, 2}));
  // A single-word token does not match inside a word.
  EXPECT_EQ(tokenizer->encode("ab abc"), (Ids{10, 7, 4, 3}));
  EXPECT_EQ(tokenizer->encode("b", /*addSpecialTokens=*/true), (Ids{8, 2}));
  EXPECT_TRUE(tokenizer->isSpecial(8));
  EXPECT_FALSE(tokenizer->isSpecial(9));
  EXPECT_EQ(tokenizer->decode({8, 1}), "<s> a");
  EXPECT_EQ(tokenizer->decode({8, 1}, /*skipSpecial=*/true), "a");
  EXPECT_EQ(tokenizer->tokenToId("<m>"), 9);
  EXPECT_EQ(tokenizer->tokenToId("abc"), 6);
  EXPECT_EQ(tokenizer->tokenToId("zz"), std::nullopt);
  EXPECT_EQ(tokenizer->idToToken(9), "<m>");
  EXPECT_EQ(tokenizer->idToToken(99), "");
  EXPECT_EQ(tokenizer->vocabSize(), 11);
  EXPECT_TRUE(tokenizer->encode("").empty());
}

TEST(TokenizerJsonTest, SpecialTokensInPlainTextAreText) {
  auto tokenizer = load(charModel(R"([]}, "added_tokens": [
      {"id": 8, "content": "<s>", "special": true},
      {"id": 9, "content": "<m>", "special": false}])"));
  ASSERT_TRUE(tokenizer);
  auto count = [](const Ids &ids, int32_t id) {
    return std::count(ids.begin(), ids.end(), id);
  };
  // Only the special token that overlaps a plain range becomes text; the
  // non-special one is an added token anywhere.
  Ids ids = tokenizer->encode("<s>a<s><m>", false, {{0, 1}});
  EXPECT_EQ(count(ids, 8), 1);
  EXPECT_EQ(ids[ids.size() - 2], 8);
  EXPECT_EQ(ids.back(), 9);
  ids = tokenizer->encode("<s>a<s><m>", false, {{2, 6}});
  EXPECT_EQ(count(ids, 8), 0);
  EXPECT_EQ(count(ids, 9), 1);
  // Ranges follow their bytes when ill-formed UTF-8 before them is
  // repaired (each 0xff becomes a 3-byte U+FFFD).
  ids = tokenizer->encode("\xff\xff<s>", false, {{2, 5}});
  EXPECT_EQ(count(ids, 8), 0);
  EXPECT_EQ(count(tokenizer->encode("\xff\xff<s>"), 8), 1);
}

TEST(TokenizerJsonTest, NfcComposesBeforeMatchingNormalizedTokens) {
  // The added tokens are the composed "é"; the input spells it decomposed.
  auto tokenizer = load(R"({"normalizer": {"type": "NFC"},
    "model": {"type": "BPE", "vocab": {"e": 0, "\u0301": 1, "\u00E9": 2},
      "merges": []},
    "added_tokens": [{"id": 3, "content": "\u00E9\u00E9", "special": false,
                      "normalized": true}]})");
  ASSERT_TRUE(tokenizer);
  EXPECT_EQ(tokenizer->encode("e\u0301"), (Ids{2}));
  EXPECT_EQ(tokenizer->encode("e\u0301e\u0301"), (Ids{3}));
}

TEST(TokenizerJsonTest, MetaspaceMarksWordStarts) {
  auto tokenizer = load(R"({
    "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                      "prepend_scheme": "first", "split": true},
    "decoder": {"type": "Metaspace", "replacement": "\u2581",
                "prepend_scheme": "first", "split": true},
    "model": {"type": "BPE", "ignore_merges": true, "merges": [],
      "vocab": {"\u2581hi": 0, "\u2581there": 1, "hi": 2, "<s>": 3}},
    "added_tokens": [{"id": 3, "content": "<s>", "special": true}]})");
  ASSERT_TRUE(tokenizer);
  EXPECT_EQ(tokenizer->encode("hi there"), (Ids{0, 1}));
  // The "first" scheme prepends only at the start of the input.
  EXPECT_EQ(tokenizer->encode("<s>hi"), (Ids{3, 2}));
  EXPECT_EQ(tokenizer->decode({0, 1}), "hi there");
}

TEST(TokenizerJsonTest, MalformedFilesNameTheFileAndTheField) {
  EXPECT_THAT(loadError("{"),
              ::testing::StartsWith("bad.json: not valid JSON: [1:1"));
  EXPECT_EQ(loadError("[]"), "bad.json: not a JSON object");
  EXPECT_EQ(loadError("{}"), "bad.json: model is missing");
  EXPECT_EQ(loadError(R"({"model": {"type": "WordPiece", "vocab": {}}})"),
            "bad.json: model.type 'WordPiece' is not supported (supported: "
            "BPE, Unigram)");
  EXPECT_EQ(loadError(R"({"model": {"type": "Unigram", "vocab": []}})"),
            "bad.json: model.vocab is empty");
  EXPECT_EQ(
      loadError(R"({"model": {"type": "Unigram", "vocab": [["a", "x"]]}})"),
      "bad.json: model.vocab[0] must be [\"token\", score]");
  EXPECT_EQ(loadError(R"({"model": {"type": "Unigram", "unk_id": 1,
                                    "vocab": [["a", -1.0]]}})"),
            "bad.json: model.unk_id 1 is not a token id");
  EXPECT_EQ(loadError(charModel(R"(["a b", "ab zz"]})")),
            "bad.json: model.merges[1] merges 'ab' and 'zz', but 'zz' is "
            "not in the vocabulary");
  EXPECT_EQ(loadError(charModel(R"(["a b c"]})")),
            "bad.json: model.merges[0] 'a b c' is not two tokens separated "
            "by a space");
  EXPECT_EQ(loadError(charModel(R"([], "unk_token": "[UNK]"})")),
            "bad.json: model.unk_token '[UNK]' is not in the vocabulary");
  EXPECT_EQ(loadError(charModel(R"([]}, "pre_tokenizer": {"type": "Split",
              "pattern": {"Regex": "(\\w+"}, "behavior": "Isolated"})")),
            "bad.json: pre_tokenizer.pattern regex '(\\w+' does not compile "
            "at offset 4: missing closing parenthesis");
  EXPECT_EQ(
      loadError(charModel(R"([]}, "normalizer": {"type": "BertNormalizer"})")),
      "bad.json: normalizer.type 'BertNormalizer' is not supported "
      "(supported: NFC, NFD, NFKC, NFKD, Lowercase, Strip, Prepend, "
      "Replace, Precompiled, Sequence)");
  EXPECT_EQ(loadError(charModel(R"([]}, "decoder": {"type": "Sequence",
              "decoders": [{"type": "Fuse"}, {"type": "WordPiece"}]})")),
            "bad.json: decoder.decoders[1].type 'WordPiece' is not supported "
            "(supported: ByteLevel, ByteFallback, Fuse, Strip, Replace, "
            "Metaspace, Sequence)");
  EXPECT_EQ(loadError(charModel(R"([]}, "added_tokens": [{"content": "x"}])")),
            "bad.json: added_tokens[0].id is missing");
  EXPECT_EQ(loadError(charModel(R"([]}, "added_tokens": [
              {"id": 100000, "content": "x", "special": true}])")),
            "bad.json: token ids are sparse: the largest is 100000 for 10 "
            "tokens");
}

TEST(TokenizerJsonTest, UnreadableFileIsNamed) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromFile("/nonexistent/tokenizer.json");
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_TRUE(absl::IsNotFound(tokenizer.status()));
  EXPECT_EQ(tokenizer.status().message(),
            "/nonexistent/tokenizer.json: cannot read: No such file or "
            "directory");
}

} // namespace
} // namespace llmc::tokenizer
