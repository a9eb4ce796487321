//===- ReferenceData.cpp - tokenizer test data from shared/refdata --------===//

#include "runtime/tokenizer/test/ReferenceData.h"

#include "tests/TestData.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

namespace llmc::tokenizer::test {

std::vector<ReferenceLine> readReferenceLines(std::string_view name) {
  return readReferenceFile(llmc::test::getRefdataPath(
      ("tokenizer/ref_" + llvm::StringRef(name) + ".jsonl").str()));
}

std::vector<ReferenceLine> readReferenceFile(std::string_view path) {
  std::vector<ReferenceLine> lines;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    ADD_FAILURE() << path << ": " << buffer.getError().message();
    return lines;
  }
  for (llvm::line_iterator it(**buffer); !it.is_at_end(); ++it) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(*it);
    const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
    const llvm::json::Array *ids = object ? object->getArray("ids") : nullptr;
    std::optional<llvm::StringRef> text =
        object ? object->getString("text") : std::nullopt;
    if (!ids || !text) {
      if (!value)
        llvm::consumeError(value.takeError());
      ADD_FAILURE() << path << ":" << it.line_number() << ": malformed line";
      continue;
    }
    ReferenceLine line{text->str(), {}, ""};
    if (std::optional<llvm::StringRef> name = object->getString("case"))
      line.caseName = name->str();
    for (const llvm::json::Value &id : *ids)
      line.ids.push_back(static_cast<int32_t>(id.getAsInteger().value_or(-1)));
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> readCorpus() {
  std::string path = llmc::test::getRefdataPath("tokenizer/corpus.jsonl");
  std::vector<std::string> texts;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    ADD_FAILURE() << path << ": " << buffer.getError().message();
    return texts;
  }
  for (llvm::line_iterator it(**buffer); !it.is_at_end(); ++it) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(*it);
    std::optional<llvm::StringRef> text =
        value ? value->getAsString() : std::nullopt;
    if (!text) {
      if (!value)
        llvm::consumeError(value.takeError());
      ADD_FAILURE() << path << ":" << it.line_number() << ": not a string";
      continue;
    }
    texts.push_back(text->str());
  }
  return texts;
}

std::unique_ptr<Tokenizer> loadReferenceTokenizer(std::string_view relative) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::fromFile(llmc::test::getRefdataPath(relative));
  if (!tokenizer.ok()) {
    ADD_FAILURE() << tokenizer.status().message();
    return nullptr;
  }
  return std::move(*tokenizer);
}

} // namespace llmc::tokenizer::test
