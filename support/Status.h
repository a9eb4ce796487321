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

#include <string>
#include <string_view>
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

namespace llmc::support {

/// The message of `status` as a std::string_view (Debian's Abseil gives its
/// own absl::string_view); it lives as long as `status`.
inline std::string_view getMessage(const absl::Status &status) {
  return {status.message().data(), status.message().size()};
}

/// `status` with `prefix` put before its message and `suffix` after it
/// (`piece decode: ...`, `... (-p)`). Its code and payloads stay, so a
/// caller can still tell a full KV cache or a trap from other failures. An
/// OK status stays OK.
inline absl::Status annotateStatus(std::string_view prefix,
                                   const absl::Status &status,
                                   std::string_view suffix) {
  if (status.ok())
    return status;
  std::string message(prefix);
  message.append(status.message().data(), status.message().size());
  message.append(suffix);
  absl::Status annotated(status.code(), message);
  status.ForEachPayload([&](absl::string_view url, const absl::Cord &payload) {
    annotated.SetPayload(url, payload);
  });
  return annotated;
}

inline absl::Status prefixStatus(std::string_view prefix,
                                 const absl::Status &status) {
  return annotateStatus(prefix, status, "");
}

inline absl::Status suffixStatus(const absl::Status &status,
                                 std::string_view suffix) {
  return annotateStatus("", status, suffix);
}

} // namespace llmc::support

#endif // LLMC_SUPPORT_STATUS_H
