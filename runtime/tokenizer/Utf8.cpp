//===- Utf8.cpp - UTF-8 decoding and repair for the tokenizer -------------===//

#include "runtime/tokenizer/Utf8.h"

namespace llmc::tokenizer {

Utf8Char readUtf8(std::string_view text, size_t offset) {
  auto byteAt = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  uint8_t lead = byteAt(offset);
  if (lead < 0x80)
    return {lead, 1, true, false};

  // Table 3-7 of the Unicode standard: the lead byte fixes the length and
  // the range of the second byte (which excludes overlongs and surrogates).
  size_t length;
  uint8_t secondLow = 0x80, secondHigh = 0xBF;
  uint32_t codePoint;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    codePoint = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    codePoint = lead & 0x0F;
    if (lead == 0xE0)
      secondLow = 0xA0;
    else if (lead == 0xED)
      secondHigh = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    codePoint = lead & 0x07;
    if (lead == 0xF0)
      secondLow = 0x90;
    else if (lead == 0xF4)
      secondHigh = 0x8F;
  } else {
    return {0xFFFD, 1, false, false};
  }

  for (size_t i = 1; i < length; ++i) {
    if (offset + i == text.size())
      return {0xFFFD, i, false, /*truncated=*/true};
    uint8_t byte = byteAt(offset + i);
    uint8_t low = i == 1 ? secondLow : 0x80;
    uint8_t high = i == 1 ? secondHigh : 0xBF;
    if (byte < low || byte > high)
      return {0xFFFD, i, false, false};
    codePoint = (codePoint << 6) | (byte & 0x3F);
  }
  return {codePoint, length, true, false};
}

void appendUtf8(uint32_t codePoint, std::string &out) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

bool isValidUtf8(std::string_view text) {
  for (size_t offset = 0; offset < text.size();) {
    Utf8Char c = readUtf8(text, offset);
    if (!c.valid)
      return false;
    offset += c.length;
  }
  return true;
}

std::string repairUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t offset = 0; offset < text.size();) {
    Utf8Char c = readUtf8(text, offset);
    if (c.valid)
      out.append(text.data() + offset, c.length);
    else
      out += kReplacementChar;
    offset += c.length;
  }
  return out;
}

size_t completeUtf8Length(std::string_view text) {
  // Only the last three bytes can belong to a cut-off character.
  size_t start = text.size() > 3 ? text.size() - 3 : 0;
  for (size_t offset = start; offset < text.size(); ++offset) {
    if (isUtf8ContinuationByte(text[offset]))
      continue;
    if (readUtf8(text, offset).truncated)
      return offset;
  }
  return text.size();
}

} // namespace llmc::tokenizer
