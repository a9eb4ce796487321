#include "support/Strings.h"

#include <gtest/gtest.h>

namespace llmc::support {
namespace {

TEST(StringsTest, PrefixesAndSuffixes) {
  std::string_view text = "model.layers.3";
  EXPECT_TRUE(startsWith(text, "model."));
  EXPECT_FALSE(startsWith("mod", "model"));
  EXPECT_TRUE(endsWith(text, ".3"));
  EXPECT_FALSE(endsWith("3", ".3"));
  EXPECT_TRUE(consumePrefix(text, "model."));
  EXPECT_EQ(text, "layers.3");
  EXPECT_FALSE(consumePrefix(text, "model."));
  EXPECT_TRUE(consumeSuffix(text, ".3"));
  EXPECT_EQ(text, "layers");
  EXPECT_TRUE(contains("a<|im_end|>b", "<|im_end|>"));
}

TEST(StringsTest, TrimSplitJoin) {
  EXPECT_EQ(trim(" \t x y \n"), "x y");
  EXPECT_EQ(trim("   "), "");
  std::vector<std::string_view> pieces = split("a,,b,", ',');
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[0], "a");
  EXPECT_EQ(pieces[1], "");
  EXPECT_EQ(pieces[2], "b");
  EXPECT_EQ(pieces[3], "");
  EXPECT_EQ(split("", ',').size(), 1u);
  EXPECT_EQ(splitOnce("k=v=w", '=').first, "k");
  EXPECT_EQ(splitOnce("k=v=w", '=').second, "v=w");
  EXPECT_EQ(splitOnce("kv", '=').first, "kv");
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(toLowerAscii("BF16-Ä"), "bf16-Ä");
}

TEST(StringsTest, NumbersReadWhole) {
  EXPECT_EQ(parseInteger<int>("-42"), -42);
  EXPECT_EQ(parseInteger<int>("42x"), std::nullopt);
  EXPECT_EQ(parseInteger<int>(""), std::nullopt);
  EXPECT_EQ(parseInteger<int8_t>("300"), std::nullopt);
  EXPECT_EQ(parseInteger<uint32_t>("-1"), std::nullopt);
  EXPECT_EQ(parseDouble("0.25"), 0.25);
  EXPECT_EQ(parseDouble("1e-3"), 1e-3);
  EXPECT_EQ(parseDouble("1.5 "), std::nullopt);
}

TEST(StringsTest, StrCatTakesStringsAndNumbers) {
  std::string owned = "file.llmc";
  EXPECT_EQ(strCat(owned, ": piece ", 3, " of ", int64_t{-7}, ", ", 'x',
                   std::string_view("!")),
            "file.llmc: piece 3 of -7, x!");
  EXPECT_EQ(strCat(0.1, " ", 2.5f, " ", uint8_t{200}), "0.1 2.5 200");
}

TEST(StringsTest, StringViewHashLooksUpWithoutCopies) {
  std::string owned = "token";
  std::string_view view = owned;
  EXPECT_EQ(StringViewHash()(view), StringViewHash()("token"));
  EXPECT_TRUE(StringViewEq()(view, "token"));
  EXPECT_FALSE(StringViewEq()(view, "tokens"));
}

TEST(StringsTest, LittleEndianWhateverTheAlignment) {
  unsigned char bytes[9] = {0xff};
  writeLittleEndian<uint32_t>(bytes + 1, 0x12345678u);
  EXPECT_EQ(bytes[1], 0x78);
  EXPECT_EQ(bytes[4], 0x12);
  EXPECT_EQ(readLittleEndian<uint32_t>(bytes + 1), 0x12345678u);
  writeLittleEndian<uint64_t>(bytes + 1, 0x8000000000000001u);
  EXPECT_EQ(bytes[1], 0x01);
  EXPECT_EQ(bytes[8], 0x80);
  EXPECT_EQ(readLittleEndian<uint64_t>(bytes + 1), 0x8000000000000001u);
  writeLittleEndian<uint16_t>(bytes, 0xbeefu);
  EXPECT_EQ(readLittleEndian<uint16_t>(bytes), 0xbeefu);
}

} // namespace
} // namespace llmc::support
