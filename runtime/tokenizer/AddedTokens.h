//===- AddedTokens.h - added and special tokens of a tokenizer --*- C++ -*-===//
//
// Added tokens (`<|im_start|>`, `<s>`, `<think>`) are found in the text before
// the model sees it, leftmost first and longest among those that start at the
// same place, so they never merge with their neighbours. Most are matched in
// the raw text; those marked `normalized` in the normalized text.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_ADDEDTOKENS_H
#define LLMC_RUNTIME_TOKENIZER_ADDEDTOKENS_H

#include "runtime/tokenizer/TextRange.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::tokenizer {

struct AddedToken {
  int32_t id = 0;
  std::string content;
  /// Skipped by decode when asked to skip special tokens.
  bool special = false;
  /// Matched in normalized rather than raw text.
  bool normalized = false;
  /// Matched only between non-word characters.
  bool singleWord = false;
  /// Absorbs the white space to its left or right.
  bool lstrip = false;
  bool rstrip = false;
};

/// A stretch of text: an added token, or text for the model.
struct Segment {
  std::string text;
  /// The added token the stretch is, if any.
  std::optional<int32_t> addedId;
  /// Whether the stretch starts the text that was split.
  bool atStart = false;
  /// Where the stretch starts in the text that was split.
  size_t begin = 0;
};

/// Finds one group of added tokens (the raw-text or the normalized-text ones)
/// in text.
class AddedTokenMatcher {
public:
  AddedTokenMatcher() = default;
  /// `patterns` are the texts to find (the tokens' contents, normalized for
  /// the normalized group), parallel to `tokens`.
  AddedTokenMatcher(std::vector<AddedToken> tokens,
                    std::vector<std::string> patterns);

  bool empty() const { return tokens.empty(); }

  /// Splits `text` into added tokens and the stretches between them;
  /// stretches emptied by stripping are dropped. A special token that
  /// overlaps a range of `plainText` is not matched: there it is text, as
  /// HF reads special tokens with `split_special_tokens`.
  std::vector<Segment> split(std::string_view text,
                             absl::Span<const TextRange> plainText = {}) const;

private:
  struct Node {
    /// Children by byte, sorted.
    std::vector<std::pair<uint8_t, int32_t>> children;
    /// The token ending here, or -1.
    int32_t token = -1;
  };
  /// The token that matches longest at `offset`, with its length.
  std::optional<std::pair<int32_t, size_t>> matchAt(std::string_view text,
                                                    size_t offset) const;

  std::vector<AddedToken> tokens;
  /// A byte trie of the patterns; node 0 is the root.
  std::vector<Node> trie;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_ADDEDTOKENS_H
