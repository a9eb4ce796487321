//===- Generation.cpp - turns of a conversation, token by token -----------===//

#include "runtime/session/Generation.h"

#include "llvm/ADT/STLExtras.h"

namespace llmc::session {

llvm::Error generateTurn(Session &session, llvm::ArrayRef<int32_t> prompt,
                         size_t turn, const GenerationLimits &limits,
                         TokenChooser choose, TokenSink sink,
                         std::vector<int32_t> &generated,
                         const PlacedEmbeddings *placed) {
  if (limits.maxNewTokens < 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "at least one token must be generated");
  llvm::Expected<std::vector<float>> logits = session.feed(prompt, placed);
  for (int64_t step = 0;; ++step) {
    if (!logits)
      return logits.takeError();
    llvm::Expected<int32_t> token = choose(*logits);
    if (!token)
      return token.takeError();
    generated.push_back(*token);
    bool goOn = sink(GeneratedToken{*token, *logits, turn, step});
    if (!goOn || step + 1 == limits.maxNewTokens ||
        llvm::is_contained(limits.stopTokens, *token))
      return llvm::Error::success();
    logits = session.feed({*token});
  }
}

llvm::Error generateTurns(Session &session, llvm::MutableArrayRef<Turn> turns,
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
    if (llvm::Error error =
            generateTurn(session, prompt, index, limits, choose, sink,
                         turn.generated,
                         placed.positions.empty() ? nullptr : &placed))
      return error;
    pending = {turn.generated.back()};
  }
  return llvm::Error::success();
}

} // namespace llmc::session
