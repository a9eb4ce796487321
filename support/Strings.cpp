//===- Strings.cpp - std::string_view helpers -----------------------------===//

#include "support/Strings.h"

namespace llmc::support {

bool consumePrefix(std::string_view &text, std::string_view prefix) {
  if (!startsWith(text, prefix))
    return false;
  text.remove_prefix(prefix.size());
  return true;
}

bool consumeSuffix(std::string_view &text, std::string_view suffix) {
  if (!endsWith(text, suffix))
    return false;
  text.remove_suffix(suffix.size());
  return true;
}

static bool isAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f';
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && isAsciiSpace(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && isAsciiSpace(text.back()))
    text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  while (true) {
    size_t at = text.find(separator);
    pieces.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return pieces;
    text.remove_prefix(at + 1);
  }
}

std::pair<std::string_view, std::string_view> splitOnce(std::string_view text,
                                                        char separator) {
  size_t at = text.find(separator);
  if (at == std::string_view::npos)
    return {text, std::string_view()};
  return {text.substr(0, at), text.substr(at + 1)};
}

std::string join(const std::vector<std::string> &parts,
                 std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i)
      out.append(separator);
    out.append(parts[i]);
  }
  return out;
}

std::string toLowerAscii(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::optional<double> parseDouble(std::string_view text) {
  double value = 0;
  const char *end = text.data() + text.size();
  std::from_chars_result result = std::from_chars(text.data(), end, value);
  if (text.empty() || result.ec != std::errc() || result.ptr != end)
    return std::nullopt;
  return value;
}

} // namespace llmc::support
