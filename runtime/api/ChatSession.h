//===- ChatSession.h - a chat whose history stays on the device -*- C++ -*-===//
//
// Turns of text, rendered with the model's chat template (runtime/chat) and
// generated on one Conversation, so the KV cache keeps the history:
//
//   auto chat = model->startChat("You are terse.").value();
//   absl::StatusOr<GenerateResult> reply = chat->send("Hello!", printText);
//
// The first turn feeds the whole rendered prompt (system message, user turn,
// the opening of the reply). Each later turn feeds only what extends the
// conversation: the end the template writes after a reply (the reply's own
// stop token is dropped, as the template spells the end itself), then the
// template's continuation for the new user turn. The cache then holds what
// rendering the whole conversation would give.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_CHATSESSION_H
#define LLMC_RUNTIME_API_CHATSESSION_H

#include "runtime/api/Conversation.h"
#include "runtime/chat/ChatTemplate.h"
#include "runtime/vision/Image.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"

#include <string>
#include <string_view>
#include <vector>

namespace llmc {

class ChatSession {
public:
  /// `model` must have a tokenizer and outlive the session. `systemPrompt`
  /// opens the conversation when not empty.
  ChatSession(Model &model, chat::ChatTemplate chatTemplate,
              std::string systemPrompt);

  /// Sends a user turn and generates the reply; `images` go where the
  /// turn's `<image>` markers stand (Model::encodeImagePrompt). Fails
  /// without changing the conversation when the turn does not fit the KV
  /// cache (a session::cacheCapacityError: reset() and send it again), the
  /// template cannot render it or its images cannot be placed.
  absl::StatusOr<GenerateResult>
  send(std::string_view userText, const TokenCallback &callback = {},
       const GenerateOptions &options = {},
       absl::Span<const vision::Image> images = {});

  /// Starts a new conversation with the same system prompt.
  void reset();

  /// Whether `userText` would fit a new conversation (after reset()):
  /// whether the KV cache holds its opening prompt, encoded as send() with
  /// `options` encodes it.
  absl::StatusOr<bool>
  fitsNewConversation(std::string_view userText,
                      const GenerateOptions &options = {}) const;

  /// The conversation so far: the system message when given, then the user
  /// turns and the replies (their text, special tokens left out).
  absl::Span<const chat::ChatMessage> getMessages() const { return messages; }
  const Conversation &getConversation() const { return conversation; }
  const chat::ChatTemplate &getChatTemplate() const { return chatTemplate; }

private:
  /// The prompt that opens a new conversation with the user turn `user`.
  absl::StatusOr<chat::ChatPrompt>
  renderOpening(const chat::ChatMessage &user) const;
  /// The prompt that extends the conversation by the user turn `user`.
  absl::StatusOr<chat::ChatPrompt>
  renderTurn(const chat::ChatMessage &user) const;
  /// The ids of a rendered `prompt`: its messages' contents are text unless
  /// options.parseSpecialTokens.
  absl::StatusOr<std::vector<int32_t>>
  encode(const chat::ChatPrompt &prompt, const GenerateOptions &options) const;

  Model &model;
  chat::ChatTemplate chatTemplate;
  std::string systemPrompt;
  Conversation conversation;
  std::vector<chat::ChatMessage> messages;
};

} // namespace llmc

#endif // LLMC_RUNTIME_API_CHATSESSION_H
