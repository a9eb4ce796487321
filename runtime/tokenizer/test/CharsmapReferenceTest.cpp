//===- CharsmapReferenceTest.cpp - Precompiled against SentencePiece ------===//
//
// data/charsmap holds a tiny Unigram model that SentencePiece trained with
// its nmt_nfkc rules, as a tokenizer.json with a Precompiled normalizer, and
// SentencePiece's own ids for refdata's corpus, scripts_corpus.jsonl and
// charsmap_corpus.jsonl (full-width ASCII, ligatures, compatibility
// characters, odd spaces, control characters, combining sequences), all
// written by tools/tokenizers/make_charsmap_refs.py.
//
// Measured: llmc gives SentencePiece's ids on 192 of the 192 lines; without
// the map 124 lines differ. Hugging Face's tokenizers gives them on 188
// (tools/tokenizers/check_refs_with_hf.js; see PrecompiledCharsmap.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Tokenizer.h"

#include "support/File.h"

#include "gtest/gtest.h"

#include <nlohmann/json.hpp>

namespace llmc::tokenizer {
namespace {

constexpr std::string_view kDataDir = "runtime/tokenizer/test/data/charsmap/";

struct Reference {
  std::string text;
  /// The ids, then any segmentation that ties with them in score.
  std::vector<std::vector<int32_t>> accepted;
};

std::string readData(std::string_view name) {
  std::string path = support::strCat(kDataDir, name);
  absl::StatusOr<std::string> text = support::readFile(path);
  if (!text.ok())
    ADD_FAILURE() << path << ": " << text.status().message();
  return text.ok() ? *text : "";
}

std::vector<Reference> readReferences() {
  std::vector<Reference> references;
  std::string text = readData("refs.jsonl");
  for (std::string_view rest = text; !rest.empty();) {
    size_t end = std::min(rest.find('\n'), rest.size());
    if (end > 0) {
      nlohmann::json line = nlohmann::json::parse(rest.substr(0, end));
      Reference reference{line["text"], {line["ids"]}};
      for (const nlohmann::json &tie : line.value("ties", nlohmann::json()))
        reference.accepted.push_back(tie);
      references.push_back(std::move(reference));
    }
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return references;
}

/// The lines `tokenizer` encodes as SentencePiece does; prints the others
/// when `report` is set.
size_t countMatches(const Tokenizer &tokenizer,
                    const std::vector<Reference> &references, bool report) {
  size_t matches = 0;
  for (const Reference &reference : references) {
    std::vector<int32_t> ids = tokenizer.encode(reference.text);
    if (std::find(reference.accepted.begin(), reference.accepted.end(), ids) !=
        reference.accepted.end()) {
      ++matches;
      continue;
    }
    if (report)
      ADD_FAILURE() << "differs from SentencePiece: "
                    << nlohmann::json(reference.text).dump();
  }
  return matches;
}

TEST(CharsmapReferenceTest, IdsAreSentencePieces) {
  std::string json = readData("tokenizer.json");
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromJson(json, "charsmap/tokenizer.json");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  std::vector<Reference> references = readReferences();
  ASSERT_EQ(references.size(), 192u);
  EXPECT_EQ(countMatches(**tokenizer, references, /*report=*/true),
            references.size());
}

TEST(CharsmapReferenceTest, TheMapMatters) {
  // The same tokenizer without its Precompiled step must miss lines, or the
  // test above would not see a broken map.
  nlohmann::json file = nlohmann::json::parse(readData("tokenizer.json"));
  nlohmann::json &steps = file["normalizer"]["normalizers"];
  ASSERT_EQ(steps[0]["type"], "Precompiled");
  steps.erase(0);
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromJson(file.dump(), "without-map.json");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  std::vector<Reference> references = readReferences();
  EXPECT_EQ(countMatches(**tokenizer, references, /*report=*/false),
            references.size() - 124);
}

} // namespace
} // namespace llmc::tokenizer
