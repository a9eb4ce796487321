//===- Generation.h - turns of a conversation, token by token ---*- C++ -*-===//
//
// The loop every generating command shares: each turn feeds its prompt
// after the history (the previous turn's last token first, which has not
// been fed yet), then chooses and feeds one token at a time until the turn
// has `maxNewTokens` tokens, chose a stop token or its sink ends it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_GENERATION_H
#define LLMC_RUNTIME_SESSION_GENERATION_H

#include "runtime/session/Session.h"

#include "absl/functional/function_ref.h"

namespace llmc::session {

/// One turn: the ids the user gave and the ids generated after them.
struct Turn {
  std::vector<int32_t> inputIds;
  std::vector<int32_t> generated;
  /// Rows standing in for some of inputIds' embeddings (an image's), with
  /// positions into inputIds.
  PlacedEmbeddings placed;
};

struct GenerationLimits {
  /// Tokens generated per turn at most; must be positive.
  int64_t maxNewTokens = 16;
  /// Tokens that end a turn once chosen (they count as generated).
  absl::Span<const int32_t> stopTokens;
};

/// A token just chosen, with the logits it was chosen from.
struct GeneratedToken {
  int32_t id;
  absl::Span<const float> logits;
  /// Index of the turn and of the token within it.
  size_t turn;
  int64_t step;
};

/// Chooses the next token from the logits predicting it.
using TokenChooser =
    absl::FunctionRef<absl::StatusOr<int32_t>(absl::Span<const float> logits)>;
/// Sees every generated token as soon as it is chosen; returns false to end
/// the turn with that token.
using TokenSink = absl::FunctionRef<bool(const GeneratedToken &token)>;

/// Generates one turn: feeds `prompt` after the history, then chooses a
/// token and feeds it, one at a time, until `limits` or `sink` end the turn.
/// Appends each chosen token to `generated`. The last one is chosen but not
/// fed: what comes next decides whether it is. `turn` labels the tokens.
/// Fails before running anything when `prompt` does not fit the cache.
/// `placed` (positions into `prompt`) goes to Session::feed.
absl::Status generateTurn(Session &session, absl::Span<const int32_t> prompt,
                          size_t turn, const GenerationLimits &limits,
                          TokenChooser choose, TokenSink sink,
                          std::vector<int32_t> &generated,
                          const PlacedEmbeddings *placed = nullptr);

/// Generates every turn of `turns` in order, filling in `generated`; each
/// turn's prompt is the previous turn's last token and its `inputIds`.
absl::Status generateTurns(Session &session, std::vector<Turn> &turns,
                           const GenerationLimits &limits, TokenChooser choose,
                           TokenSink sink);

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_GENERATION_H
