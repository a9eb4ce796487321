//===- Unicode.h - character properties and normalization forms -*- C++ -*-===//
//
// The properties that added-token flags test (white space, word
// characters) and the Unicode normalization forms of the normalizers, both
// from ICU: the standard library has neither a general-category table nor
// composition.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_UNICODE_H
#define LLMC_RUNTIME_TOKENIZER_UNICODE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace llmc::tokenizer {

/// White_Space, as Rust's `char::is_whitespace` and regex `\s`.
bool isWhiteSpace(uint32_t codePoint);

/// A word character, as Rust regex `\w`: Alphabetic, a mark, a decimal
/// digit, a connector punctuation or a join control.
bool isWordChar(uint32_t codePoint);

/// `text` (well-formed UTF-8) in lower case, character by character with
/// Unicode's full default mappings and no context (no final sigma), as the
/// Hugging Face library's Lowercase normalizer maps it.
std::string toLowerUnicode(std::string_view text);

enum class NormalizationForm : uint8_t { NFC, NFD, NFKC, NFKD };

/// `text` (well-formed UTF-8) in normalization form `form`.
std::string normalizeUnicode(std::string_view text, NormalizationForm form);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_UNICODE_H
