#include "support/File.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <sys/stat.h>

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

TEST(FileTest, WritesWholeFilesOrNone) {
  std::string directory = ::testing::TempDir() + "/atomic";
  std::remove((directory + "/out").c_str());
  std::remove(directory.c_str());
  ASSERT_EQ(::mkdir(directory.c_str(), 0755), 0);
  std::string path = directory + "/out";
  absl::Status written = writeFileAtomically(path, [](std::ostream &out) {
    out << "whole";
    return absl::OkStatus();
  });
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(*readFile(path), "whole");

  absl::Status failed = writeFileAtomically(path, [](std::ostream &out) {
    out << "half";
    return absl::InvalidArgumentError("no more");
  });
  EXPECT_TRUE(absl::IsInvalidArgument(failed));
  EXPECT_EQ(failed.message(), "cannot write '" + path + "': no more");
  EXPECT_EQ(*readFile(path), "whole");
  DIR *listing = ::opendir(directory.c_str());
  ASSERT_NE(listing, nullptr);
  int entries = 0;
  while (::readdir(listing))
    ++entries;
  ::closedir(listing);
  EXPECT_EQ(entries, 3) << "only ., .. and out";

  absl::Status missing = writeFileAtomically(
      "/nonexistent/out", [](std::ostream &) { return absl::OkStatus(); });
  EXPECT_TRUE(absl::IsNotFound(missing));
  EXPECT_EQ(missing.message().substr(0, 47),
            "cannot write '/nonexistent/out': cannot create ");
}

} // namespace
} // namespace llmc::support
