//===- SplitRegex.h - regexes of tokenizer.json split patterns --*- C++ -*-===//
//
// tokenizer.json files split text with Oniguruma regexes that use Unicode
// properties and lookahead (`\p{L}`, `\s+(?!\S)`, `(?i:'s|'t)`), which
// std::regex cannot express. PCRE2, in UTF mode with Unicode properties for
// `\s`, `\w` and `\d`, runs them with the same leftmost-first backtracking
// semantics, JIT-compiled where the platform allows.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_SPLITREGEX_H
#define LLMC_RUNTIME_TOKENIZER_SPLITREGEX_H

#include "support/Status.h"

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace llmc::tokenizer {

/// A compiled split pattern; matching is thread-safe.
class SplitRegex {
public:
  /// `pattern` compiled, or an error naming the position PCRE2 stopped at.
  static absl::StatusOr<std::shared_ptr<const SplitRegex>>
  compile(std::string_view pattern);
  /// GPT-2's pattern, which ByteLevel's `use_regex` applies.
  static const SplitRegex &getGpt2();

  ~SplitRegex();
  SplitRegex(const SplitRegex &) = delete;
  SplitRegex &operator=(const SplitRegex &) = delete;

  /// The [begin, end) byte ranges of the successive non-overlapping,
  /// non-empty matches in `text`, as a regex `find_iter` yields them; none
  /// when `text` is not well-formed UTF-8, and none after a match that
  /// exceeds the backtracking limit (a hostile pattern).
  std::vector<std::pair<size_t, size_t>>
  findMatches(std::string_view text) const;

private:
  struct Code;
  explicit SplitRegex(std::unique_ptr<Code> code);
  std::unique_ptr<Code> code;
};

/// The [begin, end) byte ranges of every non-overlapping occurrence of
/// `literal` in `text`, left to right (none for an empty literal): what a
/// String pattern matches where a Regex one would run.
std::vector<std::pair<size_t, size_t>> findLiteral(std::string_view text,
                                                   std::string_view literal);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_SPLITREGEX_H
