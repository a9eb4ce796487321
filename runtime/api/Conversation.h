//===- Conversation.h - turns of token ids on one KV cache ------*- C++ -*-===//
//
// A conversation of token ids whose history stays in its KV cache: the
// first turn's prompt runs through prefill, every later one through
// prefill_kv after the history (runtime/session), so a turn costs only its
// new tokens.
//
//   std::unique_ptr<Conversation> conversation = model->startConversation();
//   absl::StatusOr<GenerateResult> first = conversation->send(turn1Ids);
//   absl::StatusOr<GenerateResult> second = conversation->send(turn2Ids);
//
// Each turn's last token is chosen but not yet fed; the next turn feeds it
// before its own ids, unless told to drop it (a chat template that writes
// the end of the reply itself).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_CONVERSATION_H
#define LLMC_RUNTIME_API_CONVERSATION_H

#include "runtime/api/Generate.h"
#include "runtime/session/Session.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"

#include <optional>

namespace llmc {

class Model;

/// What a turn does with the token the previous turn ended with.
enum class PendingToken { Feed, Drop };

class Conversation {
public:
  /// `model` must outlive the conversation.
  explicit Conversation(Model &model);

  /// Generates one turn after `ids`, `placed` (positions into `ids`)
  /// standing in for some of their embeddings (an image's). Fails without
  /// feeding anything when the turn's prompt does not fit the KV cache (a
  /// session::cacheCapacityError), the sampling parameters are invalid or
  /// there is nothing to feed; a turn that fills the cache ends with
  /// FinishReason::CacheFull.
  absl::StatusOr<GenerateResult>
  send(absl::Span<const int32_t> ids, const GenerateOptions &options = {},
       const TokenCallback &callback = {},
       PendingToken pending = PendingToken::Feed,
       const session::PlacedEmbeddings *placed = nullptr);

  /// Forgets the history; a sampler starts again from its seed.
  void reset();
  /// Keeps only the first `length` ids of the history (at most
  /// getHistoryLength()) and drops the pending token; a sampler starts again
  /// from its seed. A later turn that shares that prefix continues from it.
  void rewind(int64_t length);

  /// The ids in the KV cache, oldest first.
  absl::Span<const int32_t> getTokens() const { return session.getTokens(); }
  int64_t getHistoryLength() const { return session.getHistoryLength(); }
  /// The tokens the KV cache holds at most.
  int64_t getCapacity() const { return session.getDims().seqLength; }
  /// The token the last turn ended with, not fed yet; none before the first
  /// turn.
  std::optional<int32_t> getPendingToken() const { return pending; }

private:
  /// The sampler for `params`, kept across turns while they stay the same.
  absl::StatusOr<sampling::Sampler *>
  getSampler(const sampling::SamplingParams &params);

  Model &model;
  session::Session session;
  std::optional<sampling::Sampler> sampler;
  std::optional<int32_t> pending;
};

} // namespace llmc

#endif // LLMC_RUNTIME_API_CONVERSATION_H
