//===- WriterTest.cpp - determinism and atomic writes ---------------------===//

#include "runtime/format/test/TestBinaries.h"

#include "gtest/gtest.h"

#include <filesystem>

namespace llmc::binary::test {
namespace {

TEST(WriterTest, SameInputsGiveByteIdenticalFiles) {
  std::string directory = scratchDirectory();
  std::string first = directory + "/first.llmc";
  std::string second = directory + "/second.llmc";
  std::string third = directory + "/third.llmc";
  BinaryWriter writer = makeSampleWriter();
  ASSERT_TRUE(writer.write(first).ok());
  ASSERT_TRUE(writer.write(second).ok());
  ASSERT_TRUE(makeSampleWriter().write(third).ok());
  std::string bytes = readFile(first);
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes, readFile(second));
  EXPECT_EQ(bytes, readFile(third));
  EXPECT_EQ(bytes.substr(0, 8), std::string("LLMC\0BIN", 8));
}

TEST(WriterTest, MissingDirectoryFailsAndLeavesNothing) {
  std::string directory = scratchDirectory();
  std::string path = directory + "/absent/model.llmc";
  absl::Status error = makeSampleWriter().write(path);
  ASSERT_FALSE(error.ok());
  std::string message(error.message());
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(directory + "/absent"));
  EXPECT_TRUE(listDirectory(directory).empty());
}

TEST(WriterTest, ReplacesAnExistingFileAndLeavesNoTemporary) {
  std::string directory = scratchDirectory();
  std::string path = directory + "/model.llmc";
  writeFile(path, "an older binary");
  ASSERT_TRUE(makeSampleWriter().write(path).ok());
  EXPECT_EQ(listDirectory(directory), std::vector<std::string>{"model.llmc"});
  EXPECT_EQ(openError(readFile(path)), "");
}

TEST(WriterTest, InconsistentManifestIsNotWritten) {
  std::string directory = scratchDirectory();
  std::string path = directory + "/model.llmc";
  BinaryWriter writer = makeSampleWriter();
  // Section 3 is the COEFF section.
  writer.manifest().mutable_pieces(0)->set_stream_section(3);
  absl::Status error = writer.write(path);
  ASSERT_FALSE(error.ok());
  std::string message(error.message());
  EXPECT_NE(message.find("piece 'block.1.prefill' names section 3, which is "
                         "a COEFF section"),
            std::string::npos)
      << message;
  EXPECT_TRUE(listDirectory(directory).empty());

  BinaryWriter unknownWeight = makeSampleWriter();
  unknownWeight.manifest().mutable_pieces(1)->add_weights("w.down");
  error = unknownWeight.write(path);
  ASSERT_FALSE(error.ok());
  message = std::string(error.message());
  EXPECT_NE(message.find("'w.down'"), std::string::npos) << message;
  EXPECT_TRUE(listDirectory(directory).empty());
}

} // namespace
} // namespace llmc::binary::test
