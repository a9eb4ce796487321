//===- Status.h - errors as absl::Status ------------------------*- C++ -*-===//
//
// The runtime reports failures as absl::Status values whose message is
// written for the user and names the file or the request at fault; the code
// says what kind of failure it is (InvalidArgument for bad input, NotFound
// for a missing file, ResourceExhausted for a full KV cache, ...). Print
// `status.message()`, not ToString(), which prefixes the code's name.
//
// Two macros keep the propagation of errors short:
//
//   LLMC_RETURN_IF_ERROR(writeHeader(out));
//   LLMC_ASSIGN_OR_RETURN(Manifest manifest, readManifest(bytes));
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_SUPPORT_STATUS_H
#define LLMC_SUPPORT_STATUS_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <utility>

/// Returns the status of `expr` from the enclosing function when it is not
/// OK.
#define LLMC_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    if (::absl::Status llmcStatus_ = (expr); !llmcStatus_.ok())                \
      return llmcStatus_;                                                      \
  } while (false)

#define LLMC_STATUS_CONCAT_INNER(a, b) a##b
#define LLMC_STATUS_CONCAT(a, b) LLMC_STATUS_CONCAT_INNER(a, b)

/// Evaluates `expr`, an absl::StatusOr; returns its status from the
/// enclosing function when it is an error, and otherwise moves its value
/// into `lhs` (a declaration or an lvalue).
#define LLMC_ASSIGN_OR_RETURN(lhs, expr)                                       \
  LLMC_ASSIGN_OR_RETURN_IMPL(LLMC_STATUS_CONCAT(llmcStatusOr_, __LINE__), lhs, \
                             expr)

#define LLMC_ASSIGN_OR_RETURN_IMPL(statusOr, lhs, expr)                        \
  auto statusOr = (expr);                                                      \
  if (!statusOr.ok())                                                          \
    return std::move(statusOr).status();                                       \
  lhs = std::move(statusOr).value()

#endif // LLMC_SUPPORT_STATUS_H
