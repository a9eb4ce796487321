//===- PreTokenizer.h - tokenizer.json pre-tokenizers -----------*- C++ -*-===//
//
// The `pre_tokenizer` section splits normalized text into the pieces that the
// model tokenizes one by one (and caches): a regex split into words, the
// byte-level spelling of GPT-2-style vocabularies, SentencePiece's Metaspace.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_PRETOKENIZER_H
#define LLMC_RUNTIME_TOKENIZER_PRETOKENIZER_H

#include "runtime/tokenizer/JsonReader.h"

#include <memory>
#include <string>
#include <vector>

namespace llmc::tokenizer {

/// A piece of normalized text.
struct PreToken {
  std::string text;
  /// Whether the piece starts the whole input (rather than following an
  /// added token or an earlier piece): Metaspace's "first" scheme asks.
  bool atInputStart = false;
};

class PreTokenizer {
public:
  virtual ~PreTokenizer();
  /// Replaces each piece of `pieces` by the pieces it splits into; empty
  /// pieces are dropped.
  virtual void preTokenize(std::vector<PreToken> &pieces) const = 0;
};

/// The pre-tokenizer that `value` (the JSON at `path`) describes; null for a
/// JSON null or a missing section, and on error (recorded in `reader`).
std::unique_ptr<PreTokenizer>
parsePreTokenizer(const Json *value, JsonReader &reader, std::string_view path);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_PRETOKENIZER_H
