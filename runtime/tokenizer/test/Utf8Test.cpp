//===- Utf8Test.cpp - UTF-8 decoding and repair ---------------------------===//

#include "runtime/tokenizer/Utf8.h"

#include "gtest/gtest.h"

namespace llmc::tokenizer {
namespace {

TEST(Utf8Test, ReadsCharactersAndIllFormedBytes) {
  Utf8Char euro = readUtf8("\xE2\x82\xAC", 0);
  EXPECT_TRUE(euro.valid);
  EXPECT_EQ(euro.codePoint, 0x20ACu);
  EXPECT_EQ(euro.length, 3u);
  // An overlong encoding is ill-formed at its first byte.
  Utf8Char overlong = readUtf8("\xC0\xAF", 0);
  EXPECT_FALSE(overlong.valid);
  EXPECT_EQ(overlong.length, 1u);
  Utf8Char cut = readUtf8("\xF0\x9F\xA4", 0);
  EXPECT_TRUE(cut.truncated);
  EXPECT_EQ(cut.length, 3u);
}

TEST(Utf8Test, RepairsEachMaximalIllFormedSubsequence) {
  // As Rust's from_utf8_lossy: a cut-off character is one U+FFFD, each
  // stray byte another.
  EXPECT_EQ(repairUtf8("a\xF0\x9F\xA4z"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(repairUtf8("\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(repairUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(repairUtf8("ok \xE4\xBD\xA0"), "ok \xE4\xBD\xA0");
}

TEST(Utf8Test, CompleteLengthHoldsBackOnlyACutOffCharacter) {
  EXPECT_EQ(completeUtf8Length("ab"), 2u);
  EXPECT_EQ(completeUtf8Length("ab\xE4\xBD"), 2u);
  EXPECT_EQ(completeUtf8Length("ab\xE4\xBD\xA0"), 5u);
  EXPECT_EQ(completeUtf8Length("\xF0\x9F\xA4"), 0u);
  // Bytes that can never become a character are not held back.
  EXPECT_EQ(completeUtf8Length("a\xFF"), 2u);
  EXPECT_EQ(completeUtf8Length("a\xE4\x41"), 3u);
}

} // namespace
} // namespace llmc::tokenizer
