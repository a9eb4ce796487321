//===- PieceRunner.cpp - something that runs a model's pieces -------------===//

#include "runtime/session/PieceRunner.h"

namespace llmc::session {

PieceRunner::~PieceRunner() = default;

bool PieceRunner::keepsHistory() const { return false; }

int64_t PieceRunner::getKeptHistoryRows(llvm::StringRef, uint64_t) const {
  return 0;
}

llvm::Expected<std::vector<top::Tensor>>
PieceRunner::runWithHistoryFrom(llvm::StringRef piece,
                                llvm::ArrayRef<top::Tensor>, int64_t,
                                uint64_t) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "piece " + piece +
                                     ": this runner keeps no history");
}

} // namespace llmc::session
