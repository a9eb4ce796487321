//===- Tokenizer.cpp - text to token ids and back, from tokenizer.json ----===//

#include "runtime/tokenizer/Tokenizer.h"

#include "runtime/tokenizer/AddedTokens.h"
#include "runtime/tokenizer/BpeModel.h"
#include "runtime/tokenizer/Decoder.h"
#include "runtime/tokenizer/JsonReader.h"
#include "runtime/tokenizer/Normalizer.h"
#include "runtime/tokenizer/PostProcessor.h"
#include "runtime/tokenizer/PreTokenizer.h"
#include "runtime/tokenizer/UnigramModel.h"
#include "runtime/tokenizer/Utf8.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace llmc::tokenizer {
namespace {

/// Reads the `added_tokens` list at `path`.
std::vector<AddedToken> parseAddedTokens(const llvm::json::Array &list,
                                         JsonReader &reader) {
  std::vector<AddedToken> tokens;
  for (auto [index, item] : llvm::enumerate(list)) {
    std::string path = ("added_tokens[" + llvm::Twine(index) + "]").str();
    const llvm::json::Object *object = reader.asObject(item, path);
    if (!object)
      return {};
    AddedToken token;
    int64_t id = reader.getInt(*object, "id", path);
    token.content = reader.getString(*object, "content", path);
    token.special = reader.getBool(*object, "special", path, false);
    // HF's default: special tokens are matched in raw text, others after
    // normalization.
    token.normalized =
        reader.getBool(*object, "normalized", path, !token.special);
    token.singleWord = reader.getBool(*object, "single_word", path, false);
    token.lstrip = reader.getBool(*object, "lstrip", path, false);
    token.rstrip = reader.getBool(*object, "rstrip", path, false);
    if (id < 0 || id > INT32_MAX)
      reader.fail(path + ".id", "must be a non-negative token id");
    if (reader.failed())
      return {};
    token.id = static_cast<int32_t>(id);
    tokens.push_back(std::move(token));
  }
  return tokens;
}

} // namespace

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

llvm::Expected<std::unique_ptr<Tokenizer>>
Tokenizer::fromJson(llvm::StringRef json, llvm::StringRef sourceName) {
  JsonReader reader(sourceName);
  llvm::Expected<llvm::json::Value> root = llvm::json::parse(json);
  if (!root)
    return reader.makeError("not valid JSON: " +
                            llvm::toString(root.takeError()));
  const llvm::json::Object *top = root->getAsObject();
  if (!top)
    return reader.makeError("not a JSON object");

  std::unique_ptr<Tokenizer> tokenizer(new Tokenizer());
  const llvm::json::Object *modelObject = reader.getObject(*top, "model", "");
  if (!modelObject)
    return reader.takeError();
  std::string modelType =
      reader.getString(*modelObject, "type", "model", "BPE");
  if (modelType == "BPE")
    tokenizer->model = BpeModel::parse(*modelObject, reader, "model");
  else if (modelType == "Unigram")
    tokenizer->model = UnigramModel::parse(*modelObject, reader, "model");
  else
    reader.fail("model.type", "'" + modelType +
                                  "' is not supported (supported: BPE, "
                                  "Unigram)");
  if (reader.failed())
    return reader.takeError();
  tokenizer->normalizer =
      parseNormalizer(reader.find(*top, "normalizer"), reader, "normalizer");
  tokenizer->preTokenizer = parsePreTokenizer(
      reader.find(*top, "pre_tokenizer"), reader, "pre_tokenizer");
  tokenizer->decoder =
      parseDecoder(reader.find(*top, "decoder"), reader, "decoder");
  tokenizer->postProcessor =
      std::make_unique<SpecialTokenTemplate>(parsePostProcessor(
          reader.find(*top, "post_processor"), reader, "post_processor"));
  std::vector<AddedToken> added;
  if (reader.find(*top, "added_tokens"))
    if (const llvm::json::Array *list =
            reader.getArray(*top, "added_tokens", ""))
      added = parseAddedTokens(*list, reader);
  if (reader.failed())
    return reader.takeError();

  if (llvm::Error error = tokenizer->indexTokens(added, reader))
    return std::move(error);
  return tokenizer;
}

llvm::Error Tokenizer::indexTokens(llvm::ArrayRef<AddedToken> added,
                                   const JsonReader &reader) {
  // The id table: the model's vocabulary, then added tokens over it.
  int64_t size = 0;
  for (const auto &entry : model->getVocab())
    size = std::max<int64_t>(size, entry.second + 1);
  for (const AddedToken &token : added)
    size = std::max<int64_t>(size, token.id + 1);
  // Ids index a table, so a stray huge id must not size it.
  int64_t count = model->getVocab().size() + added.size();
  if (size > 2 * count + 1024)
    return reader.makeError("token ids are sparse: the largest is " +
                            llvm::Twine(size - 1) + " for " +
                            llvm::Twine(count) + " tokens");
  tokens.resize(size);
  for (const auto &entry : model->getVocab())
    tokens[entry.second] = {entry.first().str(), true, false};
  std::vector<AddedToken> rawTokens, normalizedTokens;
  std::vector<std::string> rawPatterns, normalizedPatterns;
  for (const AddedToken &token : added) {
    tokens[token.id] = {token.content, true, token.special};
    addedTokenIds[token.content] = token.id;
    if (!token.normalized) {
      rawTokens.push_back(token);
      rawPatterns.push_back(token.content);
      continue;
    }
    // Normalized tokens are found in normalized text, so in their
    // normalized form.
    std::string pattern = token.content;
    if (normalizer)
      normalizer->normalize(pattern);
    normalizedTokens.push_back(token);
    normalizedPatterns.push_back(std::move(pattern));
  }
  rawAddedTokens = std::make_unique<AddedTokenMatcher>(std::move(rawTokens),
                                                       std::move(rawPatterns));
  normalizedAddedTokens = std::make_unique<AddedTokenMatcher>(
      std::move(normalizedTokens), std::move(normalizedPatterns));
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Tokenizer>>
Tokenizer::fromFile(llvm::StringRef path) {
  llvm::SmallString<256> file(path);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(file, "tokenizer.json");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!text)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file + ": cannot read: " + text.getError().message());
  return fromJson((*text)->getBuffer(), file);
}

/// `text` with ill-formed UTF-8 repaired, and `ranges` moved to where their
/// bytes land; each stretch between range boundaries is repaired alone.
static std::string repairWithRanges(llvm::StringRef text,
                                    std::vector<TextRange> &ranges) {
  if (isValidUtf8(text))
    return text.str();
  std::vector<size_t> cuts = {0, text.size()};
  for (const TextRange &range : ranges) {
    cuts.push_back(std::min(range.begin, text.size()));
    cuts.push_back(std::min(range.end, text.size()));
  }
  llvm::sort(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::string repaired;
  std::vector<size_t> moved;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    moved.push_back(repaired.size());
    repaired += repairUtf8(text.slice(cuts[i], cuts[i + 1]));
  }
  moved.push_back(repaired.size());
  auto move = [&](size_t offset) {
    offset = std::min(offset, text.size());
    return moved[llvm::lower_bound(cuts, offset) - cuts.begin()];
  };
  for (TextRange &range : ranges)
    range = {move(range.begin), move(range.end)};
  return repaired;
}

std::vector<int32_t>
Tokenizer::encode(llvm::StringRef text, bool addSpecialTokens,
                  llvm::ArrayRef<TextRange> plainText) const {
  std::vector<TextRange> plain(plainText.begin(), plainText.end());
  std::string input = repairWithRanges(text, plain);
  std::vector<int32_t> ids;
  if (addSpecialTokens)
    ids = postProcessor->prefix;
  for (Segment &segment : rawAddedTokens->split(input, plain)) {
    if (segment.addedId) {
      ids.push_back(*segment.addedId);
      continue;
    }
    bool hasPlainText =
        overlapsAny(plain, segment.begin, segment.begin + segment.text.size());
    if (normalizer)
      normalizer->normalize(segment.text);
    std::vector<TextRange> wholeSegment;
    if (hasPlainText)
      wholeSegment.push_back({0, segment.text.size()});
    for (Segment &part :
         normalizedAddedTokens->split(segment.text, wholeSegment)) {
      if (part.addedId) {
        ids.push_back(*part.addedId);
        continue;
      }
      std::vector<PreToken> pieces = {
          {std::move(part.text), segment.atStart && part.atStart}};
      if (preTokenizer)
        preTokenizer->preTokenize(pieces);
      for (const PreToken &piece : pieces)
        model->tokenize(piece.text, ids);
    }
  }
  if (addSpecialTokens)
    ids.insert(ids.end(), postProcessor->suffix.begin(),
               postProcessor->suffix.end());
  return ids;
}

std::string Tokenizer::runDecoder(llvm::ArrayRef<int32_t> ids, bool skipSpecial,
                                  bool raw) const {
  std::vector<std::string> pieces;
  pieces.reserve(ids.size());
  for (int32_t id : ids) {
    if (id < 0 || id >= vocabSize() || !tokens[id].exists ||
        (skipSpecial && tokens[id].special))
      continue;
    pieces.push_back(tokens[id].text);
  }
  // Without a decoder HF joins the tokens with spaces.
  if (!decoder)
    return llvm::join(pieces, " ");
  decoder->decodeChain(pieces, raw);
  return llvm::join(pieces, "");
}

std::string Tokenizer::decode(llvm::ArrayRef<int32_t> ids,
                              bool skipSpecial) const {
  return runDecoder(ids, skipSpecial, /*raw=*/false);
}

std::string Tokenizer::decodeBytes(llvm::ArrayRef<int32_t> ids,
                                   bool skipSpecial) const {
  return runDecoder(ids, skipSpecial, /*raw=*/true);
}

std::optional<int32_t> Tokenizer::tokenToId(llvm::StringRef token) const {
  auto added = addedTokenIds.find(token);
  if (added != addedTokenIds.end())
    return added->second;
  auto it = model->getVocab().find(token);
  if (it != model->getVocab().end())
    return it->second;
  return std::nullopt;
}

std::string Tokenizer::idToToken(int32_t id) const {
  if (id < 0 || id >= vocabSize())
    return {};
  return tokens[id].text;
}

bool Tokenizer::isSpecial(int32_t id) const {
  return id >= 0 && id < vocabSize() && tokens[id].special;
}

} // namespace llmc::tokenizer
