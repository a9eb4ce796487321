//===- TestData.h - where tests find the shared reference data -*- C++ -*-===//
//
// Reference checkpoints and outputs live in `shared/refdata` beside the
// repository clone (`<repo>/../shared/refdata`), outside the Bazel workspace.
// A test finds the clone by resolving one of its runfiles, a symlink into the
// source tree, so the path needs no per-machine configuration.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TESTS_TESTDATA_H
#define LLMC_TESTS_TESTDATA_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace llmc::test {

/// The absolute path of `relative` inside the reference data directory (the
/// directory itself when `relative` is empty). `LLMC_REFDATA`, when set,
/// names the directory instead. When the path does not exist the test fails
/// (never skips) with a message naming it, and the path is returned anyway.
std::string getRefdataPath(llvm::StringRef relative = "");

} // namespace llmc::test

#endif // LLMC_TESTS_TESTDATA_H
