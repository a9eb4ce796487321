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

#include "support/File.h"
#include "support/Json.h"
#include "support/Strings.h"

#include <algorithm>
#include <filesystem>

namespace llmc::tokenizer {
namespace {

/// Reads the `added_tokens` list at `path`.
std::vector<AddedToken> parseAddedTokens(const Json &list, JsonReader &reader) {
  std::vector<AddedToken> tokens;
  for (size_t index = 0; index < list.size(); ++index) {
    std::string path = support::strCat("added_tokens[", index, "]");
    const Json *object = reader.asObject(list[index], path);
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

absl::StatusOr<std::unique_ptr<Tokenizer>>
Tokenizer::fromJson(std::string_view json, std::string_view sourceName) {
  JsonReader reader(sourceName);
  absl::StatusOr<Json> root = support::parseJson(json);
  if (!root.ok())
    return reader.makeError(support::strCat(
        "not valid JSON: ", std::string(root.status().message())));
  if (!root->is_object())
    return reader.makeError("not a JSON object");
  const Json *top = &*root;

  std::unique_ptr<Tokenizer> tokenizer(new Tokenizer());
  const Json *modelObject = reader.getObject(*top, "model", "");
  if (!modelObject)
    return reader.takeError();
  std::string modelType =
      reader.getString(*modelObject, "type", "model", "BPE");
  if (modelType == "BPE")
    tokenizer->model = BpeModel::parse(*modelObject, reader, "model");
  else if (modelType == "Unigram")
    tokenizer->model = UnigramModel::parse(*modelObject, reader, "model");
  else
    reader.fail("model.type", support::strCat("'", modelType,
                                              "' is not supported (supported: "
                                              "BPE, Unigram)"));
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
    if (const Json *list = reader.getArray(*top, "added_tokens", ""))
      added = parseAddedTokens(*list, reader);
  if (reader.failed())
    return reader.takeError();

  LLMC_RETURN_IF_ERROR(tokenizer->indexTokens(added, reader));
  return tokenizer;
}

absl::Status Tokenizer::indexTokens(absl::Span<const AddedToken> added,
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
    return reader.makeError(support::strCat("token ids are sparse: the largest "
                                            "is ",
                                            size - 1, " for ", count,
                                            " tokens"));
  tokens.resize(size);
  for (const auto &entry : model->getVocab())
    tokens[entry.second] = {entry.first, true, false};
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
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Tokenizer>>
Tokenizer::fromFile(std::string_view path) {
  std::filesystem::path file(path);
  std::error_code error;
  if (std::filesystem::is_directory(file, error))
    file /= "tokenizer.json";
  absl::StatusOr<std::string> text = support::readFile(file.string());
  if (!text.ok())
    return absl::Status(text.status().code(),
                        support::strCat(file.string(), ": cannot read: ",
                                        support::errorReason(text.status())));
  return fromJson(*text, file.string());
}

/// `text` with ill-formed UTF-8 repaired, and `ranges` moved to where their
/// bytes land; each stretch between range boundaries is repaired alone.
static std::string repairWithRanges(std::string_view text,
                                    std::vector<TextRange> &ranges) {
  if (isValidUtf8(text))
    return std::string(text);
  std::vector<size_t> cuts = {0, text.size()};
  for (const TextRange &range : ranges) {
    cuts.push_back(std::min(range.begin, text.size()));
    cuts.push_back(std::min(range.end, text.size()));
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::string repaired;
  std::vector<size_t> moved;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    moved.push_back(repaired.size());
    repaired += repairUtf8(text.substr(cuts[i], cuts[i + 1] - cuts[i]));
  }
  moved.push_back(repaired.size());
  auto move = [&](size_t offset) {
    offset = std::min(offset, text.size());
    return moved[std::lower_bound(cuts.begin(), cuts.end(), offset) -
                 cuts.begin()];
  };
  for (TextRange &range : ranges)
    range = {move(range.begin), move(range.end)};
  return repaired;
}

std::vector<int32_t>
Tokenizer::encode(std::string_view text, bool addSpecialTokens,
                  absl::Span<const TextRange> plainText) const {
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

std::string Tokenizer::runDecoder(absl::Span<const int32_t> ids,
                                  bool skipSpecial, bool raw) const {
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
    return support::join(pieces, " ");
  decoder->decodeChain(pieces, raw);
  return support::join(pieces, "");
}

std::string Tokenizer::decode(absl::Span<const int32_t> ids,
                              bool skipSpecial) const {
  return runDecoder(ids, skipSpecial, /*raw=*/false);
}

std::string Tokenizer::decodeBytes(absl::Span<const int32_t> ids,
                                   bool skipSpecial) const {
  return runDecoder(ids, skipSpecial, /*raw=*/true);
}

std::optional<int32_t> Tokenizer::tokenToId(std::string_view token) const {
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
