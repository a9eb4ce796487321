//===- AddedTokens.cpp - the added and special tokens of a tokenizer ------===//

#include "runtime/tokenizer/AddedTokens.h"

#include "runtime/tokenizer/Unicode.h"
#include "runtime/tokenizer/Utf8.h"

#include <algorithm>

namespace llmc::tokenizer {
namespace {

/// The code point that ends `text` (non-empty, well-formed UTF-8).
uint32_t lastChar(std::string_view text) {
  size_t start = text.size() - 1;
  while (start > 0 && isUtf8ContinuationByte(text[start]))
    --start;
  return readUtf8(text, start).codePoint;
}

/// Where the white space that ends `text` begins.
size_t trailingSpaceStart(std::string_view text) {
  size_t start = text.size();
  while (start > 0) {
    size_t charStart = start - 1;
    while (charStart > 0 && isUtf8ContinuationByte(text[charStart]))
      --charStart;
    if (!isWhiteSpace(readUtf8(text, charStart).codePoint))
      break;
    start = charStart;
  }
  return start;
}

/// Where the white space that starts `text` ends.
size_t leadingSpaceEnd(std::string_view text) {
  size_t end = 0;
  while (end < text.size()) {
    Utf8Char c = readUtf8(text, end);
    if (!isWhiteSpace(c.codePoint))
      break;
    end += c.length;
  }
  return end;
}

using Children = std::vector<std::pair<uint8_t, int32_t>>;

/// Where the child for `byte` is, or would be inserted, in sorted `children`.
Children::const_iterator findChild(const Children &children, uint8_t byte) {
  return std::lower_bound(children.begin(), children.end(), byte,
                          [](const std::pair<uint8_t, int32_t> &child,
                             uint8_t value) { return child.first < value; });
}

} // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokensIn,
                                     std::vector<std::string> patterns)
    : tokens(std::move(tokensIn)), trie(1) {
  for (size_t index = 0; index < patterns.size(); ++index) {
    const std::string &pattern = patterns[index];
    if (pattern.empty())
      continue;
    int32_t node = 0;
    for (char c : pattern) {
      auto byte = static_cast<uint8_t>(c);
      Children &children = trie[node].children;
      auto it = findChild(children, byte);
      if (it != children.end() && it->first == byte) {
        node = it->second;
        continue;
      }
      int32_t child = static_cast<int32_t>(trie.size());
      children.insert(it, {byte, child});
      trie.emplace_back();
      node = child;
    }
    // The first token with a given text wins, as in HF's ordered set.
    if (trie[node].token < 0)
      trie[node].token = static_cast<int32_t>(index);
  }
}

std::optional<std::pair<int32_t, size_t>>
AddedTokenMatcher::matchAt(std::string_view text, size_t offset) const {
  std::optional<std::pair<int32_t, size_t>> longest;
  int32_t node = 0;
  for (size_t i = offset; i < text.size(); ++i) {
    auto byte = static_cast<uint8_t>(text[i]);
    const Children &children = trie[node].children;
    auto it = findChild(children, byte);
    if (it == children.end() || it->first != byte)
      break;
    node = it->second;
    if (trie[node].token >= 0)
      longest = {{trie[node].token, i + 1 - offset}};
  }
  return longest;
}

std::vector<Segment>
AddedTokenMatcher::split(std::string_view text,
                         absl::Span<const TextRange> plainText) const {
  std::vector<Segment> segments;
  auto pushText = [&](size_t begin, size_t end) {
    if (end > begin)
      segments.push_back({std::string(text.substr(begin, end - begin)),
                          std::nullopt, begin == 0, begin});
  };

  // Leftmost-longest matches, as HF's Aho-Corasick automaton finds them.
  size_t segmentStart = 0;
  for (size_t offset = 0; offset < text.size();) {
    std::optional<std::pair<int32_t, size_t>> match =
        empty() ? std::nullopt : matchAt(text, offset);
    if (!match) {
      ++offset;
      continue;
    }
    const AddedToken &token = tokens[match->first];
    size_t start = offset, stop = offset + match->second;
    if (token.special && overlapsAny(plainText, start, stop)) {
      ++offset;
      continue;
    }
    offset = stop;
    if (token.singleWord) {
      bool wordBefore =
          start > 0 && isWordChar(lastChar(text.substr(0, start)));
      bool wordAfter =
          stop < text.size() && isWordChar(readUtf8(text, stop).codePoint);
      if (wordBefore || wordAfter)
        continue;
    }
    if (token.lstrip)
      start = std::max(trailingSpaceStart(text.substr(0, start)), segmentStart);
    if (token.rstrip)
      stop += leadingSpaceEnd(text.substr(stop));
    pushText(segmentStart, start);
    segments.push_back({std::string(text.substr(start, stop - start)), token.id,
                        start == 0, start});
    segmentStart = offset = stop;
  }
  pushText(segmentStart, text.size());
  return segments;
}

} // namespace llmc::tokenizer
