//===- SplitPatterns.h - regexes of byte-level pre-tokenizers ---*- C++ -*-===//
//
// tokenizer.json files split text with Oniguruma regexes that use Unicode
// classes and lookahead (`\p{L}`, `\s+(?!\S)`), which llvm::Regex cannot
// express. The few patterns that real files use are recognised by their exact
// text and run as hand-written scanners with the same leftmost-first,
// backtracking semantics; any other pattern is rejected when the file loads.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_SPLITPATTERNS_H
#define LLMC_RUNTIME_TOKENIZER_SPLITPATTERNS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <utility>
#include <vector>

namespace llmc::tokenizer {

enum class SplitPattern {
  /// GPT-2's pattern, also what ByteLevel's `use_regex` applies.
  Gpt2,
  /// Llama 3: case-insensitive contractions, digits in runs of up to three.
  Llama3,
  /// Qwen2 and Qwen3: as Llama 3 with single digits.
  Qwen2,
};

/// The regex text of `pattern`, exactly as tokenizer.json files spell it.
llvm::StringRef getSplitPatternRegex(SplitPattern pattern);

/// The pattern whose regex text is `regex`, if it is one of the supported.
std::optional<SplitPattern> recognizeSplitPattern(llvm::StringRef regex);

/// The [begin, end) byte ranges of the successive non-overlapping matches of
/// `pattern` in `text` (well-formed UTF-8), as a regex `find_iter` yields.
std::vector<std::pair<size_t, size_t>> findSplitMatches(SplitPattern pattern,
                                                        llvm::StringRef text);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_SPLITPATTERNS_H
