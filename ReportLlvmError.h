//===- ReportLlvmError.h - llvm::Error in llmc's commands -------*- C++ -*-===//
//
// The compiler's libraries (and, until they speak absl::Status, some of the
// runtime's) fail with llvm::Error; the commands print it as any error.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_REPORTLLVMERROR_H
#define LLMC_TOOLS_LLMC_REPORTLLVMERROR_H

#include "support/LlvmStatus.h"
#include "tools/llmc/CommandSupport.h"

namespace llmc {

/// Prints `error` as `llmc: error: ...` and returns exit code 1.
inline int reportError(llvm::Error error) {
  return reportError(support::toStatus(std::move(error)));
}

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_REPORTLLVMERROR_H
