//===- Trap.cpp - what the cmodel stops a command stream for --------------===//

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

#include "absl/strings/cord.h"

#include <string>

namespace llmc::cmodel {

std::string_view getTrapKindName(TrapKind kind) {
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

namespace {

/// The payload that marks a status as a trap; its value is the kind's name.
constexpr const char *kTrapPayload = "type.llmc/cmodel.Trap";

std::string getPrefix(TrapKind kind) {
  return support::strCat("cmodel trap (", getTrapKindName(kind), "): ");
}

} // namespace

absl::Status makeTrap(TrapKind kind, std::string_view message) {
  absl::Status status(absl::StatusCode::kInvalidArgument,
                      support::strCat(getPrefix(kind), message));
  std::string_view name = getTrapKindName(kind);
  status.SetPayload(kTrapPayload,
                    absl::Cord(absl::string_view(name.data(), name.size())));
  return status;
}

std::optional<TrapKind> getTrapKind(const absl::Status &status) {
  auto payload = status.GetPayload(kTrapPayload);
  if (!payload)
    return std::nullopt;
  for (int kind = 0; kind <= int(TrapKind::Unsupported); ++kind)
    if (*payload == std::string(getTrapKindName(TrapKind(kind))))
      return TrapKind(kind);
  return std::nullopt;
}

std::string_view getTrapMessage(const absl::Status &status) {
  std::string_view message = support::getMessage(status);
  if (std::optional<TrapKind> kind = getTrapKind(status))
    support::consumePrefix(message, getPrefix(*kind));
  return message;
}

absl::Status prefixTrap(absl::Status status, std::string_view prefix) {
  std::optional<TrapKind> kind = getTrapKind(status);
  if (!kind)
    return status;
  return makeTrap(*kind, support::strCat(prefix, getTrapMessage(status)));
}

} // namespace llmc::cmodel
