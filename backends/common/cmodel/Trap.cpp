//===- Trap.cpp - what the cmodel stops a command stream for --------------===//

#include "backends/common/cmodel/Trap.h"

#include "llvm/Support/raw_ostream.h"

namespace llmc::cmodel {

char Trap::ID = 0;

llvm::StringRef getTrapKindName(TrapKind kind) {
  switch (kind) {
  case TrapKind::LocalOverflow:
    return "local memory overflow";
  case TrapKind::LaneRange:
    return "lane range";
  case TrapKind::Misaligned:
    return "misaligned";
  case TrapKind::OutOfBounds:
    return "out of bounds";
  case TrapKind::ReadOnly:
    return "read-only";
  case TrapKind::DTypeMismatch:
    return "dtype mismatch";
  case TrapKind::BadOperand:
    return "bad operand";
  case TrapKind::Overlap:
    return "overlap";
  case TrapKind::BadStream:
    return "bad stream";
  case TrapKind::MissingSync:
    return "missing sync";
  case TrapKind::UninitializedRead:
    return "uninitialized read";
  case TrapKind::Deadlock:
    return "deadlock";
  case TrapKind::Unsupported:
    return "unsupported";
  }
  return "trap";
}

void Trap::log(llvm::raw_ostream &os) const {
  os << "cmodel trap (" << getTrapKindName(kind) << "): " << message;
}

std::error_code Trap::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error makeTrap(TrapKind kind, const llvm::Twine &message) {
  return llvm::make_error<Trap>(kind, message.str());
}

llvm::Error prefixTrap(llvm::Error error, const llvm::Twine &prefix) {
  return llvm::handleErrors(std::move(error), [&](const Trap &trap) {
    return makeTrap(trap.getKind(), prefix + trap.getMessage());
  });
}

} // namespace llmc::cmodel
