//===- CommandSupport.cpp - what llmc's commands share --------------------===//

#include "tools/llmc/CommandSupport.h"

#include "support/Strings.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <random>
#include <unistd.h>

namespace llmc {

/// Prints `llmc: <kind>: <message>`, the kind in bold `color` on a terminal
/// as LLVM's diagnostics show it.
static void printDiagnostic(std::string_view kind, std::string_view color,
                            std::string_view message) {
  const char *term = std::getenv("TERM");
  bool colors = ::isatty(STDERR_FILENO) && term && std::strcmp(term, "dumb");
  std::cerr << "llmc: ";
  if (colors)
    std::cerr << "\033[0;1;" << color << "m" << kind << ": \033[0m";
  else
    std::cerr << kind << ": ";
  std::cerr << message << "\n";
}

void printError(std::string_view message) {
  printDiagnostic("error", "31", message);
}

void printWarning(std::string_view message) {
  printDiagnostic("warning", "35", message);
}

int reportError(const absl::Status &status) {
  printError(support::getMessage(status));
  return 1;
}

absl::Status enterInvocationDirectory() {
  const char *directory = std::getenv("BUILD_WORKING_DIRECTORY");
  if (!directory || ::chdir(directory) == 0)
    return absl::OkStatus();
  return absl::FailedPreconditionError(
      support::strCat("cannot enter BUILD_WORKING_DIRECTORY '", directory,
                      "': ", std::strerror(errno)));
}

void printProgressTenths(std::string_view label, int64_t done, int64_t total,
                         std::string_view unit) {
  if (done == total || (10 * done / total) != (10 * (done - 1) / total))
    std::cerr << label << ": " << done << "/" << total << " " << unit << "\n";
}

/// Writes all of `bytes` to `fd`.
static bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote < 0)
      return false;
    bytes.remove_prefix(static_cast<size_t>(wrote));
  }
  return true;
}

/// Creates a file of a fresh name beside `path`; its descriptor, or -1.
static int createTemporary(const std::string &path, std::string &temporary) {
  std::mt19937_64 random(std::random_device{}());
  for (int attempt = 0; attempt < 128; ++attempt) {
    temporary = path + ".temp-stream-";
    for (int i = 0; i < 6; ++i)
      temporary += "0123456789abcdef"[random() % 16];
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                    0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  return -1;
}

absl::Status writeFileAtomically(const std::string &path,
                                 std::string_view contents) {
  if (path == "-") {
    std::cout << contents << std::flush;
    return absl::OkStatus();
  }
  if (path == "/dev/null")
    return absl::OkStatus();
  std::string temporary;
  int fd = createTemporary(path, temporary);
  if (fd < 0)
    return absl::UnavailableError(support::strCat(
        "cannot write ", path, ": '", path, "': ", std::strerror(errno)));
  bool written = writeAll(fd, contents);
  int error = errno;
  if (::close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (written && ::rename(temporary.c_str(), path.c_str()) == 0)
    return absl::OkStatus();
  if (written)
    error = errno;
  ::unlink(temporary.c_str());
  return absl::UnavailableError(
      support::strCat("cannot write ", path, ": ", std::strerror(error)));
}

} // namespace llmc
