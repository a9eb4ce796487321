//===- Session.h - a conversation scheduled onto pieces ---------*- C++ -*-===//
//
// Runs a model's pieces in autoregressive order on any PieceRunner, keeping
// the KV cache between calls (docs/pieces.md, "Conventions every runner
// follows"): the first prompt through prefill in chunks of L (prefill, then
// prefill_kv), every later prompt through prefill_kv after the history,
// single tokens (and prompts arriving after more history than prefill_kv
// holds) through decode; the logits of the last token through lm_head. A
// chunk runs in the shortest of the model's chunk lengths (its prefill
// lengths, then L) that holds it, so a short turn is not padded to L.
//
//   Session session(runner, dims);
//   absl::StatusOr<std::vector<float>> logits = session.feed(promptIds);
//   absl::StatusOr<int32_t> token = session.pickGreedy(*logits);
//   logits = session.feed({*token});
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_SESSION_H
#define LLMC_RUNTIME_SESSION_SESSION_H

#include "runtime/session/KvCache.h"
#include "runtime/session/ModelDims.h"
#include "runtime/session/PieceRunner.h"

#include "absl/types/span.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llmc::session {

/// The error of a conversation that outgrows the KV cache: ResourceExhausted,
/// `the conversation needs N tokens but the KV cache holds S`, with the two
/// sizes attached. Callers add what the user can do about it (a larger
/// --seq-length, a shorter prompt).
absl::Status cacheCapacityError(int64_t needed, int64_t capacity);

struct CacheCapacity {
  int64_t needed;
  int64_t capacity;
};

/// The sizes of a cacheCapacityError; nothing for any other status.
std::optional<CacheCapacity> getCacheCapacity(const absl::Status &status);

/// Rows that stand in for the token embeddings of some of the tokens fed
/// together: an image's embeddings at its placeholder tokens.
struct PlacedEmbeddings {
  /// Indices into the fed tokens, strictly ascending.
  std::vector<int64_t> positions;
  /// One row of the model's hidden size per position, row-major.
  std::vector<float> rows;
};

class Session {
public:
  /// `runner` must outlive the session; `dims` must be valid
  /// (ModelDims::validate).
  Session(PieceRunner &runner, const ModelDims &dims);

  /// Appends `tokens` to the conversation and returns the logits [V] that
  /// predict the token after them. With `placed`, the layers see its rows
  /// in place of the embeddings of the tokens it names. Fails on an empty
  /// list, an id outside the vocabulary, placed rows that do not fit the
  /// tokens or a conversation longer than S (a cacheCapacityError), before
  /// running anything; and when a piece fails.
  absl::StatusOr<std::vector<float>>
  feed(absl::Span<const int32_t> tokens,
       const PlacedEmbeddings *placed = nullptr);

  /// The greedy choice among `logits`, computed by the greedy_head piece.
  absl::StatusOr<int32_t> pickGreedy(absl::Span<const float> logits);

  /// Tokens whose K/V are in the cache.
  int64_t getHistoryLength() const {
    return static_cast<int64_t>(tokens.size());
  }
  /// The ids fed so far, oldest first.
  absl::Span<const int32_t> getTokens() const { return tokens; }
  const ModelDims &getDims() const { return dims; }

  /// Forgets the conversation.
  void reset();
  /// Forgets every token after the first `length` (at most the history):
  /// the next feed continues from there. The cache rows past `length` are
  /// masked until overwritten; a runner that keeps history is given it
  /// again.
  void truncate(int64_t length);

private:
  enum class Phase { Prefill, PrefillKV, Decode };
  /// The phase as block piece names spell it (`block.<i>.prefill_kv`).
  static std::string_view getPhaseName(Phase phase);

  /// Runs one chunk of at most `length` tokens (one of the chunk lengths,
  /// or 1 for a decode token) through every layer, the rows of `placed`
  /// whose positions fall in the chunk (which starts at `offset` of the fed
  /// tokens) replacing their embeddings; returns the hidden state of its
  /// last token.
  absl::StatusOr<std::vector<float>> runChunk(absl::Span<const int32_t> chunk,
                                              Phase phase, int64_t length,
                                              int64_t offset,
                                              const PlacedEmbeddings *placed);
  /// Checks `placed` against the `count` tokens fed with it.
  absl::Status checkPlaced(const PlacedEmbeddings &placed, int64_t count) const;
  /// The chunk length the next `pending` tokens run in after the history:
  /// the shortest that holds min(pending, L) tokens and whose prefill_kv
  /// has room for the history, else the longest with room (a shorter
  /// chunk), else none (decode, token by token).
  std::optional<int64_t> chooseChunkLength(int64_t pending) const;
  /// The history slots a piece of `phase` for chunks of `length` reads.
  int64_t getHistorySlots(Phase phase, int64_t length) const;

  PieceRunner &runner;
  ModelDims dims;
  KvCache cache;
  std::vector<int32_t> tokens;
  /// Names this session's history to the runner; reset() takes a new one,
  /// so what the runner kept of the old conversation is not reused.
  uint64_t historyOwner;
};

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_SESSION_H
