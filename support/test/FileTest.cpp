#include "support/File.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace llmc::support {
namespace {

std::string writeTemp(const std::string &name, const std::string &bytes) {
  std::string path = std::string(::testing::TempDir()) + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(FileTest, ReadsWholeFilesWithNulBytes) {
  std::string bytes("ab\0cd", 5);
  absl::StatusOr<std::string> read = readFile(writeTemp("bytes", bytes));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, bytes);
}

TEST(FileTest, MissingFileIsNotFoundAndNamed) {
  absl::StatusOr<std::string> read = readFile("/nonexistent/x.llmc");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(absl::IsNotFound(read.status()));
  EXPECT_NE(read.status().message().find("/nonexistent/x.llmc"),
            std::string::npos);
  EXPECT_EQ(errorReason(read.status()), "No such file or directory");
}

TEST(FileTest, DirectoryIsNotAFile) {
  absl::StatusOr<std::unique_ptr<MappedFile>> mapped =
      MappedFile::open(::testing::TempDir());
  ASSERT_FALSE(mapped.ok());
  EXPECT_NE(mapped.status().message().find("not a regular file"),
            std::string::npos);
  EXPECT_EQ(errorReason(mapped.status()), "not a regular file");
}

TEST(FileTest, MapsFilesAndEmptyFiles) {
  absl::StatusOr<std::unique_ptr<MappedFile>> mapped =
      MappedFile::open(writeTemp("mapped", "weights"));
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  EXPECT_EQ((*mapped)->bytes(), "weights");
  absl::StatusOr<std::unique_ptr<MappedFile>> empty =
      MappedFile::open(writeTemp("empty", ""));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ((*empty)->size(), 0u);
}

} // namespace
} // namespace llmc::support
