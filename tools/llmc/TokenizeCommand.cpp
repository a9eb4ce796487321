//===- TokenizeCommand.cpp - llmc tokenize: text to token ids -------------===//
//
//   llmc tokenize -m <checkpoint directory | tokenizer.json | tokenizer.model
//                      | model.llmc>
//                 --text-file F
//
// F holds one JSON string per line ("-" reads standard input); for each, one
// line `{"text":...,"ids":[...]}` is printed, with no special tokens added,
// so the output compares line by line with a reference tokenizer's.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/GgufTokenizer.h"
#include "frontends/hf/HfConfig.h"
#include "frontends/hf/SentencePieceModel.h"
#include "runtime/format/BinaryReader.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "support/LlvmStatus.h"
#include "tools/llmc/Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> tokenizerPath(
    "model",
    cl::desc("A checkpoint directory (its tokenizer.json, else its "
             "tokenizer.model, is read), a tokenizer.json, a SentencePiece "
             ".model file, a GGUF file or a .llmc binary"),
    cl::value_desc("path"), cl::Required, cl::sub(getTokenizeCommand()));
static cl::alias tokenizerPathShort("m", cl::desc("Alias for --model"),
                                    cl::aliasopt(tokenizerPath));
static cl::opt<std::string> textFile(
    "text-file", cl::desc("Lines of JSON strings to tokenize ('-': stdin)"),
    cl::value_desc("path"), cl::Required, cl::sub(getTokenizeCommand()));

/// The tokenizer of a checkpoint, a tokenizer.json or a binary's section.
static llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> loadTokenizer() {
  llvm::StringRef path = tokenizerPath;
  if (llvm::sys::fs::is_directory(path)) {
    llvm::Expected<std::optional<hf::TokenizerJson>> json =
        hf::readTokenizerJson(path);
    if (!json)
      return json.takeError();
    if (!*json)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: holds neither tokenizer.json nor tokenizer.model",
          tokenizerPath.c_str());
    return support::toExpected(
        tokenizer::Tokenizer::fromJson((*json)->text, (*json)->file));
  }
  if (path.ends_with(".model")) {
    llvm::Expected<std::string> json = hf::convertSentencePieceModel(path);
    if (!json)
      return json.takeError();
    return support::toExpected(tokenizer::Tokenizer::fromJson(*json, path));
  }
  if (path.ends_with(".gguf")) {
    llvm::Expected<std::unique_ptr<gguf::GgufFile>> file =
        gguf::GgufFile::open(path);
    if (!file)
      return file.takeError();
    llvm::Expected<std::string> json = gguf::buildTokenizerJson(**file);
    if (!json)
      return json.takeError();
    if (json->empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s: the file holds no tokenizer",
                                     tokenizerPath.c_str());
    return support::toExpected(tokenizer::Tokenizer::fromJson(*json, path));
  }
  if (!path.ends_with(".llmc"))
    return support::toExpected(tokenizer::Tokenizer::fromFile(tokenizerPath));
  llvm::Expected<std::unique_ptr<binary::LoadedBinary>> loaded =
      support::toExpected(binary::LoadedBinary::open(tokenizerPath));
  if (!loaded)
    return loaded.takeError();
  if ((*loaded)->tokenizerJson().empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: the binary holds no tokenizer",
                                   tokenizerPath.c_str());
  return support::toExpected(tokenizer::Tokenizer::fromJson(
      (*loaded)->tokenizerJson(), tokenizerPath));
}

int runTokenizeCommand(const plugins::Registry &) {
  llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> tokenizer =
      loadTokenizer();
  if (!tokenizer)
    return reportError(tokenizer.takeError());
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> input =
      llvm::MemoryBuffer::getFileOrSTDIN(textFile, /*IsText=*/true);
  if (!input)
    return reportError(llvm::createStringError(
        input.getError(), "%s: cannot read: %s", textFile.c_str(),
        input.getError().message().c_str()));

  // Blank lines are skipped, so a trailing newline adds no record.
  for (llvm::line_iterator line(**input, /*SkipBlanks=*/true);
       !line.is_at_end(); ++line) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(*line);
    std::optional<llvm::StringRef> text =
        value ? value->getAsString() : std::nullopt;
    if (!text) {
      if (!value)
        llvm::consumeError(value.takeError());
      return reportError(llvm::createStringError(
          llvm::inconvertibleErrorCode(), "%s:%d: not a JSON string",
          textFile.c_str(), static_cast<int>(line.line_number())));
    }
    std::vector<int32_t> ids = (*tokenizer)->encode(*text);
    llvm::json::OStream json(llvm::outs());
    json.object([&] {
      json.attribute("text", *text);
      json.attributeArray("ids", [&] {
        for (int32_t id : ids)
          json.value(id);
      });
    });
    llvm::outs() << "\n";
  }
  return 0;
}

} // namespace llmc
