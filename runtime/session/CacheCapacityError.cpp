//===- CacheCapacityError.cpp - a full KV cache as an llvm::Error ---------===//

#include "runtime/session/CacheCapacityError.h"

#include "llvm/Support/raw_ostream.h"

namespace llmc::session {

char CacheCapacityError::ID = 0;

void CacheCapacityError::log(llvm::raw_ostream &os) const {
  os << "the conversation needs " << needed << " tokens but the KV cache holds "
     << capacity;
}

std::error_code CacheCapacityError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error toLlvmError(const absl::Status &status) {
  if (std::optional<CacheCapacity> full = getCacheCapacity(status))
    return llvm::make_error<CacheCapacityError>(full->needed, full->capacity);
  return support::toLlvmError(status);
}

} // namespace llmc::session
