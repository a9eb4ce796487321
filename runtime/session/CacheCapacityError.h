//===- CacheCapacityError.h - a full KV cache as an llvm::Error -*- C++ -*-===//
//
// For the code that still speaks llvm::Error (the C and Python APIs, the
// chat and the tools): a Session's full-cache status (cacheCapacityError)
// as an error of its own type, which callers tell apart with
// llvm::handleErrors to add what the user can do about it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_CACHECAPACITYERROR_H
#define LLMC_RUNTIME_SESSION_CACHECAPACITYERROR_H

#include "runtime/session/Session.h"
#include "support/LlvmStatus.h"

#include "llvm/Support/Error.h"

namespace llmc::session {

/// The error of a conversation that outgrows the KV cache.
class CacheCapacityError : public llvm::ErrorInfo<CacheCapacityError> {
public:
  static char ID;
  CacheCapacityError(int64_t needed, int64_t capacity)
      : needed(needed), capacity(capacity) {}

  /// `the conversation needs N tokens but the KV cache holds S`.
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

  int64_t getNeeded() const { return needed; }
  int64_t getCapacity() const { return capacity; }

private:
  int64_t needed, capacity;
};

/// `status` as an llvm::Error: a CacheCapacityError when it is a
/// cacheCapacityError, else support::toLlvmError's.
llvm::Error toLlvmError(const absl::Status &status);

template <typename T> llvm::Expected<T> toExpected(absl::StatusOr<T> value) {
  if (!value.ok())
    return toLlvmError(value.status());
  return std::move(value).value();
}

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_CACHECAPACITYERROR_H
