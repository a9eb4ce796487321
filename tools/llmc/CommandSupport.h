//===- CommandSupport.h - what llmc's commands share ------------*- C++ -*-===//
//
// Reporting errors, progress and outputs the same way in every subcommand,
// the compiler's and the runtime's; on the standard library, so that the
// runtime's command line (llmc-run) links no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_COMMANDSUPPORT_H
#define LLMC_TOOLS_LLMC_COMMANDSUPPORT_H

#include "support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llmc {

/// Prints `llmc: error: <message>` on stderr.
void printError(std::string_view message);
/// Prints `llmc: warning: <message>` on stderr.
void printWarning(std::string_view message);

/// Prints `status` as `llmc: error: ...` and returns exit code 1.
int reportError(const absl::Status &status);

/// Enters the directory `bazel run` was started from, so that the paths a
/// user gives are relative to it (Bazel starts the tool in its runfiles).
absl::Status enterInvocationDirectory();

/// Prints `<label>: <done>/<total> <unit>` on stderr when `done` reaches a
/// new tenth of `total` or the end, for long runs without a progress bar.
void printProgressTenths(std::string_view label, int64_t done, int64_t total,
                         std::string_view unit);

/// Writes `contents` to `path` through a temporary file renamed into place,
/// so a failure never leaves a half-written output. `-` is stdout.
absl::Status writeFileAtomically(const std::string &path,
                                 std::string_view contents);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_COMMANDSUPPORT_H
