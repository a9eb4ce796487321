//===- FormatTest.cpp - the byte layout the document specifies ------------===//

#include "runtime/format/Format.h"

#include "gtest/gtest.h"

namespace llmc::binary {
namespace {

TEST(FormatTest, HeaderBytesAreLittleEndian) {
  SectionEntry entry;
  entry.kind = uint32_t(SectionKind::Coeff);
  entry.size = 0x0102;
  entry.checksum = 0x1122334455667788;
  std::vector<SectionEntry> sections = {entry};
  assignOffsets(sections);
  EXPECT_EQ(sections[0].offset, 64u);
  std::string header = encodeHeader(sections);
  ASSERT_EQ(header.size(), 48u);
  EXPECT_EQ(header, std::string("LLMC\0BIN"
                                "\1\0\0\0"
                                "\1\0\0\0"
                                "\3\0\0\0"
                                "\0\0\0\0"
                                "\x40\0\0\0\0\0\0\0"
                                "\x02\x01\0\0\0\0\0\0"
                                "\x88\x77\x66\x55\x44\x33\x22\x11",
                                48));
  SectionEntry decoded =
      decodeSectionEntry(reinterpret_cast<const uint8_t *>(header.data()) + 16);
  EXPECT_EQ(decoded.kind, entry.kind);
  EXPECT_EQ(decoded.offset, 64u);
  EXPECT_EQ(decoded.size, entry.size);
  EXPECT_EQ(decoded.checksum, entry.checksum);
}

TEST(FormatTest, SectionsStartAt64ByteBoundaries) {
  std::vector<SectionEntry> sections(3);
  sections[0].size = 1;
  sections[1].size = 64;
  sections[2].size = 0;
  assignOffsets(sections);
  // The header and a table of three end at byte 112.
  EXPECT_EQ(sections[0].offset, 128u);
  EXPECT_EQ(sections[1].offset, 192u);
  EXPECT_EQ(sections[2].offset, 256u);
}

TEST(FormatTest, ChecksumIsStandardXxh3) {
  // The XXH3 64-bit (seed 0) hash of no bytes.
  EXPECT_EQ(sectionChecksum({}), 0x2D06800538D394C2u);
  EXPECT_EQ(sectionKindName(4), "TOKENIZER");
  EXPECT_EQ(sectionKindName(0), "unknown kind 0");
}

} // namespace
} // namespace llmc::binary
