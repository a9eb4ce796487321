//===- Generation.cpp - turns of a conversation, token by token -----------===//

#include "runtime/session/Generation.h"

#include <algorithm>

namespace llmc::session {

absl::Status generateTurn(Session &session, absl::Span<const int32_t> prompt,
                          size_t turn, const GenerationLimits &limits,
                          TokenChooser choose, TokenSink sink,
                          std::vector<int32_t> &generated,
                          const PlacedEmbeddings *placed) {
  if (limits.maxNewTokens < 1)
    return absl::InvalidArgumentError("at least one token must be generated");
  absl::StatusOr<std::vector<float>> logits = session.feed(prompt, placed);
  for (int64_t step = 0;; ++step) {
    if (!logits.ok())
      return logits.status();
    LLMC_ASSIGN_OR_RETURN(int32_t token, choose(*logits));
    generated.push_back(token);
    bool goOn = sink(GeneratedToken{token, *logits, turn, step});
    if (!goOn || step + 1 == limits.maxNewTokens ||
        std::find(limits.stopTokens.begin(), limits.stopTokens.end(), token) !=
            limits.stopTokens.end())
      return absl::OkStatus();
    logits = session.feed({token});
  }
}

absl::Status generateTurns(Session &session, std::vector<Turn> &turns,
                           const GenerationLimits &limits, TokenChooser choose,
                           TokenSink sink) {
  std::vector<int32_t> pending;
  for (size_t index = 0; index < turns.size(); ++index) {
    Turn &turn = turns[index];
    std::vector<int32_t> prompt = pending;
    prompt.insert(prompt.end(), turn.inputIds.begin(), turn.inputIds.end());
    PlacedEmbeddings placed = turn.placed;
    for (int64_t &position : placed.positions)
      position += static_cast<int64_t>(pending.size());
    LLMC_RETURN_IF_ERROR(generateTurn(
        session, prompt, index, limits, choose, sink, turn.generated,
        placed.positions.empty() ? nullptr : &placed));
    pending = {turn.generated.back()};
  }
  return absl::OkStatus();
}

} // namespace llmc::session
