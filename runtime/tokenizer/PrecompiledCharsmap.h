//===- PrecompiledCharsmap.h - SentencePiece's compiled rules ---*- C++ -*-===//
//
// SentencePiece models (T5, XLM-R, ALBERT, mBART) carry their normalization
// rules compiled into `precompiled_charsmap`: a little-endian uint32 byte
// size, a darts-clone double-array trie (uint32 units) over the rules'
// source bytes, then the rules' NUL-terminated replacements, which the
// trie's values index. SentencePiece rewrites a text by applying, at each
// position, the longest rule whose source starts there, and copying one
// character where none does.
//
// Hugging Face's `Precompiled` normalizer works on grapheme clusters
// instead: on a cluster shorter than 6 bytes it applies the *shortest* rule
// that matches at its start to the whole cluster, and on a longer one it
// looks at each character alone. So it turns "Ａ\u0301" into "A" (not "Á"),
// drops the macron of a decomposed "ǟ", and leaves decomposed Hangul and
// half-width kana with a voiced mark uncomposed. The models were trained
// with SentencePiece's normalization, so llmc follows SentencePiece
// (test/data/charsmap measures both).
//
// The map comes from a file. Every index and offset read from it is checked
// when it is parsed or before it is followed, so a hostile map is an error
// or a map that rewrites text oddly, never a read out of bounds.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_PRECOMPILEDCHARSMAP_H
#define LLMC_RUNTIME_TOKENIZER_PRECOMPILEDCHARSMAP_H

#include "support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::tokenizer {

class PrecompiledCharsmap {
public:
  /// Reads a map from its bytes (base64-decoded); on a malformed map, an
  /// InvalidArgument error saying what is wrong with it.
  static absl::StatusOr<PrecompiledCharsmap> parse(std::string_view bytes);

  /// `text` (well-formed UTF-8) rewritten by the rules. The result is
  /// well-formed UTF-8: the replacements are checked to be, and a rule
  /// whose source would end inside a character is not applied.
  std::string normalize(std::string_view text) const;

private:
  struct Rule {
    /// Bytes of the text the rule replaces; 0 when no rule matches.
    size_t length = 0;
    std::string_view replacement;
  };

  PrecompiledCharsmap(std::vector<uint32_t> units, std::string replacements)
      : units(std::move(units)), replacements(std::move(replacements)) {}

  /// The longest rule whose source is a prefix of `text`.
  Rule findLongestRule(std::string_view text) const;

  /// The trie; never empty, as the walk starts at unit 0.
  std::vector<uint32_t> units;
  /// The replacements, each followed by a NUL (so the last byte is one).
  std::string replacements;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_PRECOMPILEDCHARSMAP_H
