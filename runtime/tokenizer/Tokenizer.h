//===- Tokenizer.h - text to token ids and back -----------------*- C++ -*-===//
//
// A tokenizer read from a Hugging Face `tokenizer.json`: byte-level BPE
// (GPT-2, Llama 3, Qwen) and SentencePiece-style BPE with byte fallback
// (Llama 2). Encoding follows the `tokenizers` library step by step so that
// ids are identical to its: added tokens are found in the raw text, the rest
// is normalized, split into pieces and merged by the BPE model.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_TOKENIZER_H
#define LLMC_RUNTIME_TOKENIZER_TOKENIZER_H

#include "runtime/tokenizer/TextRange.h"
#include "runtime/tokenizer/TokenModel.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::tokenizer {

class AddedTokenMatcher;
class Decoder;
class JsonReader;
class Normalizer;
class PreTokenizer;
struct AddedToken;
struct SpecialTokenTemplate;

class Tokenizer {
public:
  /// Parses the text of a tokenizer.json; `sourceName` names it in errors.
  static absl::StatusOr<std::unique_ptr<Tokenizer>>
  fromJson(std::string_view json, std::string_view sourceName);
  /// Reads `path`: a tokenizer.json file, or a checkpoint directory that
  /// holds one.
  static absl::StatusOr<std::unique_ptr<Tokenizer>>
  fromFile(std::string_view path);

  ~Tokenizer();

  /// The ids of `text` (UTF-8; ill-formed bytes are read as U+FFFD). Added
  /// and special tokens in the text are recognised, but for special tokens
  /// that overlap a range of `plainText`, which are read as the text they
  /// are (a chat's user content: typing "<|im_end|>" must not end a turn).
  /// A special token matched in normalized text is read as text when its
  /// stretch between raw-text added tokens overlaps `plainText`. With
  /// `addSpecialTokens` the post-processor's tokens (such as BOS) are added
  /// around the result. Thread-safe.
  std::vector<int32_t> encode(std::string_view text,
                              bool addSpecialTokens = false,
                              absl::Span<const TextRange> plainText = {}) const;

  /// The text of `ids`, as HF `decode` gives it: ids that name no token are
  /// ignored, special tokens too when `skipSpecial` is set, and bytes that do
  /// not form UTF-8 become U+FFFD.
  std::string decode(absl::Span<const int32_t> ids,
                     bool skipSpecial = false) const;

  /// As decode, but bytes that do not form UTF-8 are kept, so that a
  /// character split across tokens is visible as its partial bytes.
  std::string decodeBytes(absl::Span<const int32_t> ids,
                          bool skipSpecial = false) const;

  /// The id of a vocabulary or added token, looked up by its exact text.
  std::optional<int32_t> tokenToId(std::string_view token) const;
  /// The text of token `id`; empty when no token has that id.
  std::string idToToken(int32_t id) const;
  /// Whether `id` is a special added token (skipped by `skipSpecial`).
  bool isSpecial(int32_t id) const;
  /// One more than the largest token id: the rows a model's embedding has.
  int64_t vocabSize() const { return static_cast<int64_t>(tokens.size()); }

private:
  Tokenizer();
  /// Builds the id table and the added-token matchers once the model and
  /// the normalizer are read.
  absl::Status indexTokens(absl::Span<const AddedToken> added,
                           const JsonReader &reader);
  std::string runDecoder(absl::Span<const int32_t> ids, bool skipSpecial,
                         bool raw) const;

  std::unique_ptr<TokenModel> model;
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> preTokenizer;
  std::unique_ptr<Decoder> decoder;
  std::unique_ptr<SpecialTokenTemplate> postProcessor;
  /// Added tokens matched in the raw text, and those matched after
  /// normalization.
  std::unique_ptr<AddedTokenMatcher> rawAddedTokens;
  std::unique_ptr<AddedTokenMatcher> normalizedAddedTokens;
  /// Added tokens by text; they take precedence over the model's vocabulary.
  StringMap<int32_t> addedTokenIds;

  struct TokenInfo {
    std::string text;
    bool exists = false;
    bool special = false;
  };
  /// Indexed by id.
  std::vector<TokenInfo> tokens;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_TOKENIZER_H
