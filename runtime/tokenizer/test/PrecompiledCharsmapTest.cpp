//===- PrecompiledCharsmapTest.cpp - SentencePiece's compiled rules -------===//
//
// The Precompiled normalizer: a hand-laid trie whose every rule is known,
// the nmt_nfkc rules of data/charsmap/tokenizer.json (compiled by
// SentencePiece), the loader's errors, and truncated, corrupted and random
// maps, which must be errors or maps that keep text well-formed, never
// reads out of bounds.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/PrecompiledCharsmap.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/Utf8.h"

#include "support/File.h"
#include "support/Strings.h"

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <nlohmann/json.hpp>

#include <random>

namespace llmc::tokenizer {
namespace {

constexpr std::string_view kDataDir = "runtime/tokenizer/test/data/";

/// The bytes of a map: the trie's byte size, its units, the replacements.
std::string makeCharsmap(const std::vector<uint32_t> &units,
                         std::string_view replacements) {
  std::string bytes;
  auto appendUint32 = [&](uint32_t value) {
    for (int i = 0; i < 4; ++i)
      bytes += static_cast<char>((value >> (8 * i)) & 0xFF);
  };
  appendUint32(static_cast<uint32_t>(units.size() * 4));
  for (uint32_t unit : units)
    appendUint32(unit);
  return bytes.append(replacements);
}

/// A darts-clone node reached by `label`, whose children sit at its index
/// XOR `base`; `hasValue` when a key ends there.
uint32_t makeNode(unsigned char label, uint32_t base, bool hasValue) {
  return label | (hasValue ? 1u << 8 : 0) | base << 10;
}

uint32_t makeValue(uint32_t replacementStart) {
  return replacementStart | 1u << 31;
}

/// Rules "a" -> "x", "ab" -> "yz", "\xC3" -> "?" (a key that ends inside a
/// character) and "é" (C3 A9) -> "e", laid out by hand.
std::string makeExampleCharsmap() {
  std::vector<uint32_t> units(188, 0);
  units[0] = makeNode(0, 0x60, false);     // the root: children at 0x60 ^ c
  units[1] = makeNode('a', 0x11, true);    // 0x60 ^ 'a'; node 1 ^ 0x11 = 16
  units[16] = makeValue(0);                // "x"
  units[114] = makeNode('b', 0x63, true);  // 16 ^ 'b'; node 114 ^ 0x63 = 17
  units[17] = makeValue(2);                // "yz"
  units[163] = makeNode(0xC3, 0xB1, true); // 0x60 ^ 0xC3; node 18
  units[18] = makeValue(5);                // "?"
  units[187] = makeNode(0xA9, 0xA8, true); // 18 ^ 0xA9; node 19
  units[19] = makeValue(7);                // "e"
  return makeCharsmap(units, std::string_view("x\0yz\0?\0e\0", 9));
}

/// The map of data/charsmap/tokenizer.json, decoded.
std::string readNmtNfkcCharsmap() {
  std::string path = std::string(kDataDir) + "charsmap/tokenizer.json";
  absl::StatusOr<std::string> text = support::readFile(path);
  if (!text.ok()) {
    ADD_FAILURE() << path << ": " << text.status().message();
    return {};
  }
  nlohmann::json tokenizer = nlohmann::json::parse(*text);
  std::string bytes;
  EXPECT_TRUE(absl::Base64Unescape(
      tokenizer["normalizer"]["normalizers"][0]["precompiled_charsmap"]
          .get<std::string>(),
      &bytes));
  return bytes;
}

/// Lines of data/charsmap_corpus.jsonl: what the fuzzed maps rewrite.
std::vector<std::string> readCharsmapCorpus() {
  std::string path = std::string(kDataDir) + "charsmap_corpus.jsonl";
  absl::StatusOr<std::string> text = support::readFile(path);
  if (!text.ok()) {
    ADD_FAILURE() << path << ": " << text.status().message();
    return {};
  }
  std::vector<std::string> lines;
  for (std::string_view rest = *text; !rest.empty();) {
    size_t end = std::min(rest.find('\n'), rest.size());
    if (end > 0)
      lines.push_back(
          nlohmann::json::parse(rest.substr(0, end)).get<std::string>());
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return lines;
}

TEST(PrecompiledCharsmapTest, AppliesTheLongestRuleAtEachPosition) {
  absl::StatusOr<PrecompiledCharsmap> charsmap =
      PrecompiledCharsmap::parse(makeExampleCharsmap());
  ASSERT_TRUE(charsmap.ok()) << charsmap.status().message();
  EXPECT_EQ(charsmap->normalize("abac"), "yzxc");
  EXPECT_EQ(charsmap->normalize("aab"), "xyz");
  EXPECT_EQ(charsmap->normalize("b é c"), "b e c");
  // "\xC3" is a rule, but it would split "ê" (C3 AA): copied whole.
  EXPECT_EQ(charsmap->normalize("ê"), "ê");
  EXPECT_EQ(charsmap->normalize(""), "");
  // NUL ends SentencePiece's keys; it is copied like any character.
  EXPECT_EQ(charsmap->normalize(std::string_view("a\0a", 3)),
            std::string_view("x\0x", 3));
}

TEST(PrecompiledCharsmapTest, NmtNfkcRules) {
  absl::StatusOr<PrecompiledCharsmap> charsmap =
      PrecompiledCharsmap::parse(readNmtNfkcCharsmap());
  ASSERT_TRUE(charsmap.ok()) << charsmap.status().message();
  EXPECT_EQ(charsmap->normalize("ＡＢＣ１２３"), "ABC123");
  EXPECT_EQ(charsmap->normalize("ﬁ ① ㍿ ½"), "fi 1 株式会社 1⁄2");
  EXPECT_EQ(charsmap->normalize("a\u00A0b\u3000c\td\ne"), "a b c d e");
  EXPECT_EQ(charsmap->normalize("a\u0001b\u007Fc"), "abc");
  // Sequences longer than one character compose; Hugging Face's grapheme
  // walk gives "A" and leaves the Hangul jamo alone.
  EXPECT_EQ(charsmap->normalize("Ａ\u0301"), "Á");
  EXPECT_EQ(charsmap->normalize("\u1112\u1161\u11AB"), "한");
}

TEST(PrecompiledCharsmapTest, MalformedMapsSayWhatIsWrong) {
  auto parseError = [](std::string_view bytes) {
    absl::StatusOr<PrecompiledCharsmap> charsmap =
        PrecompiledCharsmap::parse(bytes);
    EXPECT_TRUE(absl::IsInvalidArgument(charsmap.status()));
    return std::string(charsmap.status().message());
  };
  EXPECT_EQ(parseError("ab"), "has 2 bytes, too few for the trie's size");
  EXPECT_EQ(parseError(std::string_view("\0\0\0\0x\0", 6)),
            "gives the trie 0 bytes, not a positive multiple of 4");
  EXPECT_EQ(parseError(std::string_view("\6\0\0\0\0\0\0\0\0\0", 10)),
            "gives the trie 6 bytes, not a positive multiple of 4");
  EXPECT_EQ(parseError(std::string_view("\x08\0\0\0\0\0\0\0", 8)),
            "gives the trie 8 bytes, but only 4 follow");
  EXPECT_EQ(parseError(std::string_view("\xFC\xFF\xFF\xFF\0\0\0\0", 8)),
            "gives the trie 4294967292 bytes, but only 4 follow");
  EXPECT_EQ(parseError(makeCharsmap({0}, "x")),
            "does not end its last replacement with a NUL byte");
  EXPECT_EQ(parseError(makeCharsmap({0}, std::string_view("\xC3\0", 2))),
            "has replacements that are not valid UTF-8");
  // "a" leads to node 1 ^ 0x11 = 16, past the two units.
  EXPECT_EQ(parseError(makeCharsmap(
                {makeNode(0, 0x60, false), makeNode('a', 0x11, true)},
                std::string_view("x\0", 2))),
            "has a trie unit 1 whose value unit is missing");
  EXPECT_EQ(parseError(makeCharsmap({makeNode(0, 0x60, false),
                                     makeNode('a', 2, true), 0, makeValue(9)},
                                    std::string_view("x\0", 2))),
            "has a rule whose replacement starts at byte 9 of 2, not at a "
            "character");
  EXPECT_EQ(parseError(makeCharsmap({makeNode(0, 0x60, false),
                                     makeNode('a', 2, true), 0, makeValue(1)},
                                    std::string_view("é\0", 3))),
            "has a rule whose replacement starts at byte 1 of 3, not at a "
            "character");
}

/// Parses `bytes`; when they parse, every corpus line must come out as
/// well-formed UTF-8 (reads out of bounds show under the sanitizers, and as
/// crashes or garbage without them).
void expectErrorOrWellFormed(std::string_view bytes,
                             const std::vector<std::string> &corpus) {
  absl::StatusOr<PrecompiledCharsmap> charsmap =
      PrecompiledCharsmap::parse(bytes);
  if (!charsmap.ok())
    return;
  for (const std::string &line : corpus)
    EXPECT_TRUE(isValidUtf8(charsmap->normalize(line))) << line;
}

TEST(PrecompiledCharsmapTest, TruncatedMapsAreErrorsOrHarmless) {
  std::string bytes = readNmtNfkcCharsmap();
  std::vector<std::string> corpus = readCharsmapCorpus();
  ASSERT_FALSE(bytes.empty());
  for (size_t length = 0; length < bytes.size(); ++length)
    expectErrorOrWellFormed(std::string_view(bytes).substr(0, length), corpus);
}

TEST(PrecompiledCharsmapTest, CorruptedMapsAreErrorsOrHarmless) {
  std::string original = readNmtNfkcCharsmap();
  std::vector<std::string> corpus = readCharsmapCorpus();
  ASSERT_FALSE(original.empty());
  std::mt19937 random(20240601);
  auto below = [&](size_t bound) {
    return std::uniform_int_distribution<size_t>(0, bound - 1)(random);
  };
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = original;
    // Change 1 to 4 bytes anywhere, header included.
    for (size_t changes = 1 + below(4); changes > 0; --changes)
      bytes[below(bytes.size())] = static_cast<char>(below(256));
    parsed += PrecompiledCharsmap::parse(bytes).ok();
    expectErrorOrWellFormed(bytes, corpus);
  }
  // A quarter of the corruptions (812 of 3000) still parse: those must be
  // safe to walk.
  EXPECT_GT(parsed, 500);

  for (int round = 0; round < 3000; ++round) {
    // Random units behind a header that fits, so that walks do start.
    size_t trieBytes = 4 * (1 + below(64));
    std::string bytes(4 + trieBytes + below(16), '\0');
    for (char &byte : bytes)
      byte = static_cast<char>(below(256));
    for (int i = 0; i < 4; ++i)
      bytes[i] = static_cast<char>((trieBytes >> (8 * i)) & 0xFF);
    if (below(2))
      bytes.back() = '\0';
    expectErrorOrWellFormed(bytes, corpus);
  }
}

//===----------------------------------------------------------------------===//
// In a tokenizer.json
//===----------------------------------------------------------------------===//

/// A Unigram tokenizer.json over x, yz, c whose normalizer is `normalizer`.
std::string makeTokenizerJson(std::string_view normalizer) {
  return support::strCat(
      R"({"normalizer": )", normalizer,
      R"(, "model": {"type": "Unigram", "unk_id": 0, "vocab": [
           ["<unk>", 0], ["x", -1], ["yz", -1], ["c", -1]]}})");
}

std::string makePrecompiledJson(std::string_view bytes) {
  return support::strCat(R"({"type": "Precompiled", "precompiled_charsmap": ")",
                         absl::Base64Escape(std::string(bytes)), R"("})");
}

std::string loadError(std::string_view normalizer) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromJson(makeTokenizerJson(normalizer), "bad.json");
  EXPECT_TRUE(absl::IsInvalidArgument(tokenizer.status()));
  return std::string(tokenizer.status().message());
}

TEST(PrecompiledCharsmapTest, NormalizesAloneAndInASequence) {
  std::string precompiled = makePrecompiledJson(makeExampleCharsmap());
  for (const std::string &normalizer :
       {precompiled, support::strCat(R"({"type": "Sequence", "normalizers": [)",
                                     precompiled, R"(, {"type": "NFC"}]})")}) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
        Tokenizer::fromJson(makeTokenizerJson(normalizer), "test.json");
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
    // "abac" normalizes to "yzxc".
    EXPECT_EQ((*tokenizer)->encode("abac"), (std::vector<int32_t>{2, 1, 3}));
  }
}

TEST(PrecompiledCharsmapTest, LoaderErrorsNameTheFileAndTheField) {
  EXPECT_EQ(loadError(R"({"type": "Precompiled"})"),
            "bad.json: normalizer.precompiled_charsmap is missing");
  EXPECT_EQ(loadError(R"({"type": "Precompiled",
                          "precompiled_charsmap": "not base64!"})"),
            "bad.json: normalizer.precompiled_charsmap is not valid base64");
  EXPECT_EQ(
      loadError(makePrecompiledJson(std::string_view("\x08\0\0\0\0\0\0\0", 8))),
      "bad.json: normalizer.precompiled_charsmap is not a "
      "SentencePiece map: it gives the trie 8 bytes, but only 4 follow");
  EXPECT_EQ(loadError(support::strCat(
                R"({"type": "Sequence", "normalizers": [{"type": "NFKC"}, )",
                makePrecompiledJson(""), "]}")),
            "bad.json: normalizer.normalizers[1].precompiled_charsmap is not a "
            "SentencePiece map: it has 0 bytes, too few for the trie's size");
}

} // namespace
} // namespace llmc::tokenizer
