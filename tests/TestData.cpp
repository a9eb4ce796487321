//===- TestData.cpp - where tests find the shared reference data ----------===//

#include "tests/TestData.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstdlib>

namespace llmc::test {
namespace {

/// `<repo>/../shared/refdata`, found from the runfile of this library's
/// header, which Bazel links to the source tree; empty outside a Bazel test.
std::string findRefdata() {
  const char *runfiles = std::getenv("TEST_SRCDIR");
  const char *workspace = std::getenv("TEST_WORKSPACE");
  if (!runfiles || !workspace)
    return {};
  llvm::SmallString<256> anchor(runfiles);
  llvm::sys::path::append(anchor, workspace, "tests", "TestData.h");
  llvm::SmallString<256> source;
  if (llvm::sys::fs::real_path(anchor, source))
    return {};
  llvm::StringRef repo =
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(source));
  llvm::SmallString<256> refdata(llvm::sys::path::parent_path(repo));
  llvm::sys::path::append(refdata, "shared", "refdata");
  return std::string(refdata);
}

} // namespace

std::string getRefdataPath(llvm::StringRef relative) {
  const char *configured = std::getenv("LLMC_REFDATA");
  llvm::SmallString<256> path(configured ? configured : findRefdata());
  if (path.empty()) {
    ADD_FAILURE() << "cannot locate the reference data: run the test with "
                     "`bazel test` or set LLMC_REFDATA";
    return relative.str();
  }
  llvm::sys::fs::make_absolute(path);
  llvm::sys::path::append(path, relative);
  if (!llvm::sys::fs::exists(path))
    ADD_FAILURE() << "reference data missing: " << path.str().str()
                  << " (expected `shared/refdata` beside the repository "
                     "clone, or LLMC_REFDATA)";
  return std::string(path);
}

} // namespace llmc::test
