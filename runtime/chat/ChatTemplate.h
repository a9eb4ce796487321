//===- ChatTemplate.h - chat messages into a model's prompt text -*- C++
//-*-===//
//
// A chat template renders through the checkpoint's own Jinja
// `chat_template` when it has one (withJinja), and otherwise through one of
// the prompt formats of the supported families, written out in C++:
//
//   chatml  Qwen 2, 2.5 and 3:
//           <|im_start|>{role}\n{content}<|im_end|>\n ...
//           <|im_start|>assistant\n with an optional default system message
//           that is added when the conversation does not start with one (Qwen2:
//           "You are a helpful assistant.", Qwen2.5: "You are Qwen, created by
//           Alibaba Cloud. You are a helpful assistant.", Qwen3: none). Qwen3's
//           thinking blocks are not modelled: turns render as plain ChatML, as
//           Qwen3's template renders every assistant turn before the last user
//           turn.
//   llama3  <|begin_of_text|><|start_header_id|>{role}<|end_header_id|>\n\n
//           {content, trimmed}<|eot_id|> ... then the assistant header.
//   llama2  <s>[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{user} [/INST] {assistant}
//           </s><s>[INST] {user} [/INST] ... (contents stripped; a system
//           message only first; user and assistant turns alternate).
//   raw     no template: the contents concatenated as they are.
//
// The rendered text holds the BOS token where the family's template puts
// one, so it is encoded without adding special tokens.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_CHAT_CHATTEMPLATE_H
#define LLMC_RUNTIME_CHAT_CHATTEMPLATE_H

#include "runtime/chat/JinjaTemplate.h"
#include "runtime/tokenizer/TextRange.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::chat {

enum class Role { System, User, Assistant };

/// "system", "user" or "assistant".
std::string_view stringifyRole(Role role);
/// The role named `name`; an error for any other name.
absl::StatusOr<Role> parseRole(std::string_view name);

struct ChatMessage {
  Role role;
  std::string content;
};

/// A rendered conversation: the prompt text, and where the messages'
/// contents lie in it. Contents are people's words: they are encoded as
/// text, never as the special tokens the template itself writes, so that a
/// user who types "<|im_end|><|im_start|>system" cannot open a turn.
struct ChatPrompt {
  std::string text;
  /// Byte ranges of `text`, in order and disjoint.
  std::vector<tokenizer::TextRange> contents;

  void appendMarkup(std::string_view markup) { text += markup; }
  void appendContent(std::string_view content);
  void append(const ChatPrompt &other);
  /// The prompt without its first `bytes` bytes.
  ChatPrompt dropFront(size_t bytes) const;
  /// The prompt without white space at either end.
  ChatPrompt trim() const;
  /// Replaces the first `marker` in the text, content or not, with
  /// `markup` (an image's tokens in place of its `<image>` marker); false
  /// when the text holds no marker.
  bool replaceWithMarkup(std::string_view marker, std::string_view markup);
};

enum class ChatFormat { Raw, ChatML, Llama2, Llama3 };

/// "raw", "chatml", "llama2" or "llama3".
std::string_view stringifyChatFormat(ChatFormat format);

class ChatTemplate {
public:
  explicit ChatTemplate(ChatFormat format = ChatFormat::Raw,
                        std::string defaultSystemPrompt = "");

  /// The template called `id`: a format ("raw", "chatml", "llama2",
  /// "llama3") or a family ("qwen2", "qwen2.5", "qwen3": ChatML with that
  /// family's default system message).
  static absl::StatusOr<ChatTemplate> get(std::string_view id);

  /// Chooses the template of a checkpoint from the text of its
  /// `tokenizer_config.json` (empty when it has none) and the `model_type` of
  /// its config.json. A `chat_template` (a string, or a list of named
  /// templates of which "default" or else the first is read) that contains
  /// "<|im_start|>" is ChatML, with the default system message the template
  /// writes out literally, if any; "<|start_header_id|>" is Llama 3; "[INST]"
  /// is Llama 2. Without a recognised template, model types qwen2, qwen2_moe,
  /// qwen3 and qwen3_moe are ChatML without a default system message, llama
  /// is Llama 3 when the tokenizer config names <|eot_id|> (as an added
  /// token, BOS or EOS) and Llama 2 otherwise, and anything else is raw.
  /// Fails when the text is not a JSON object or `chat_template` has an
  /// unexpected type.
  static absl::StatusOr<ChatTemplate>
  detect(std::string_view tokenizerConfigJson, std::string_view modelType);

  /// This template rendering through `jinja`, a checkpoint's own template,
  /// whose bos_token and eos_token are `bosToken` and `eosToken`; the format
  /// still gives stopStrings(). Fails when the template cannot render a user
  /// turn and its reply, or rewrites the reply's text.
  absl::StatusOr<ChatTemplate> withJinja(JinjaTemplate jinja,
                                         std::string bosToken,
                                         std::string eosToken) const;
  /// The checkpoint's template this one renders through, if any.
  const std::optional<JinjaTemplate> &getJinja() const { return jinja; }
  /// This template passing the keywords of `variables`, a JSON object
  /// (`{"enable_thinking": false}`), to the Jinja template, as
  /// apply_chat_template passes extra keyword arguments. Fails when it is
  /// not an object, names a variable the renderer sets itself (messages,
  /// add_generation_prompt, bos_token, eos_token), or this template is a
  /// built-in format, which reads no variables.
  absl::StatusOr<ChatTemplate>
  withVariables(const nlohmann::ordered_json &variables) const;

  /// The prompt text of `messages`; with `addGenerationPrompt`, followed by
  /// what opens the assistant's reply. Fails on a conversation the template
  /// cannot express (it raises an exception; Llama 2: a system message after
  /// the first, or turns that do not alternate user/assistant starting with
  /// user).
  absl::StatusOr<ChatPrompt> render(absl::Span<const ChatMessage> messages,
                                    bool addGenerationPrompt) const;

  /// The text that extends a conversation the model has already read, as
  /// render(history, false), by `newMessages` (typically one user turn), for
  /// a runtime that keeps the history in its KV cache:
  /// render(history + newMessages, addGenerationPrompt) ==
  /// render(history, false) + renderContinuation(...). A cache that holds a
  /// generated reply after render(history minus the reply, true) matches
  /// render(history, false) once it has also read getReplySuffix().
  absl::StatusOr<ChatPrompt>
  renderContinuation(absl::Span<const ChatMessage> history,
                     absl::Span<const ChatMessage> newMessages,
                     bool addGenerationPrompt) const;

  /// What follows the assistant reply that ends `history`, for a runtime
  /// whose KV cache holds the conversation up to that reply's last token:
  /// what the template writes after the reply, then `newMessages`, then
  /// with `addGenerationPrompt` what opens the next reply. Rendered from the
  /// whole conversation, so it holds also for templates that render earlier
  /// turns differently once more follow (Qwen3 drops an old reply's empty
  /// thinking block); where the history renders the same, it equals
  /// getReplySuffix() + renderContinuation(...). Fails when `history` does
  /// not end with an assistant message, or the template rewrites the
  /// reply's text.
  absl::StatusOr<ChatPrompt>
  renderAfterReply(absl::Span<const ChatMessage> history,
                   absl::Span<const ChatMessage> newMessages,
                   bool addGenerationPrompt) const;

  /// What the template writes right after an assistant reply's content:
  /// "<|im_end|>\n", "<|eot_id|>", " </s>", or nothing for raw.
  std::string_view getReplySuffix() const;

  /// Texts that end the assistant's reply when generated ("<|im_end|>",
  /// "<|eot_id|>", ...); none for raw.
  std::vector<std::string> stopStrings() const;

  ChatFormat getFormat() const { return format; }
  /// The system message added when a conversation has none; empty for none.
  std::string_view getDefaultSystemPrompt() const {
    return defaultSystemPrompt;
  }

private:
  /// Sets jinjaReplySuffix from a render of a turn and its reply.
  absl::Status findJinjaReplySuffix();

  ChatFormat format;
  std::string defaultSystemPrompt;
  std::optional<JinjaTemplate> jinja;
  std::string bosToken, eosToken;
  /// Extra keywords for the Jinja template; null for none.
  std::shared_ptr<const nlohmann::ordered_json> variables;
  /// getReplySuffix() of the Jinja template.
  std::string jinjaReplySuffix;
};

} // namespace llmc::chat

#endif // LLMC_RUNTIME_CHAT_CHATTEMPLATE_H
