//===- LlvmStatus.h - absl::Status to and from llvm::Error ------*- C++ -*-===//
//
// The compiler speaks llvm::Error and the runtime's libraries absl::Status;
// compiler code that calls the runtime's libraries (or is called by them)
// converts at the boundary with these. The message passes unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_SUPPORT_LLVMSTATUS_H
#define LLMC_SUPPORT_LLVMSTATUS_H

#include "support/Status.h"

#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace llmc::support {

inline llvm::Error toLlvmError(const absl::Status &status) {
  if (status.ok())
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 std::string(status.message()));
}

template <typename T>
llvm::Expected<T> toExpected(absl::StatusOr<T> value) {
  if (!value.ok())
    return toLlvmError(value.status());
  return std::move(value).value();
}

/// An error becomes an Unknown status carrying its message.
inline absl::Status toStatus(llvm::Error error) {
  if (!error)
    return absl::OkStatus();
  return absl::UnknownError(llvm::toString(std::move(error)));
}

template <typename T>
absl::StatusOr<T> toStatusOr(llvm::Expected<T> value) {
  if (!value)
    return toStatus(value.takeError());
  return std::move(*value);
}

} // namespace llmc::support

#endif // LLMC_SUPPORT_LLVMSTATUS_H
