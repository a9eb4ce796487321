//===- Strings.h - std::string_view helpers ---------------------*- C++ -*-===//
//
// The few operations on std::string_view that C++17 lacks and the runtime
// needs. Debian's Abseil is built with its own absl::string_view, a type
// distinct from std::string_view, so absl's string functions do not take
// the std::string_view the runtime's API speaks; absl::StrFormat does, and
// is the tool for formatted messages.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_SUPPORT_STRINGS_H
#define LLMC_SUPPORT_STRINGS_H

#include "absl/strings/string_view.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace llmc::support {

inline bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

inline bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

/// Drops `prefix` from the front of `text` when it is there.
bool consumePrefix(std::string_view &text, std::string_view prefix);
/// Drops `suffix` from the end of `text` when it is there.
bool consumeSuffix(std::string_view &text, std::string_view suffix);

/// `text` without its leading and trailing ASCII whitespace.
std::string_view trim(std::string_view text);

/// The pieces of `text` between the separators; an empty text gives one
/// empty piece, as Python's str.split(sep) does.
std::vector<std::string_view> split(std::string_view text, char separator);
/// The text before the first `separator` and the text after it; the whole
/// text and an empty one when there is none.
std::pair<std::string_view, std::string_view> splitOnce(std::string_view text,
                                                        char separator);

std::string join(const std::vector<std::string> &parts,
                 std::string_view separator);

std::string toLowerAscii(std::string_view text);

/// The integer that is all of `text` (decimal, an optional '-'), or nothing
/// when `text` is anything else or out of T's range.
template <typename T> std::optional<T> parseInteger(std::string_view text) {
  static_assert(std::is_integral_v<T>);
  T value{};
  const char *end = text.data() + text.size();
  std::from_chars_result result = std::from_chars(text.data(), end, value);
  if (text.empty() || result.ec != std::errc() || result.ptr != end)
    return std::nullopt;
  return value;
}

/// The number that is all of `text`, or nothing.
std::optional<double> parseDouble(std::string_view text);

namespace detail {
inline void appendPiece(std::string &out, std::string_view piece) {
  out.append(piece);
}
inline void appendPiece(std::string &out, const char *piece) {
  out.append(piece);
}
inline void appendPiece(std::string &out, const std::string &piece) {
  out.append(piece);
}
inline void appendPiece(std::string &out, char piece) { out.push_back(piece); }
// Status messages are Abseil's own string_view.
inline void appendPiece(std::string &out, absl::string_view piece) {
  out.append(piece.data(), piece.size());
}
template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> &&
                                                  !std::is_same_v<T, char> &&
                                                  !std::is_same_v<T, bool>>>
void appendPiece(std::string &out, T number) {
  char buffer[64];
  std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof(buffer), number);
  out.append(buffer, result.ptr);
}
} // namespace detail

/// The concatenation of strings, characters and numbers (decimal integers,
/// floating point in the shortest form that reads back the same), for
/// messages built from parts as Twine builds them.
template <typename... Pieces> std::string strCat(const Pieces &...pieces) {
  std::string out;
  (detail::appendPiece(out, pieces), ...);
  return out;
}

/// Hash and equality of strings for hash maps keyed by std::string that
/// look keys up by std::string_view without copying them:
/// absl::flat_hash_map<std::string, T, StringViewHash, StringViewEq>.
/// Abseil's own transparent functors take only its absl::string_view.
struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>()(text);
  }
};
struct StringViewEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const {
    return a == b;
  }
};

/// The unsigned integer T stored little-endian at `bytes`, whatever the
/// host's byte order and the pointer's alignment.
template <typename T> T readLittleEndian(const void *bytes) {
  static_assert(std::is_unsigned_v<T>);
  const auto *in = static_cast<const unsigned char *>(bytes);
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(static_cast<T>(in[i]) << (8 * i));
  return value;
}

/// Stores `value` little-endian at `bytes`.
template <typename T> void writeLittleEndian(void *bytes, T value) {
  static_assert(std::is_unsigned_v<T>);
  auto *out = static_cast<unsigned char *>(bytes);
  for (size_t i = 0; i < sizeof(T); ++i)
    out[i] = static_cast<unsigned char>(value >> (8 * i));
}

} // namespace llmc::support

#endif // LLMC_SUPPORT_STRINGS_H
