//===- File.cpp - reading files without LLVM ------------------------------===//

#include "support/File.h"

#include "support/Strings.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace llmc::support {

static absl::Status systemError(const std::string &path, std::string_view what,
                                int error) {
  std::string message = strCat(path, ": ", what, ": ", std::strerror(error));
  if (error == ENOENT)
    return absl::NotFoundError(message);
  return absl::UnavailableError(message);
}

namespace {
/// Closes its descriptor when it goes out of scope.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};
} // namespace

static absl::StatusOr<size_t> openRegularFile(const std::string &path,
                                              Descriptor &file) {
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0)
    return systemError(path, "cannot open", errno);
  struct stat info;
  if (::fstat(file.fd, &info) != 0)
    return systemError(path, "cannot stat", errno);
  if (!S_ISREG(info.st_mode))
    return absl::InvalidArgumentError(strCat(path, ": not a regular file"));
  return static_cast<size_t>(info.st_size);
}

absl::StatusOr<std::string> readFile(const std::string &path) {
  Descriptor file{-1};
  LLMC_ASSIGN_OR_RETURN(size_t size, openRegularFile(path, file));
  std::string bytes(size, '\0');
  size_t done = 0;
  while (done < size) {
    ssize_t got = ::read(file.fd, bytes.data() + done, size - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return systemError(path, "cannot read", errno);
    if (got == 0)
      break;
    done += static_cast<size_t>(got);
  }
  // A file that shrank while being read is read as it now ends.
  bytes.resize(done);
  return bytes;
}

std::string_view errorReason(const absl::Status &status) {
  // The messages read "<path>: <step>: <reason>" or "<path>: <reason>", and
  // no reason holds ": ".
  std::string_view message(status.message().data(), status.message().size());
  size_t at = message.rfind(": ");
  return at == std::string_view::npos ? message : message.substr(at + 2);
}

absl::StatusOr<std::unique_ptr<MappedFile>>
MappedFile::open(const std::string &path) {
  Descriptor file{-1};
  LLMC_ASSIGN_OR_RETURN(size_t size, openRegularFile(path, file));
  if (size == 0)
    return std::unique_ptr<MappedFile>(new MappedFile(path, nullptr, 0));
  void *address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address == MAP_FAILED)
    return systemError(path, "cannot map", errno);
  return std::unique_ptr<MappedFile>(new MappedFile(path, address, size));
}

MappedFile::~MappedFile() {
  if (address)
    ::munmap(address, length);
}

} // namespace llmc::support
