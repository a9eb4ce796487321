//===- CorruptionTest.cpp - every reader error from edited files ----------===//

#include "runtime/format/test/TestBinaries.h"
#include "support/Strings.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace llmc::binary::test {
namespace {

using ::testing::HasSubstr;

/// A binary written by the sample writer, as bytes and as a file.
class CorruptionTest : public ::testing::Test {
protected:
  void SetUp() override {
    path = scratchDirectory() + "/model.llmc";
    absl::Status written = makeSampleWriter().write(path);
    ASSERT_TRUE(written.ok()) << written.message();
    bytes = readFile(path);
    ASSERT_FALSE(bytes.empty());
  }

  /// The error of opening `edited` from a file (so that it names the file).
  std::string errorOf(std::string_view edited, bool verifyChecksums = true) {
    writeFile(path, edited);
    absl::StatusOr<std::unique_ptr<LoadedBinary>> binary =
        LoadedBinary::open(path, verifyChecksums);
    if (binary.ok())
      return "";
    std::string message(binary.status().message());
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    return message;
  }

  std::string path;
  std::string bytes;
};

TEST_F(CorruptionTest, FlippedByteNamesItsSection) {
  const char *names[] = {"section 0 (MANIFEST)", "section 1 (STREAM)",
                         "section 2 (STREAM)", "section 3 (COEFF)",
                         "section 4 (TOKENIZER)"};
  for (size_t index = 0; index < 5; ++index) {
    SectionEntry section = entryAt(bytes, index);
    std::string edited = bytes;
    edited[section.offset + section.size / 2] ^= 0x10;
    EXPECT_THAT(errorOf(edited),
                HasSubstr(std::string("checksum mismatch in ") + names[index]));
  }
  // Without checksum verification a flipped weight byte goes unnoticed.
  std::string edited = bytes;
  edited[entryAt(bytes, 3).offset + 5] ^= 0x10;
  EXPECT_EQ(errorOf(edited, /*verifyChecksums=*/false), "");
}

TEST_F(CorruptionTest, Truncated) {
  EXPECT_THAT(errorOf(std::string_view(bytes).substr(0, bytes.size() - 1)),
              HasSubstr("truncated: section 4 (TOKENIZER)"));
  EXPECT_THAT(errorOf(std::string_view(bytes).substr(0, 40)),
              HasSubstr("truncated: the header and its table of 5 sections "
                        "need 176 bytes, the file has 40"));
  EXPECT_THAT(
      errorOf(std::string_view(bytes).substr(0, 12)),
      HasSubstr("truncated: 12 bytes, shorter than the 16-byte header"));
  EXPECT_THAT(errorOf(""), HasSubstr("truncated: 0 bytes"));
}

TEST_F(CorruptionTest, WrongMagic) {
  std::string edited = bytes;
  edited[3] = 'X';
  EXPECT_THAT(errorOf(edited), HasSubstr("not an llmc binary (bad magic)"));
  EXPECT_THAT(errorOf("PK\x03\x04"), HasSubstr("not an llmc binary"));
}

TEST_F(CorruptionTest, UnsupportedVersion) {
  std::string edited = bytes;
  support::writeLittleEndian<uint32_t>(&edited[8], 2);
  EXPECT_THAT(errorOf(edited),
              HasSubstr("unsupported format version 2 (this build reads 1)"));
}

TEST_F(CorruptionTest, OffsetBeyondTheEnd) {
  std::string edited = bytes;
  SectionEntry coeff = entryAt(edited, 3);
  coeff.offset = alignUp(bytes.size() + 1);
  setEntry(edited, 3, coeff);
  EXPECT_THAT(errorOf(edited),
              HasSubstr("truncated: section 3 (COEFF) (offset " +
                        std::to_string(coeff.offset)));
  // A size whose end overflows 64 bits.
  coeff = entryAt(bytes, 3);
  coeff.size = ~uint64_t(0) - 8;
  setEntry(edited, 3, coeff);
  EXPECT_THAT(errorOf(edited), HasSubstr("truncated: section 3 (COEFF)"));
}

TEST_F(CorruptionTest, BadSectionTableEntries) {
  SectionEntry entry = entryAt(bytes, 2);
  std::string edited = bytes;
  SectionEntry misaligned = entry;
  misaligned.offset += 8;
  setEntry(edited, 2, misaligned);
  EXPECT_THAT(errorOf(edited), HasSubstr("is not 64-byte aligned"));

  SectionEntry overlapping = entry;
  overlapping.offset = entryAt(bytes, 1).offset;
  edited = bytes;
  setEntry(edited, 2, overlapping);
  EXPECT_THAT(errorOf(edited), HasSubstr("overlaps"));

  SectionEntry unknown = entry;
  unknown.kind = 9;
  edited = bytes;
  setEntry(edited, 2, unknown);
  EXPECT_THAT(errorOf(edited), HasSubstr("section 2 (unknown kind 9)"));

  SectionEntry reserved = entry;
  reserved.reserved = 1;
  edited = bytes;
  setEntry(edited, 2, reserved);
  EXPECT_THAT(errorOf(edited), HasSubstr("nonzero reserved field"));

  edited = bytes;
  edited[entryAt(bytes, 1).end()] = 'x';
  EXPECT_THAT(errorOf(edited), HasSubstr("is not zero padding"));
}

TEST_F(CorruptionTest, ManifestThatDoesNotParse) {
  std::string edited = bytes;
  SectionEntry manifest = entryAt(bytes, 0);
  std::fill_n(&edited[manifest.offset], 16, '\xff');
  fixChecksum(edited, 0);
  EXPECT_THAT(errorOf(edited),
              HasSubstr("does not parse as an llmc.binary.Manifest"));
}

TEST_F(CorruptionTest, SectionCountsAreChecked) {
  std::string manifest = sampleManifestBytes([](Manifest &) {});
  EXPECT_EQ(openError(assembleSample(manifest)), "");
  EXPECT_THAT(openError(assemble({{SectionKind::Coeff, ""}})),
              HasSubstr("test.llmc: no MANIFEST section"));
  EXPECT_THAT(openError(assemble({{SectionKind::Manifest, manifest},
                                  {SectionKind::Manifest, manifest},
                                  {SectionKind::Coeff, ""}})),
              HasSubstr("more than one MANIFEST section"));
  EXPECT_THAT(openError(assemble({{SectionKind::Manifest, ""}})),
              HasSubstr("0 COEFF sections"));
  EXPECT_THAT(openError(assemble({{SectionKind::Manifest, ""},
                                  {SectionKind::Coeff, ""},
                                  {SectionKind::Tokenizer, "{}"},
                                  {SectionKind::Tokenizer, "{}"}})),
              HasSubstr("more than one TOKENIZER section"));
}

TEST_F(CorruptionTest, ManifestInconsistentWithSections) {
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes(
                  [](Manifest &m) { m.mutable_weights(2)->set_offset(448); }))),
              HasSubstr("weight blob 'llmc.rope.cos' (offset 448, 64 bytes) "
                        "lies outside the coeff section (256 bytes)"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes([](Manifest &m) {
                m.mutable_weights(1)->set_offset(~uint64_t(0) - 63);
              }))),
              HasSubstr("weight blob 'w.up'"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes(
                  [](Manifest &m) { m.mutable_weights(1)->set_offset(130); }))),
              HasSubstr("'w.up' at offset 130 is not 64-byte aligned"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes([](Manifest &m) {
                m.mutable_pieces(1)->set_stream_section(7);
              }))),
              HasSubstr("piece 'block.1.decode' names section 7, which is "
                        "missing (the file has 4 sections)"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes([](Manifest &m) {
                m.mutable_pieces(1)->set_stream_section(0);
              }))),
              HasSubstr("which is a MANIFEST section, not a STREAM"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes(
                  [](Manifest &m) { m.set_format_version(2); }))),
              HasSubstr("format_version is 2"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes(
                  [](Manifest &m) { m.set_coeff_bytes(64); }))),
              HasSubstr("coeff_bytes (64) differs"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes(
                  [](Manifest &m) { *m.add_pieces() = m.pieces(0); }))),
              HasSubstr("piece 'block.1.prefill' appears twice"));
  EXPECT_THAT(openError(assembleSample(sampleManifestBytes(
                  [](Manifest &m) { *m.add_weights() = m.weights(0); }))),
              HasSubstr("weight blob 'w.qkv' appears twice"));
}

TEST_F(CorruptionTest, MissingFile) {
  std::string missing = path + ".absent";
  absl::StatusOr<std::unique_ptr<LoadedBinary>> binary =
      LoadedBinary::open(missing);
  ASSERT_FALSE(binary.ok());
  EXPECT_TRUE(absl::IsNotFound(binary.status()));
  EXPECT_THAT(std::string(binary.status().message()),
              HasSubstr("cannot open '" + missing + "'"));
}

} // namespace
} // namespace llmc::binary::test
