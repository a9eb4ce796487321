//===- PieceRunner.cpp - something that runs a model's pieces -------------===//

#include "runtime/session/PieceRunner.h"

#include "support/Strings.h"

namespace llmc::session {

PieceRunner::~PieceRunner() = default;

bool PieceRunner::keepsHistory() const { return false; }

int64_t PieceRunner::getKeptHistoryRows(std::string_view, uint64_t) const {
  return 0;
}

absl::StatusOr<std::vector<top::Tensor>> PieceRunner::runWithHistoryFrom(
    std::string_view piece, absl::Span<const top::Tensor>, int64_t, uint64_t) {
  return absl::FailedPreconditionError(
      support::strCat("piece ", piece, ": this runner keeps no history"));
}

} // namespace llmc::session
