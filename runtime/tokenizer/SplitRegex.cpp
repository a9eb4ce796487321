//===- SplitRegex.cpp - regexes of tokenizer.json split patterns ----------===//

#include "runtime/tokenizer/SplitRegex.h"

#include "runtime/tokenizer/Utf8.h"

#include "support/Strings.h"

#include <pcre2.h>

#include <string>

namespace llmc::tokenizer {

/// Backtracking steps one match may take. The patterns of real files take
/// a few per character; a hostile file's catastrophic pattern stops here
/// instead of hanging the tokenizer, and the rest of its text stays one
/// piece.
constexpr uint32_t kMatchLimit = 1'000'000;

struct SplitRegex::Code {
  pcre2_code *pattern = nullptr;
  pcre2_match_context *context = nullptr;
  ~Code() {
    pcre2_match_context_free(context);
    pcre2_code_free(pattern);
  }
};

SplitRegex::SplitRegex(std::unique_ptr<Code> code) : code(std::move(code)) {}
SplitRegex::~SplitRegex() = default;

absl::StatusOr<std::shared_ptr<const SplitRegex>>
SplitRegex::compile(std::string_view pattern) {
  int status = 0;
  PCRE2_SIZE offset = 0;
  // UCP: `\s`, `\w` and `\d` by Unicode properties, as Oniguruma's are.
  pcre2_code *compiled = pcre2_compile(
      reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
      PCRE2_UTF | PCRE2_UCP, &status, &offset, nullptr);
  if (!compiled) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(status, message, sizeof(message));
    return absl::InvalidArgumentError(
        support::strCat("regex '", pattern, "' does not compile at offset ",
                        offset, ": ", reinterpret_cast<const char *>(message)));
  }
  // Without a JIT (an unsupported platform) the interpreter matches alike.
  pcre2_jit_compile(compiled, PCRE2_JIT_COMPLETE);
  auto code = std::make_unique<Code>();
  code->pattern = compiled;
  code->context = pcre2_match_context_create(nullptr);
  if (!code->context)
    return absl::ResourceExhaustedError(support::strCat(
        "regex '", pattern, "': out of memory for its matcher"));
  pcre2_set_match_limit(code->context, kMatchLimit);
  return std::shared_ptr<const SplitRegex>(new SplitRegex(std::move(code)));
}

const SplitRegex &SplitRegex::getGpt2() {
  static const std::shared_ptr<const SplitRegex> gpt2 =
      compile(
          R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)")
          .value();
  return *gpt2;
}

std::vector<std::pair<size_t, size_t>>
SplitRegex::findMatches(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  pcre2_match_data *data =
      pcre2_match_data_create_from_pattern(code->pattern, nullptr);
  if (!data)
    return matches;
  auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  uint32_t options = 0;
  for (size_t start = 0; start <= text.size();) {
    int found = pcre2_match(code->pattern, subject, text.size(), start, options,
                            data, code->context);
    if (found < 0)
      break;
    // The subject was checked on the first call.
    options = PCRE2_NO_UTF_CHECK;
    PCRE2_SIZE *range = pcre2_get_ovector_pointer(data);
    size_t begin = range[0], end = range[1];
    if (end > begin) {
      matches.emplace_back(begin, end);
      start = end;
      continue;
    }
    // An empty match: move on by one character.
    if (begin >= text.size())
      break;
    start = begin + readUtf8(text, begin).length;
  }
  pcre2_match_data_free(data);
  return matches;
}

std::vector<std::pair<size_t, size_t>> findLiteral(std::string_view text,
                                                   std::string_view literal) {
  std::vector<std::pair<size_t, size_t>> matches;
  if (literal.empty())
    return matches;
  for (size_t found = text.find(literal); found != std::string_view::npos;
       found = text.find(literal, found + literal.size()))
    matches.emplace_back(found, found + literal.size());
  return matches;
}

} // namespace llmc::tokenizer
