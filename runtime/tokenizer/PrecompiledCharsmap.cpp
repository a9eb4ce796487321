//===- PrecompiledCharsmap.cpp - SentencePiece's compiled rules -----------===//

#include "runtime/tokenizer/PrecompiledCharsmap.h"

#include "runtime/tokenizer/Utf8.h"

#include "support/Strings.h"

namespace llmc::tokenizer {

//===----------------------------------------------------------------------===//
// darts-clone's unit layout
//===----------------------------------------------------------------------===//

namespace {

constexpr uint32_t kIsValue = 1u << 31;

/// The byte that leads to a node; bit 31 keeps value units from matching.
uint32_t getLabel(uint32_t unit) { return unit & (kIsValue | 0xFF); }

/// Whether a key ends at the node: its value unit is the child labelled 0.
bool hasValue(uint32_t unit) { return (unit >> 8) & 1; }

/// XORed with a node's index, the index its children's labels are XORed
/// with; bit 9 scales it by 256.
size_t getChildBase(uint32_t unit) {
  return static_cast<size_t>(unit >> 10) << ((unit & (1u << 9)) >> 6);
}

/// A value unit's value: here, where its replacement starts.
size_t getValue(uint32_t unit) { return unit & ~kIsValue; }

absl::Status malformed(const std::string &problem) {
  return absl::InvalidArgumentError(problem);
}

} // namespace

//===----------------------------------------------------------------------===//
// Reading a map
//===----------------------------------------------------------------------===//

absl::StatusOr<PrecompiledCharsmap>
PrecompiledCharsmap::parse(std::string_view bytes) {
  if (bytes.size() < 4)
    return malformed(support::strCat("has ", bytes.size(),
                                     " bytes, too few for the trie's size"));
  auto readUint32 = [&](size_t at) {
    return support::readLittleEndian<uint32_t>(bytes.data() + at);
  };
  size_t trieBytes = readUint32(0);
  if (trieBytes == 0 || trieBytes % 4 != 0)
    return malformed(support::strCat("gives the trie ", trieBytes,
                                     " bytes, not a positive multiple of 4"));
  if (trieBytes > bytes.size() - 4)
    return malformed(support::strCat("gives the trie ", trieBytes,
                                     " bytes, but only ", bytes.size() - 4,
                                     " follow"));
  std::vector<uint32_t> units(trieBytes / 4);
  for (size_t i = 0; i < units.size(); ++i)
    units[i] = readUint32(4 + 4 * i);
  std::string replacements(bytes.substr(4 + trieBytes));
  if (!replacements.empty() && replacements.back() != '\0')
    return malformed("does not end its last replacement with a NUL byte");
  if (!isValidUtf8(replacements))
    return malformed("has replacements that are not valid UTF-8");

  // The walk reaches a value unit only through a unit that has one, so
  // checking every such unit checks every value a walk can read.
  for (size_t index = 0; index < units.size(); ++index) {
    uint32_t unit = units[index];
    if ((unit & kIsValue) || !hasValue(unit))
      continue;
    size_t valueIndex = index ^ getChildBase(unit);
    if (valueIndex >= units.size() || !(units[valueIndex] & kIsValue))
      return malformed(support::strCat("has a trie unit ", index,
                                       " whose value unit is missing"));
    size_t start = getValue(units[valueIndex]);
    if (start >= replacements.size() ||
        isUtf8ContinuationByte(replacements[start]))
      return malformed(
          support::strCat("has a rule whose replacement starts at byte ", start,
                          " of ", replacements.size(), ", not at a character"));
  }
  return PrecompiledCharsmap(std::move(units), std::move(replacements));
}

//===----------------------------------------------------------------------===//
// Applying it
//===----------------------------------------------------------------------===//

PrecompiledCharsmap::Rule
PrecompiledCharsmap::findLongestRule(std::string_view text) const {
  Rule longest;
  size_t node = getChildBase(units[0]);
  for (size_t i = 0; i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    // Keys end at a NUL, so no rule's source holds one.
    if (byte == 0)
      break;
    node ^= byte;
    if (node >= units.size() || getLabel(units[node]) != byte)
      break;
    bool endsKey = hasValue(units[node]);
    node ^= getChildBase(units[node]);
    bool endsCharacter =
        i + 1 == text.size() || !isUtf8ContinuationByte(text[i + 1]);
    if (!endsKey || !endsCharacter || node >= units.size())
      continue;
    size_t start = getValue(units[node]);
    if (start >= replacements.size())
      continue;
    std::string_view replacement = std::string_view(replacements).substr(start);
    longest = {i + 1, replacement.substr(0, replacement.find('\0'))};
  }
  return longest;
}

std::string PrecompiledCharsmap::normalize(std::string_view text) const {
  std::string normalized;
  normalized.reserve(text.size());
  size_t position = 0;
  while (position < text.size()) {
    Rule rule = findLongestRule(text.substr(position));
    if (rule.length > 0) {
      normalized += rule.replacement;
      position += rule.length;
      continue;
    }
    size_t length = readUtf8(text, position).length;
    normalized.append(text, position, length);
    position += length;
  }
  return normalized;
}

} // namespace llmc::tokenizer
