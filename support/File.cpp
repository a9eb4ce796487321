//===- File.cpp - reading files without LLVM ------------------------------===//

#include "support/File.h"

#include "support/Strings.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace llmc::support {

/// `message` with the code that says what the system's `error` means.
static absl::Status errnoStatus(int error, std::string message) {
  if (error == ENOENT)
    return absl::NotFoundError(message);
  return absl::UnavailableError(message);
}

static absl::Status systemError(const std::string &path, std::string_view what,
                                int error) {
  return errnoStatus(error,
                     strCat(path, ": ", what, ": ", std::strerror(error)));
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
  std::string_view message = getMessage(status);
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

/// Creates a new file named `path` and some random suffix; returns its name.
static absl::StatusOr<std::string>
createTemporaryFile(const std::string &path) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device seed;
  std::minstd_rand random(seed());
  int error = EEXIST;
  for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
    std::string name = path + ".tmp";
    for (int i = 0; i < 6; ++i)
      name += kLetters[random() % (sizeof(kLetters) - 1)];
    int fd =
        ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return name;
    }
    error = errno;
  }
  return errnoStatus(
      error, strCat("cannot create a temporary file: ", std::strerror(error)));
}

absl::Status
writeFileAtomically(const std::string &path,
                    const std::function<absl::Status(std::ostream &)> &write) {
  auto failure = [&](const absl::Status &reason) {
    return absl::Status(reason.code(), strCat("cannot write '", path, "': ",
                                              std::string(reason.message())));
  };
  absl::StatusOr<std::string> temporary = createTemporaryFile(path);
  if (!temporary.ok())
    return failure(temporary.status());
  std::ofstream out(*temporary, std::ios::binary | std::ios::trunc);
  errno = 0;
  absl::Status written = write(out);
  out.close();
  int error = errno;
  if (written.ok() && out.fail())
    written = errnoStatus(error, error ? std::strerror(error) : "I/O error");
  if (written.ok() && ::rename(temporary->c_str(), path.c_str()) != 0)
    written = errnoStatus(errno, std::strerror(errno));
  if (written.ok())
    return written;
  ::unlink(temporary->c_str());
  return failure(written);
}

} // namespace llmc::support
