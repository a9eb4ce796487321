//===- TokenModel.h - the model section of a tokenizer.json -----*- C++ -*-===//
//
// What turns a pre-tokenized piece into ids: byte-pair merges (BpeModel)
// or SentencePiece's unigram language model (UnigramModel).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_TOKENMODEL_H
#define LLMC_RUNTIME_TOKENIZER_TOKENMODEL_H

#include "support/Strings.h"

#include "absl/container/flat_hash_map.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::tokenizer {

/// Token ids by token text, looked up by std::string_view.
template <typename T>
using StringMap = absl::flat_hash_map<std::string, T, support::StringViewHash,
                                      support::StringViewEq>;

/// The byte-fallback token of `byte`: `<0xNN>`, upper-case hex.
std::string getByteFallbackToken(unsigned char byte);

class TokenModel {
public:
  virtual ~TokenModel();
  /// Appends the ids of the pre-tokenized piece `word`. Thread-safe.
  virtual void tokenize(std::string_view word,
                        std::vector<int32_t> &ids) const = 0;
  /// Every token of the model by its id.
  virtual const StringMap<int32_t> &getVocab() const = 0;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_TOKENMODEL_H
