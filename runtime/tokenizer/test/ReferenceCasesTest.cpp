//===- ReferenceCasesTest.cpp - tokenizer variants against HF tokenizers --===//
//
// The cases of data/cases.json run a reference tokenizer.json with its
// own split pattern or with another that real files carry (GPT-4o's o200k, a
// Sequence of Splits, ByteLevel's use_regex), or with normalizers it lacks
// (Strip, Lowercase, a regex Replace), or a Unigram model over its vocabulary
// (with and without byte fallback), over refdata's corpus and
// data/scripts_corpus.jsonl (combining marks, Indic, Arabic, Hebrew, Thai,
// CJK, emoji, code); every line must give exactly the ids that Hugging
// Face's `tokenizers` library gave (data/case_refs.jsonl, written by
// tools/tokenizers/make_case_refs.js).
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/test/ReferenceData.h"
#include "tests/TestData.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <iostream>

namespace llmc::tokenizer {
namespace {

constexpr llvm::StringLiteral kDataDir = "runtime/tokenizer/test/data/";

llvm::json::Value readJson(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    ADD_FAILURE() << path.str() << ": " << buffer.getError().message();
    return nullptr;
  }
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*buffer)->getBuffer());
  if (!value) {
    ADD_FAILURE() << path.str() << ": " << llvm::toString(value.takeError());
    return nullptr;
  }
  return std::move(*value);
}

/// The reference lines of every case, by case name.
llvm::StringMap<std::vector<test::ReferenceLine>> readReferences() {
  llvm::StringMap<std::vector<test::ReferenceLine>> cases;
  for (test::ReferenceLine &line :
       test::readReferenceFile((kDataDir + "case_refs.jsonl").str()))
    cases[line.caseName].push_back(std::move(line));
  return cases;
}

/// A Unigram model over the BPE vocabulary `vocab` ({token: id}): token i
/// scores -(1 + (i % 7) / 2 + i / 4096), as make_case_refs.js computes it.
llvm::json::Value makeUnigram(const llvm::json::Object &vocab,
                              const llvm::json::Object &options) {
  std::vector<std::pair<int64_t, std::string>> tokens;
  for (const auto &[token, id] : vocab)
    tokens.push_back({*id.getAsInteger(), token.str()});
  llvm::sort(tokens);
  llvm::json::Array entries;
  for (const auto &[id, token] : tokens)
    entries.push_back(
        llvm::json::Array{token, -(1 + static_cast<double>(id % 7) / 2 +
                                   static_cast<double>(id) / 4096)});
  return llvm::json::Object{
      {"type", "Unigram"},
      {"unk_id", *options.getInteger("unk_id")},
      {"byte_fallback", *options.getBoolean("byte_fallback")},
      {"vocab", std::move(entries)}};
}

/// The case's tokenizer: refdata's file, its pre-tokenizer and normalizer
/// replaced when the case gives them, its model by a Unigram one when it
/// asks.
std::unique_ptr<Tokenizer> loadCase(const llvm::json::Object &testCase) {
  std::string file = llmc::test::getRefdataPath(
      ("tokenizer/" + *testCase.getString("tokenizer") + "/tokenizer.json")
          .str());
  llvm::json::Value json = readJson(file);
  llvm::json::Object *object = json.getAsObject();
  if (!object)
    return nullptr;
  for (llvm::StringRef section : {"pre_tokenizer", "normalizer"})
    if (const llvm::json::Value *replacement = testCase.get(section))
      (*object)[section] = *replacement;
  if (const llvm::json::Object *unigram =
          testCase.getObject("unigram_from_vocab"))
    (*object)["model"] =
        makeUnigram(*object->getObject("model")->getObject("vocab"), *unigram);
  std::string text;
  llvm::raw_string_ostream(text) << json;
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromJson(text, file);
  if (!tokenizer.ok()) {
    ADD_FAILURE() << tokenizer.status().message();
    return nullptr;
  }
  return std::move(*tokenizer);
}

TEST(ReferenceCasesTest, EveryCaseEncodesLikeHfTokenizers) {
  llvm::json::Value cases = readJson((kDataDir + "cases.json").str());
  llvm::StringMap<std::vector<test::ReferenceLine>> references =
      readReferences();
  const llvm::json::Array *list = cases.getAsArray();
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->size(), references.size());
  for (const llvm::json::Value &value : *list) {
    const llvm::json::Object &testCase = *value.getAsObject();
    std::string name = testCase.getString("name")->str();
    std::unique_ptr<Tokenizer> tokenizer = loadCase(testCase);
    ASSERT_TRUE(tokenizer) << name;
    const std::vector<test::ReferenceLine> &lines = references[name];
    ASSERT_FALSE(lines.empty()) << name;
    size_t matching = 0;
    for (const test::ReferenceLine &line : lines) {
      std::vector<int32_t> ids = tokenizer->encode(line.text);
      if (ids == line.ids)
        ++matching;
      else
        ADD_FAILURE()
            << name << ": "
            << llvm::formatv("{0}", llvm::json::Value(line.text)).str();
    }
    EXPECT_EQ(matching, lines.size()) << name;
    std::cout << name << ": " << matching << "/" << lines.size()
              << " lines as HF tokenizers\n";
  }
}

} // namespace
} // namespace llmc::tokenizer
