//===- Unicode.cpp - character properties and normalization forms ---------===//

#include "runtime/tokenizer/Unicode.h"

#include "unicode/bytestream.h"
#include "unicode/locid.h"
#include "unicode/normalizer2.h"
#include "unicode/uchar.h"
#include "unicode/unistr.h"

#include <cstdio>
#include <cstdlib>

namespace llmc::tokenizer {

bool isWhiteSpace(uint32_t codePoint) {
  return u_isUWhiteSpace(static_cast<UChar32>(codePoint));
}

bool isWordChar(uint32_t codePoint) {
  auto c = static_cast<UChar32>(codePoint);
  return u_isUAlphabetic(c) ||
         (U_GET_GC_MASK(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) ||
         u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL);
}

std::string toLowerUnicode(std::string_view text) {
  icu::UnicodeString string = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  // Character by character, as Rust's `char::to_lowercase`: full mappings
  // (İ to i and a combining dot) but no context (Σ is always σ).
  icu::UnicodeString lower;
  for (int32_t i = 0; i < string.length(); i = string.moveIndex32(i, 1))
    lower.append(
        icu::UnicodeString(string.char32At(i)).toLower(icu::Locale::getRoot()));
  std::string out;
  lower.toUTF8String(out);
  return out;
}

/// ICU failing here is a broken installation, not bad input.
[[noreturn]] static void fatalIcuError(const char *what, UErrorCode status) {
  std::fprintf(stderr, "%s: %s\n", what, u_errorName(status));
  std::abort();
}

static const icu::Normalizer2 &getNormalizer(NormalizationForm form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2 *normalizer = nullptr;
  switch (form) {
  case NormalizationForm::NFC:
    normalizer = icu::Normalizer2::getNFCInstance(status);
    break;
  case NormalizationForm::NFD:
    normalizer = icu::Normalizer2::getNFDInstance(status);
    break;
  case NormalizationForm::NFKC:
    normalizer = icu::Normalizer2::getNFKCInstance(status);
    break;
  case NormalizationForm::NFKD:
    normalizer = icu::Normalizer2::getNFKDInstance(status);
    break;
  }
  // The instances are built from data linked into libicudata.
  if (U_FAILURE(status) || !normalizer)
    fatalIcuError("ICU normalizer unavailable", status);
  return *normalizer;
}

std::string normalizeUnicode(std::string_view text, NormalizationForm form) {
  const icu::Normalizer2 &normalizer = getNormalizer(form);
  icu::StringPiece input(text.data(), static_cast<int32_t>(text.size()));
  UErrorCode status = U_ZERO_ERROR;
  if (normalizer.isNormalizedUTF8(input, status) && U_SUCCESS(status))
    return std::string(text);
  std::string out;
  icu::StringByteSink<std::string> sink(&out,
                                        static_cast<int32_t>(text.size()));
  status = U_ZERO_ERROR;
  normalizer.normalizeUTF8(0, input, sink, nullptr, status);
  if (U_FAILURE(status))
    fatalIcuError("ICU normalization failed", status);
  return out;
}

} // namespace llmc::tokenizer
