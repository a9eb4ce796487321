//===- SplitPatterns.cpp - the regexes of byte-level pre-tokenizers -------===//

#include "runtime/tokenizer/SplitPatterns.h"

#include "runtime/tokenizer/Unicode.h"
#include "runtime/tokenizer/Utf8.h"

#include "llvm/Support/ErrorHandling.h"

namespace llmc::tokenizer {
namespace {

constexpr llvm::StringLiteral kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr llvm::StringLiteral kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr llvm::StringLiteral kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

/// Matches the alternatives of the patterns at one position at a time. Each
/// `match*` returns the end (a character index) of the match that starts at
/// `i`, or `i` when none does. Alternatives are tried in order and each
/// quantifier backtracks as Oniguruma's would, so the first success is the
/// regex's leftmost-first match.
class Scanner {
public:
  explicit Scanner(llvm::StringRef text) {
    for (size_t offset = 0; offset < text.size();) {
      Utf8Char c = readUtf8(text, offset);
      chars.push_back(c.codePoint);
      classes.push_back(classifyChar(c.codePoint));
      offsets.push_back(offset);
      offset += c.length;
    }
    offsets.push_back(text.size());
  }

  size_t size() const { return chars.size(); }
  size_t byteOffset(size_t i) const { return offsets[i]; }

  size_t matchGpt2(size_t i) const {
    if (size_t length = matchContraction(i, /*ignoreCase=*/false))
      return i + length;
    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: a space cannot itself
    // start a run of these classes, so only the form with it can match.
    for (CharClass cls :
         {CharClass::Letter, CharClass::Number, CharClass::Other}) {
      size_t start = chars[i] == ' ' && is(i + 1, cls) ? i + 1 : i;
      if (is(start, cls))
        return runEnd(start, cls);
    }
    return matchTrailingSpace(i);
  }

  size_t matchLlama3(size_t i, size_t maxDigits) const {
    if (size_t length = matchContraction(i, /*ignoreCase=*/true))
      return i + length;
    // `[^\r\n\p{L}\p{N}]?\p{L}+`
    if (!isLineBreak(i) && !is(i, CharClass::Letter) &&
        !is(i, CharClass::Number) && is(i + 1, CharClass::Letter))
      return runEnd(i + 1, CharClass::Letter);
    if (is(i, CharClass::Letter))
      return runEnd(i, CharClass::Letter);
    // `\p{N}{1,maxDigits}`
    if (is(i, CharClass::Number)) {
      size_t end = i;
      while (end - i < maxDigits && is(end, CharClass::Number))
        ++end;
      return end;
    }
    // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
    size_t start = chars[i] == ' ' && is(i + 1, CharClass::Other) ? i + 1 : i;
    if (is(start, CharClass::Other)) {
      size_t end = runEnd(start, CharClass::Other);
      while (isLineBreak(end))
        ++end;
      return end;
    }
    // `\s*[\r\n]+`: `\s*` backs off to the last line break of the run.
    if (is(i, CharClass::Space)) {
      for (size_t end = runEnd(i, CharClass::Space); end > i; --end)
        if (isLineBreak(end - 1))
          return end;
    }
    return matchTrailingSpace(i);
  }

private:
  bool is(size_t i, CharClass cls) const {
    return i < size() && classes[i] == cls;
  }
  bool isLineBreak(size_t i) const {
    return i < size() && (chars[i] == '\r' || chars[i] == '\n');
  }
  size_t runEnd(size_t i, CharClass cls) const {
    while (is(i, cls))
      ++i;
    return i;
  }

  /// `'s|'t|'re|'ve|'m|'ll|'d`, optionally under `(?i:...)`.
  size_t matchContraction(size_t i, bool ignoreCase) const {
    if (chars[i] != '\'')
      return 0;
    auto sameLetter = [&](size_t at, char letter) {
      if (at >= size())
        return false;
      uint32_t c = chars[at];
      if (c == static_cast<uint32_t>(letter))
        return true;
      if (!ignoreCase)
        return false;
      // U+017F LATIN SMALL LETTER LONG S case-folds to 's'.
      return c == static_cast<uint32_t>(letter - 'a' + 'A') ||
             (letter == 's' && c == 0x17F);
    };
    for (llvm::StringRef suffix : {"s", "t", "re", "ve", "m", "ll", "d"}) {
      bool matches = true;
      for (size_t k = 0; k < suffix.size() && matches; ++k)
        matches = sameLetter(i + 1 + k, suffix[k]);
      if (matches)
        return 1 + suffix.size();
    }
    return 0;
  }

  /// `\s+(?!\S)|\s+`: a run of spaces, less its last one when a non-space
  /// follows, so that space can lead the next word.
  size_t matchTrailingSpace(size_t i) const {
    if (!is(i, CharClass::Space))
      return i;
    size_t end = runEnd(i, CharClass::Space);
    if (end < size() && end - i >= 2)
      return end - 1;
    return end;
  }

  std::vector<uint32_t> chars;
  std::vector<CharClass> classes;
  /// The byte offset of each character, and the text's size last.
  std::vector<size_t> offsets;
};

} // namespace

llvm::StringRef getSplitPatternRegex(SplitPattern pattern) {
  switch (pattern) {
  case SplitPattern::Gpt2:
    return kGpt2Regex;
  case SplitPattern::Llama3:
    return kLlama3Regex;
  case SplitPattern::Qwen2:
    return kQwen2Regex;
  }
  llvm_unreachable("unknown split pattern");
}

std::optional<SplitPattern> recognizeSplitPattern(llvm::StringRef regex) {
  for (SplitPattern pattern :
       {SplitPattern::Gpt2, SplitPattern::Llama3, SplitPattern::Qwen2})
    if (regex == getSplitPatternRegex(pattern))
      return pattern;
  return std::nullopt;
}

std::vector<std::pair<size_t, size_t>> findSplitMatches(SplitPattern pattern,
                                                        llvm::StringRef text) {
  Scanner scanner(text);
  std::vector<std::pair<size_t, size_t>> matches;
  for (size_t i = 0; i < scanner.size();) {
    size_t end;
    switch (pattern) {
    case SplitPattern::Gpt2:
      end = scanner.matchGpt2(i);
      break;
    case SplitPattern::Llama3:
      end = scanner.matchLlama3(i, /*maxDigits=*/3);
      break;
    case SplitPattern::Qwen2:
      end = scanner.matchLlama3(i, /*maxDigits=*/1);
      break;
    }
    // No match starts here: the search moves on one character.
    if (end == i) {
      ++i;
      continue;
    }
    matches.emplace_back(scanner.byteOffset(i), scanner.byteOffset(end));
    i = end;
  }
  return matches;
}

} // namespace llmc::tokenizer
