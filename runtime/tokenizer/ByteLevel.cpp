//===- ByteLevel.cpp - GPT-2's reversible bytes-to-characters map ---------===//

#include "runtime/tokenizer/ByteLevel.h"

#include "runtime/tokenizer/Utf8.h"

#include <array>

namespace llmc::tokenizer {
namespace {

struct ByteLevelTable {
  /// The UTF-8 of the character for each byte.
  std::array<std::string, 256> chars;
  /// The byte for each code point below U+0144 (the largest used), or -1.
  std::array<int16_t, 0x144> bytes;

  ByteLevelTable() {
    bytes.fill(-1);
    uint32_t next = 256;
    for (uint32_t byte = 0; byte < 256; ++byte) {
      bool printable = (byte >= '!' && byte <= '~') ||
                       (byte >= 0xA1 && byte <= 0xAC) || byte >= 0xAE;
      uint32_t codePoint = printable ? byte : next++;
      appendUtf8(codePoint, chars[byte]);
      bytes[codePoint] = static_cast<int16_t>(byte);
    }
  }
};

const ByteLevelTable &getTable() {
  static const ByteLevelTable table;
  return table;
}

} // namespace

void appendByteLevelChars(std::string_view bytes, std::string &out) {
  const ByteLevelTable &table = getTable();
  for (char byte : bytes)
    out += table.chars[static_cast<uint8_t>(byte)];
}

std::optional<std::string> decodeByteLevelChars(std::string_view token) {
  const ByteLevelTable &table = getTable();
  std::string out;
  for (size_t offset = 0; offset < token.size();) {
    Utf8Char c = readUtf8(token, offset);
    if (!c.valid || c.codePoint >= table.bytes.size() ||
        table.bytes[c.codePoint] < 0)
      return std::nullopt;
    out += static_cast<char>(table.bytes[c.codePoint]);
    offset += c.length;
  }
  return out;
}

} // namespace llmc::tokenizer
