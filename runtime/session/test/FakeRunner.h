//===- FakeRunner.h - a PieceRunner that records what it runs ---*- C++ -*-===//
//
// A model small enough to check by hand, for the session's tests:
//   - embed.*: hidden row t = [id_t, 0, ...];
//   - block.<i>.*: hidden passes through; new_k row t holds position_t + 1
//     in every channel and new_v row t holds id_t + 1 (channel 0 of the
//     hidden state), so the cache shows which token sits in which slot;
//   - lm_head: logit (id + 1) mod V is 1, the others 0;
//   - greedy_head: the first maximum.
// Every call is recorded with its inputs.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_TEST_FAKERUNNER_H
#define LLMC_RUNTIME_SESSION_TEST_FAKERUNNER_H

#include "runtime/session/ModelDims.h"
#include "runtime/session/PieceRunner.h"

#include <map>

#include <string>
#include <vector>

namespace llmc::session {

struct RecordedCall {
  std::string piece;
  std::vector<top::Tensor> inputs;
  /// For runWithHistoryFrom: the first history row given.
  int64_t historyFrom = -1;
};

class FakeRunner : public PieceRunner {
public:
  explicit FakeRunner(const ModelDims &dims) : dims(dims) {}

  absl::StatusOr<std::vector<top::Tensor>>
  run(std::string_view piece, absl::Span<const top::Tensor> inputs) override;

  /// With `keepHistory`, it keeps what it was given of each piece's history
  /// as a device does: per piece, the owner and the rows.
  bool keepsHistory() const override { return keepHistory; }
  int64_t getKeptHistoryRows(std::string_view piece,
                             uint64_t owner) const override;
  absl::StatusOr<std::vector<top::Tensor>>
  runWithHistoryFrom(std::string_view piece,
                     absl::Span<const top::Tensor> inputs, int64_t firstRow,
                     uint64_t owner) override;

  /// The names of the recorded calls, in order.
  std::vector<std::string> getPieceNames() const;

  std::vector<RecordedCall> calls;
  /// Pieces that fail when run.
  std::vector<std::string> failing;
  bool keepHistory = false;

private:
  ModelDims dims;
  /// Per piece: whose history it holds, and how many rows.
  std::map<std::string, std::pair<uint64_t, int64_t>, std::less<>> kept;
};

/// Dims of a two-layer model with L = 4 and S = 16.
ModelDims getFakeDims();

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_TEST_FAKERUNNER_H
