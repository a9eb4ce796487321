//===- PieceRunner.h - something that runs a model's pieces -----*- C++ -*-===//
//
// The one thing a Session needs from a device: run a named piece
// (docs/pieces.md) on host tensors. The reference interpreter, the cmodel
// running a compiled binary, and test fakes all implement it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_PIECERUNNER_H
#define LLMC_RUNTIME_SESSION_PIECERUNNER_H

#include "dialects/top/Interpreter/Tensor.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <string_view>
#include <vector>

namespace llmc::session {

class PieceRunner {
public:
  virtual ~PieceRunner();

  /// Runs piece `piece` on `inputs`, given in the piece's argument order,
  /// and returns its outputs in result order. Errors name the piece.
  virtual absl::StatusOr<std::vector<top::Tensor>>
  run(std::string_view piece, absl::Span<const top::Tensor> inputs) = 0;

  /// Whether the runner keeps a piece's history inputs (roles history_k
  /// and history_v, [1, slots, kv_heads, head_dim]) between its runs, so
  /// that runWithHistoryFrom may be given only the rows it lacks. A device
  /// keeps them where the piece reads them: a decode step then moves one
  /// row per layer, not the whole cache.
  virtual bool keepsHistory() const;

  /// For a runner that keeps history: how many leading rows of `piece`'s
  /// history it holds from `owner`'s runs of it (0 when another owner ran
  /// the piece since).
  virtual int64_t getKeptHistoryRows(std::string_view piece,
                                     uint64_t owner) const;

  /// For a runner that keeps history: run() for `owner` (a session), each
  /// history input holding only the rows [firstRow, firstRow + its rows),
  /// firstRow at most getKeptHistoryRows(piece, owner); the runner keeps
  /// the rows before it, and holds firstRow + its rows for `owner` after.
  /// Rows past those are left as they were: the caller masks them.
  virtual absl::StatusOr<std::vector<top::Tensor>>
  runWithHistoryFrom(std::string_view piece,
                     absl::Span<const top::Tensor> inputs, int64_t firstRow,
                     uint64_t owner);
};

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_PIECERUNNER_H
