//===- Utf8.h - UTF-8 decoding and repair for the tokenizer -----*- C++ -*-===//
//
// Byte-level tokens may split a character across tokens, so decoded bytes are
// not always valid UTF-8. These helpers find where complete characters end
// and replace ill-formed bytes the way Rust's `String::from_utf8_lossy` (and
// so the Hugging Face `tokenizers` library) does: one U+FFFD per maximal
// ill-formed subsequence.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_UTF8_H
#define LLMC_RUNTIME_TOKENIZER_UTF8_H

#include <cstdint>
#include <string>
#include <string_view>

namespace llmc::tokenizer {

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

/// The result of reading one character at a byte offset.
struct Utf8Char {
  /// The code point; U+FFFD when the bytes are ill-formed.
  uint32_t codePoint = 0;
  /// Bytes consumed: the character, or the maximal ill-formed subsequence.
  size_t length = 0;
  /// False when the bytes at the offset are not a well-formed character.
  bool valid = false;
  /// True when the bytes are a well-formed prefix of a character that the
  /// end of the input cuts off (then `valid` is false).
  bool truncated = false;
};

/// Whether `byte` continues a character (10xxxxxx) rather than starting one.
inline bool isUtf8ContinuationByte(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

/// Reads the character that starts at `offset` (< text.size()).
Utf8Char readUtf8(std::string_view text, size_t offset);

/// Appends the UTF-8 encoding of `codePoint`.
void appendUtf8(uint32_t codePoint, std::string &out);

/// Whether `text` is well-formed UTF-8.
bool isValidUtf8(std::string_view text);

/// `text` with each maximal ill-formed subsequence replaced by U+FFFD.
std::string repairUtf8(std::string_view text);

/// The length of the longest prefix of `text` that does not end inside a
/// character the end of `text` cuts off: bytes past it may still complete a
/// character when more bytes arrive.
size_t completeUtf8Length(std::string_view text);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_UTF8_H
