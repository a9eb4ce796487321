//===- Normalizer.h - tokenizer.json normalizers ----------------*- C++ -*-===//
//
// The `normalizer` section rewrites each stretch of text between added tokens
// before it is split: Unicode normalization (Qwen's NFC), SentencePiece's
// space handling (Llama 2's Prepend "▁" and Replace " " with "▁") or
// SentencePiece's compiled rules (T5's and XLM-R's Precompiled).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_NORMALIZER_H
#define LLMC_RUNTIME_TOKENIZER_NORMALIZER_H

#include "runtime/tokenizer/JsonReader.h"

#include <memory>
#include <string>

namespace llmc::tokenizer {

class Normalizer {
public:
  virtual ~Normalizer();
  /// Rewrites `text` (well-formed UTF-8) in place.
  virtual void normalize(std::string &text) const = 0;
};

/// The normalizer that `value` (the JSON at `path`) describes; null for a
/// JSON null or a missing section, and on error (recorded in `reader`).
std::unique_ptr<Normalizer>
parseNormalizer(const Json *value, JsonReader &reader, std::string_view path);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_NORMALIZER_H
