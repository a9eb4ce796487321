//===- Generation.cpp - turns of a conversation, token by token -----------===//

#include "runtime/session/Generation.h"

#include "llvm/ADT/STLExtras.h"

namespace llmc::session {

llvm::Error generateTurns(Session &session, llvm::MutableArrayRef<Turn> turns,
                          const GenerationLimits &limits, TokenChooser choose,
                          TokenSink sink) {
  if (limits.maxNewTokens < 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "at least one token must be generated");
  std::vector<int32_t> pending;
  for (size_t index = 0; index < turns.size(); ++index) {
    Turn &turn = turns[index];
    std::vector<int32_t> tokens = pending;
    tokens.insert(tokens.end(), turn.inputIds.begin(), turn.inputIds.end());
    llvm::Expected<std::vector<float>> logits = session.feed(tokens);
    for (int64_t step = 0;; ++step) {
      if (!logits)
        return logits.takeError();
      llvm::Expected<int32_t> token = choose(*logits);
      if (!token)
        return token.takeError();
      turn.generated.push_back(*token);
      sink(GeneratedToken{*token, *logits, index, step});
      if (step + 1 == limits.maxNewTokens ||
          llvm::is_contained(limits.stopTokens, *token)) {
        pending = {*token};
        break;
      }
      logits = session.feed({*token});
    }
  }
  return llvm::Error::success();
}

} // namespace llmc::session
