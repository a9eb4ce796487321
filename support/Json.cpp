//===- Json.cpp - JSON text parsed without exceptions ---------------------===//

#include "support/Json.h"

#include "support/Strings.h"

namespace llmc::support {
namespace {

/// Builds nothing: a second pass over text that failed to parse, to learn
/// where and why.
struct ErrorFinder {
  size_t byte = 0;
  std::string what;

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(int64_t) { return true; }
  bool number_unsigned(uint64_t) { return true; }
  bool number_float(double, const std::string &) { return true; }
  bool string(std::string &) { return true; }
  bool binary(std::vector<uint8_t> &) { return true; }
  bool start_object(size_t) { return true; }
  bool key(std::string &) { return true; }
  bool end_object() { return true; }
  bool start_array(size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(size_t position, const std::string &,
                   const nlohmann::detail::exception &error) {
    byte = position;
    what = error.what();
    return false;
  }
};

} // namespace

absl::StatusOr<nlohmann::json> parseJson(std::string_view text) {
  nlohmann::json value =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded())
    return value;
  ErrorFinder finder;
  nlohmann::json::sax_parse(text, &finder);
  // The parser counts the character at fault (or the end of the text) as
  // read: the fault is at the offset before.
  size_t offset = std::min(finder.byte > 0 ? finder.byte - 1 : 0, text.size());
  size_t line = 1, lineStart = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  // "[json.exception.parse_error.101] parse error at line 1, column 2:
  // syntax error ...": the code is of no use to a reader, and the place is
  // given once, above.
  std::string_view what = finder.what;
  if (size_t at = what.find("] "); at != std::string_view::npos)
    what.remove_prefix(at + 2);
  if (consumePrefix(what, "parse error"))
    if (size_t at = what.find(": "); at != std::string_view::npos)
      what.remove_prefix(at + 2);
  return absl::InvalidArgumentError(strCat("[", line, ":", offset - lineStart,
                                           ", byte=", offset, "]: ", what));
}

} // namespace llmc::support
