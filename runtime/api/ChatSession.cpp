//===- ChatSession.cpp - a chat whose history stays on the device ---------===//

#include "runtime/api/ChatSession.h"

#include "runtime/api/Model.h"
#include "runtime/vision/ImagePrompt.h"
#include "support/Status.h"

#include "absl/algorithm/container.h"

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

absl::StatusOr<chat::ChatPrompt>
ChatSession::renderOpening(const ChatMessage &user) const {
  std::vector<ChatMessage> opening;
  if (!systemPrompt.empty())
    opening.push_back({Role::System, systemPrompt});
  opening.push_back(user);
  return chatTemplate.render(opening, /*addGenerationPrompt=*/true);
}

absl::StatusOr<std::vector<int32_t>>
ChatSession::encode(const chat::ChatPrompt &prompt,
                    const GenerateOptions &options) const {
  // The rendered text holds the BOS token where the template puts one.
  return model.encode(prompt.text, /*addSpecialTokens=*/false,
                      options.parseSpecialTokens
                          ? absl::Span<const tokenizer::TextRange>()
                          : absl::MakeConstSpan(prompt.contents));
}

absl::StatusOr<bool>
ChatSession::fitsNewConversation(std::string_view userText,
                                 const GenerateOptions &options) const {
  LLMC_ASSIGN_OR_RETURN(chat::ChatPrompt opening,
                        renderOpening({Role::User, std::string(userText)}));
  LLMC_ASSIGN_OR_RETURN(std::vector<int32_t> ids, encode(opening, options));
  return static_cast<int64_t>(ids.size()) <= conversation.getCapacity();
}

absl::StatusOr<chat::ChatPrompt>
ChatSession::renderTurn(const ChatMessage &user) const {
  // Until the first reply, the conversation holds at most the system
  // message, which nothing has fed yet.
  if (!conversation.getPendingToken())
    return renderOpening(user);
  return chatTemplate.renderAfterReply(messages, {user}, true);
}

absl::StatusOr<GenerateResult>
ChatSession::send(std::string_view userText, const TokenCallback &callback,
                  const GenerateOptions &options,
                  absl::Span<const vision::Image> images) {
  ChatMessage user{
      Role::User, images.empty()
                      ? std::string(userText)
                      : vision::addImageMarker(userText, model.getImageMarker(),
                                               images.size())};
  LLMC_ASSIGN_OR_RETURN(chat::ChatPrompt rendered, renderTurn(user));
  std::optional<ImagePrompt> withImages;
  std::vector<int32_t> ids;
  if (images.empty()) {
    LLMC_ASSIGN_OR_RETURN(ids, encode(rendered, options));
  } else {
    LLMC_ASSIGN_OR_RETURN(withImages,
                          model.encodeWithImages(std::move(rendered), images,
                                                 options.parseSpecialTokens));
    ids = withImages->ids;
  }
  // A reply that ended at a stop token is closed by the reply suffix; one
  // cut short ended inside its text, which the suffix follows.
  std::optional<int32_t> pending = conversation.getPendingToken();
  PendingToken policy =
      pending && absl::c_linear_search(model.getStopTokens(), *pending)
          ? PendingToken::Drop
          : PendingToken::Feed;
  LLMC_ASSIGN_OR_RETURN(
      GenerateResult reply,
      conversation.send(ids, options, callback, policy,
                        withImages ? &withImages->placed : nullptr));
  messages.push_back(std::move(user));
  messages.push_back({Role::Assistant, reply.text});
  return reply;
}

} // namespace llmc
