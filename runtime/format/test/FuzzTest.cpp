//===- FuzzTest.cpp - the reader on truncated and corrupted bytes ---------===//

#include "runtime/format/test/TestBinaries.h"

#include <google/protobuf/stubs/logging.h>

#include <random>

#include "gtest/gtest.h"

namespace llmc::binary::test {
namespace {

std::string sampleBytes() {
  std::string path = scratchDirectory() + "/model.llmc";
  absl::Status written = makeSampleWriter().write(path);
  EXPECT_TRUE(written.ok()) << written.message();
  return readFile(path);
}

TEST(FuzzTest, EveryTruncationFails) {
  std::string bytes = sampleBytes();
  ASSERT_FALSE(bytes.empty());
  for (size_t size = 0; size < bytes.size(); size += 97) {
    std::string_view cut = std::string_view(bytes).substr(0, size);
    EXPECT_NE(openError(cut), "") << size;
    EXPECT_NE(openError(cut, /*verifyChecksums=*/false), "") << size;
  }
  EXPECT_EQ(openError(bytes), "");
}

TEST(FuzzTest, RandomByteFlipsNeverCrash) {
  // Garbage manifests make protobuf log UTF-8 complaints; keep the log quiet.
  google::protobuf::LogHandler *previous =
      google::protobuf::SetLogHandler(nullptr);
  std::string bytes = sampleBytes();
  ASSERT_FALSE(bytes.empty());
  std::mt19937 random(20240607);
  std::uniform_int_distribution<size_t> position(0, bytes.size() - 1);
  std::uniform_int_distribution<int> flips(1, 4);
  std::uniform_int_distribution<int> bit(0, 7);
  int opened = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::string edited = bytes;
    int count = flips(random);
    for (int i = 0; i < count; ++i)
      edited[position(random)] ^= char(1 << bit(random));
    // With checksums, any single flipped bit is caught.
    if (count == 1)
      EXPECT_NE(openError(edited), "") << iteration;
    else
      openError(edited);
    if (openError(edited, /*verifyChecksums=*/false).empty())
      ++opened;
  }
  // Flips inside the weights and streams still open without checksums.
  EXPECT_GT(opened, 0);
  google::protobuf::SetLogHandler(previous);
}

TEST(FuzzTest, RandomBytesNeverCrash) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string header =
      assemble({{SectionKind::Manifest, ""}, {SectionKind::Coeff, ""}});
  for (int iteration = 0; iteration < 500; ++iteration) {
    // Keep the magic and version half the time so the table is reached.
    std::string edited(256, '\0');
    for (char &c : edited)
      c = char(byte(random));
    if (iteration % 2 == 0)
      edited.replace(0, 12, header.substr(0, 12));
    EXPECT_NE(openError(edited, /*verifyChecksums=*/false), "");
  }
}

} // namespace
} // namespace llmc::binary::test
