//===- SplitReferenceTest.cpp - split patterns against HF tokenizers ------===//
//
// The cases of data/split_cases.json run a reference tokenizer.json with its
// own split pattern or with another that real files carry (GPT-4o's o200k, a
// Sequence of Splits, ByteLevel's use_regex), or with normalizers it lacks
// (Strip, Lowercase, a regex Replace), over refdata's corpus and
// data/scripts_corpus.jsonl (combining marks, Indic, Arabic, Hebrew, Thai,
// CJK, emoji, code); every line must give exactly the ids that Hugging
// Face's `tokenizers` library gave (data/split_refs.jsonl, written by
// tools/tokenizers/make_split_refs.js).
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
       test::readReferenceFile((kDataDir + "split_refs.jsonl").str()))
    cases[line.caseName].push_back(std::move(line));
  return cases;
}

/// The case's tokenizer: refdata's file, its pre-tokenizer and normalizer
/// replaced when the case gives them.
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
  std::string text;
  llvm::raw_string_ostream(text) << json;
  llvm::Expected<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromJson(text, file);
  if (!tokenizer) {
    ADD_FAILURE() << llvm::toString(tokenizer.takeError());
    return nullptr;
  }
  return std::move(*tokenizer);
}

TEST(SplitReferenceTest, EveryCaseEncodesLikeHfTokenizers) {
  llvm::json::Value cases = readJson((kDataDir + "split_cases.json").str());
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
