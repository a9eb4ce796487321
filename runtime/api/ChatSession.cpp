//===- ChatSession.cpp - a chat whose history stays on the device ---------===//

#include "runtime/api/ChatSession.h"

#include "runtime/api/Model.h"
#include "runtime/vision/ImagePrompt.h"
#include "support/LlvmStatus.h"

#include "llvm/ADT/STLExtras.h"

namespace llmc {

using chat::ChatMessage;
using chat::Role;

ChatSession::ChatSession(Model &model, chat::ChatTemplate chatTemplate,
                         std::string systemPrompt)
    : model(model), chatTemplate(std::move(chatTemplate)),
      systemPrompt(std::move(systemPrompt)), conversation(model) {
  reset();
}

void ChatSession::reset() {
  conversation.reset();
  messages.clear();
  if (!systemPrompt.empty())
    messages.push_back({Role::System, systemPrompt});
}

llvm::Expected<chat::ChatPrompt>
ChatSession::renderOpening(const ChatMessage &user) const {
  std::vector<ChatMessage> opening;
  if (!systemPrompt.empty())
    opening.push_back({Role::System, systemPrompt});
  opening.push_back(user);
  return support::toExpected(
      chatTemplate.render(opening, /*addGenerationPrompt=*/true));
}

llvm::Expected<std::vector<int32_t>>
ChatSession::encode(llvm::Expected<chat::ChatPrompt> prompt,
                    const GenerateOptions &options) const {
  if (!prompt)
    return prompt.takeError();
  // The rendered text holds the BOS token where the template puts one.
  return model.encode(prompt->text, /*addSpecialTokens=*/false,
                      options.parseSpecialTokens
                          ? llvm::ArrayRef<tokenizer::TextRange>()
                          : llvm::ArrayRef(prompt->contents));
}

llvm::Expected<bool>
ChatSession::fitsNewConversation(llvm::StringRef userText,
                                 const GenerateOptions &options) const {
  llvm::Expected<std::vector<int32_t>> ids =
      encode(renderOpening({Role::User, userText.str()}), options);
  if (!ids)
    return ids.takeError();
  return static_cast<int64_t>(ids->size()) <= conversation.getCapacity();
}

llvm::Expected<chat::ChatPrompt>
ChatSession::renderTurn(const ChatMessage &user) const {
  // Until the first reply, the conversation holds at most the system
  // message, which nothing has fed yet.
  if (!conversation.getPendingToken())
    return renderOpening(user);
  return support::toExpected(
      chatTemplate.renderAfterReply(messages, {user}, true));
}

llvm::Expected<GenerateResult>
ChatSession::send(llvm::StringRef userText, const TokenCallback &callback,
                  const GenerateOptions &options,
                  llvm::ArrayRef<vision::Image> images) {
  ChatMessage user{Role::User, images.empty()
                                   ? userText.str()
                                   : vision::addImageMarker(
                                         userText, model.getImageMarker(),
                                         images.size())};
  std::optional<ImagePrompt> withImages;
  llvm::Expected<std::vector<int32_t>> ids = std::vector<int32_t>();
  if (images.empty()) {
    ids = encode(renderTurn(user), options);
  } else {
    llvm::Expected<chat::ChatPrompt> rendered = renderTurn(user);
    if (!rendered)
      return rendered.takeError();
    llvm::Expected<ImagePrompt> encoded = model.encodeWithImages(
        std::move(*rendered), images, options.parseSpecialTokens);
    if (!encoded)
      return encoded.takeError();
    withImages = std::move(*encoded);
    ids = withImages->ids;
  }
  if (!ids)
    return ids.takeError();
  // A reply that ended at a stop token is closed by the reply suffix; one
  // cut short ended inside its text, which the suffix follows.
  std::optional<int32_t> pending = conversation.getPendingToken();
  PendingToken policy =
      pending && llvm::is_contained(model.getStopTokens(), *pending)
          ? PendingToken::Drop
          : PendingToken::Feed;
  llvm::Expected<GenerateResult> reply =
      conversation.send(*ids, options, callback, policy,
                        withImages ? &withImages->placed : nullptr);
  if (!reply)
    return reply.takeError();
  messages.push_back(std::move(user));
  messages.push_back({Role::Assistant, reply->text});
  return reply;
}

} // namespace llmc
