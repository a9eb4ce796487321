//===- Trap.h - what the cmodel stops a command stream for ------*- C++ -*-===//
//
// A stream that would corrupt memory or race on real hardware must fail in
// the cmodel, loudly and with a message naming the command: a Trap is the
// llvm::Error it returns, with a kind that tests and tools can check.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_TRAP_H
#define LLMC_BACKENDS_COMMON_CMODEL_TRAP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llmc::cmodel {

enum class TrapKind {
  /// A local tensor ends beyond a lane's local memory.
  LocalOverflow,
  /// A local tensor's lanes lie beyond the chip's lanes, or are none.
  LaneRange,
  /// A local address or row stride is not a multiple of the EU bytes.
  Misaligned,
  /// A global access (or a gathered index) lies outside its region.
  OutOfBounds,
  /// A store into a region the device holds read-only.
  ReadOnly,
  /// Element types that must match, or be of a kind, do not.
  DTypeMismatch,
  /// Shapes, operand counts, attributes or lane placement are invalid.
  BadOperand,
  /// An output overlaps an input or another output in local memory.
  Overlap,
  /// The stream itself is malformed: version, duplicate ids, a wait on an
  /// unknown id or on the same queue, a command on the wrong queue.
  BadStream,
  /// A command touches local memory that a command of the other queue
  /// wrote or reads, without waiting for it (directly or transitively).
  MissingSync,
  /// A command reads local memory that nothing wrote during the run.
  UninitializedRead,
  /// Circular waits: neither queue can start its next command.
  Deadlock,
  /// The chip cannot run the command (no throughput for its element type).
  Unsupported,
};

/// `local memory overflow`, `missing sync`, ... for messages.
llvm::StringRef getTrapKindName(TrapKind kind);

class Trap : public llvm::ErrorInfo<Trap> {
public:
  static char ID;

  Trap(TrapKind kind, std::string message)
      : kind(kind), message(std::move(message)) {}

  TrapKind getKind() const { return kind; }
  const std::string &getMessage() const { return message; }

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  TrapKind kind;
  std::string message;
};

/// A Trap error.
llvm::Error makeTrap(TrapKind kind, const llvm::Twine &message);

/// `error` with every Trap's message prefixed by `prefix` (other errors are
/// passed through).
llvm::Error prefixTrap(llvm::Error error, const llvm::Twine &prefix);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_TRAP_H
