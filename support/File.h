//===- File.h - reading files without LLVM ----------------------*- C++ -*-===//
//
// Whole files as bytes: read into a string, or mapped read-only (a binary's
// weights, which the device reads in place and which may exceed RAM); and
// files written whole or not at all. Errors name the path and the system's
// reason.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_SUPPORT_FILE_H
#define LLMC_SUPPORT_FILE_H

#include "support/Status.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace llmc::support {

/// The bytes of the file at `path`; NotFound when it does not exist.
absl::StatusOr<std::string> readFile(const std::string &path);

/// The system's reason in an error of readFile or MappedFile::open ("No
/// such file or directory", "not a regular file"), for callers whose
/// messages word the failed step their own way ("cannot read").
std::string_view errorReason(const absl::Status &status);

/// A file mapped read-only into memory for as long as the object lives.
class MappedFile {
public:
  /// Maps the file at `path`; NotFound when it does not exist. An empty
  /// file maps to no bytes.
  static absl::StatusOr<std::unique_ptr<MappedFile>>
  open(const std::string &path);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  const char *data() const { return static_cast<const char *>(address); }
  size_t size() const { return length; }
  std::string_view bytes() const { return {data(), size()}; }
  const std::string &path() const { return filePath; }

private:
  MappedFile(std::string path, void *address, size_t length)
      : filePath(std::move(path)), address(address), length(length) {}

  std::string filePath;
  void *address;
  size_t length;
};

/// Writes the file at `path` through `write`, into a temporary file beside
/// it that is renamed over `path` only when complete: on error (or when the
/// process dies) no partial file is left at `path`. The message of a failure
/// is "cannot write '<path>': " and its reason (the error of `write`, or
/// the system's).
absl::Status
writeFileAtomically(const std::string &path,
                    const std::function<absl::Status(std::ostream &)> &write);

} // namespace llmc::support

#endif // LLMC_SUPPORT_FILE_H
