//===- Trap.h - what the cmodel stops a command stream for ------*- C++ -*-===//
//
// A stream that would corrupt memory or race on real hardware must fail in
// the cmodel, loudly and with a message naming the command: a Trap is the
// absl::Status it returns, with a kind that tests and tools can check.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_TRAP_H
#define LLMC_BACKENDS_COMMON_CMODEL_TRAP_H

#include "support/Status.h"

#include <optional>
#include <string_view>

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
std::string_view getTrapKindName(TrapKind kind);

/// A trap: an InvalidArgument status (the stream is at fault) whose message
/// reads `cmodel trap (<kind>): <message>` and whose payload keeps the kind.
absl::Status makeTrap(TrapKind kind, std::string_view message);

/// The kind of a trap; nothing for any other status.
std::optional<TrapKind> getTrapKind(const absl::Status &status);
/// A trap's message without the `cmodel trap (<kind>): ` that makeTrap
/// puts before it; a status that is not a trap gives its whole message.
/// The text lives as long as `status`.
std::string_view getTrapMessage(const absl::Status &status);

/// `status` with a trap's message prefixed by `prefix` (other statuses are
/// passed through).
absl::Status prefixTrap(absl::Status status, std::string_view prefix);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_TRAP_H
