//===- ChatTemplate.cpp - chat messages into a model's prompt text --------===//

#include "runtime/chat/ChatTemplate.h"

#include "support/Strings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace llmc::chat {

using support::strCat;

/// Chat faults are the caller's: a conversation or a name the template
/// cannot take.
static absl::Status makeError(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

std::string_view stringifyRole(Role role) {
  switch (role) {
  case Role::System:
    return "system";
  case Role::User:
    return "user";
  case Role::Assistant:
    return "assistant";
  }
  // The switch covers every role.
  std::abort();
}

absl::StatusOr<Role> parseRole(std::string_view name) {
  for (Role role : {Role::System, Role::User, Role::Assistant})
    if (name == stringifyRole(role))
      return role;
  return makeError(strCat("chat: unknown role '", name,
                          "' (expected system, user or assistant)"));
}

std::string_view stringifyChatFormat(ChatFormat format) {
  switch (format) {
  case ChatFormat::Raw:
    return "raw";
  case ChatFormat::ChatML:
    return "chatml";
  case ChatFormat::Llama2:
    return "llama2";
  case ChatFormat::Llama3:
    return "llama3";
  }
  // The switch covers every format.
  std::abort();
}

ChatTemplate::ChatTemplate(ChatFormat format, std::string defaultSystemPrompt)
    : format(format), defaultSystemPrompt(std::move(defaultSystemPrompt)) {}

absl::StatusOr<ChatTemplate> ChatTemplate::get(std::string_view id) {
  if (id == "raw")
    return ChatTemplate(ChatFormat::Raw);
  if (id == "chatml" || id == "qwen3")
    return ChatTemplate(ChatFormat::ChatML);
  if (id == "qwen2")
    return ChatTemplate(ChatFormat::ChatML, "You are a helpful assistant.");
  if (id == "qwen2.5")
    return ChatTemplate(ChatFormat::ChatML,
                        "You are Qwen, created by Alibaba Cloud. You are a "
                        "helpful assistant.");
  if (id == "llama2")
    return ChatTemplate(ChatFormat::Llama2);
  if (id == "llama3")
    return ChatTemplate(ChatFormat::Llama3);
  return makeError(strCat("chat: unknown template '", id,
                          "' (expected raw, chatml, qwen2, qwen2.5, qwen3, "
                          "llama2 or llama3)"));
}

//===----------------------------------------------------------------------===//
// Rendering
//===----------------------------------------------------------------------===//

void ChatPrompt::appendContent(std::string_view content) {
  if (content.empty())
    return;
  contents.push_back({text.size(), text.size() + content.size()});
  text += content;
}

void ChatPrompt::append(const ChatPrompt &other) {
  for (tokenizer::TextRange range : other.contents)
    contents.push_back({text.size() + range.begin, text.size() + range.end});
  text += other.text;
}

/// `prompt`'s bytes [begin, end), with the contents that lie there.
static ChatPrompt slice(const ChatPrompt &prompt, size_t begin, size_t end) {
  ChatPrompt sliced;
  sliced.text = prompt.text.substr(begin, end - begin);
  for (tokenizer::TextRange range : prompt.contents) {
    size_t from = std::max(range.begin, begin), to = std::min(range.end, end);
    if (from < to)
      sliced.contents.push_back({from - begin, to - begin});
  }
  return sliced;
}

bool ChatPrompt::replaceWithMarkup(std::string_view marker,
                                   std::string_view markup) {
  size_t at = text.find(marker);
  if (marker.empty() || at == std::string::npos)
    return false;
  ChatPrompt replaced = slice(*this, 0, at);
  replaced.appendMarkup(markup);
  replaced.append(slice(*this, at + marker.size(), text.size()));
  *this = std::move(replaced);
  return true;
}

ChatPrompt ChatPrompt::dropFront(size_t bytes) const {
  return slice(*this, std::min(bytes, text.size()), text.size());
}

ChatPrompt ChatPrompt::trim() const {
  std::string_view whole(text), trimmed = support::trim(whole);
  size_t begin = trimmed.data() - whole.data();
  return slice(*this, begin, begin + trimmed.size());
}

static void renderChatML(absl::Span<const ChatMessage> messages,
                         std::string_view defaultSystemPrompt,
                         bool addGenerationPrompt, ChatPrompt &out) {
  auto turn = [&](std::string_view role, std::string_view content) {
    out.appendMarkup("<|im_start|>");
    out.appendMarkup(role);
    out.appendMarkup("\n");
    out.appendContent(content);
    out.appendMarkup("<|im_end|>\n");
  };
  if (!defaultSystemPrompt.empty() && !messages.empty() &&
      messages.front().role != Role::System)
    turn("system", defaultSystemPrompt);
  for (const ChatMessage &message : messages)
    turn(stringifyRole(message.role), message.content);
  if (addGenerationPrompt)
    out.appendMarkup("<|im_start|>assistant\n");
}

static void renderLlama3(absl::Span<const ChatMessage> messages,
                         bool addGenerationPrompt, ChatPrompt &out) {
  auto header = [&](std::string_view role) {
    out.appendMarkup("<|start_header_id|>");
    out.appendMarkup(role);
    out.appendMarkup("<|end_header_id|>\n\n");
  };
  for (const ChatMessage &message : messages) {
    if (&message == &messages.front())
      out.appendMarkup("<|begin_of_text|>");
    header(stringifyRole(message.role));
    out.appendContent(support::trim(message.content));
    out.appendMarkup("<|eot_id|>");
  }
  if (addGenerationPrompt)
    header("assistant");
}

/// Llama 2 has no generation prompt: a rendered conversation that ends with
/// a user turn ends with "[/INST]", where the reply starts.
static absl::Status renderLlama2(absl::Span<const ChatMessage> messages,
                                 ChatPrompt &out) {
  std::optional<std::string_view> system;
  if (!messages.empty() && messages.front().role == Role::System) {
    system = messages.front().content;
    messages.remove_prefix(1);
  }
  for (size_t index = 0; index < messages.size(); ++index) {
    const ChatMessage &message = messages[index];
    if (message.role == Role::System)
      return makeError("chat: the llama2 template takes a system message "
                       "only as the first message");
    Role expected = index % 2 == 0 ? Role::User : Role::Assistant;
    if (message.role != expected)
      return makeError(strCat("chat: the llama2 template needs turns that "
                              "alternate user/assistant starting with user; "
                              "message ",
                              index + (system ? 1 : 0), " is from the ",
                              stringifyRole(message.role)));
    if (message.role == Role::Assistant) {
      out.appendMarkup(" ");
      out.appendContent(support::trim(message.content));
      out.appendMarkup(" </s>");
      continue;
    }
    ChatPrompt instruction;
    if (index == 0 && system) {
      instruction.appendMarkup("<<SYS>>\n");
      instruction.appendContent(*system);
      instruction.appendMarkup("\n<</SYS>>\n\n");
    }
    instruction.appendContent(message.content);
    out.appendMarkup("<s>[INST] ");
    out.append(instruction.trim());
    out.appendMarkup(" [/INST]");
  }
  return absl::OkStatus();
}

absl::StatusOr<ChatPrompt>
ChatTemplate::render(absl::Span<const ChatMessage> messages,
                     bool addGenerationPrompt) const {
  if (jinja)
    return jinja->renderChat(messages, addGenerationPrompt, bosToken,
                             eosToken, variables.get());
  ChatPrompt out;
  switch (format) {
  case ChatFormat::Raw:
    for (const ChatMessage &message : messages)
      out.appendContent(message.content);
    break;
  case ChatFormat::ChatML:
    renderChatML(messages, defaultSystemPrompt, addGenerationPrompt, out);
    break;
  case ChatFormat::Llama3:
    renderLlama3(messages, addGenerationPrompt, out);
    break;
  case ChatFormat::Llama2:
    LLMC_RETURN_IF_ERROR(renderLlama2(messages, out));
    break;
  }
  return out;
}

absl::StatusOr<ChatPrompt>
ChatTemplate::renderContinuation(absl::Span<const ChatMessage> history,
                                 absl::Span<const ChatMessage> newMessages,
                                 bool addGenerationPrompt) const {
  LLMC_ASSIGN_OR_RETURN(ChatPrompt before, render(history, false));
  std::vector<ChatMessage> all(history.begin(), history.end());
  all.insert(all.end(), newMessages.begin(), newMessages.end());
  LLMC_ASSIGN_OR_RETURN(ChatPrompt after, render(all, addGenerationPrompt));
  // Every format renders message by message, so the history's text is a
  // prefix; the check guards that property.
  if (!support::startsWith(after.text, before.text))
    return makeError(strCat(
        "chat: the ",
        jinja ? std::string_view("checkpoint's") : stringifyChatFormat(format),
        " template renders the history differently once new messages follow "
        "it"));
  return after.dropFront(before.text.size());
}

/// Stands in for a reply's text so that it can be found in the render:
/// private-use code points around a word, which no template trims, splits
/// or writes itself.
static constexpr std::string_view kReplyStandIn =
    "\xF3\xB0\x80\x80reply\xF3\xB0\x80\x80";

absl::StatusOr<ChatPrompt>
ChatTemplate::renderAfterReply(absl::Span<const ChatMessage> history,
                               absl::Span<const ChatMessage> newMessages,
                               bool addGenerationPrompt) const {
  if (history.empty() || history.back().role != Role::Assistant)
    return makeError("chat: a conversation continues after an assistant "
                     "reply, and this one does not end with one");
  std::vector<ChatMessage> all(history.begin(), history.end());
  all.back().content = std::string(kReplyStandIn);
  all.insert(all.end(), newMessages.begin(), newMessages.end());
  absl::StatusOr<ChatPrompt> rendered = render(all, addGenerationPrompt);
  if (!rendered.ok())
    return rendered.status();
  size_t at = rendered->text.find(kReplyStandIn);
  if (at == std::string::npos ||
      rendered->text.find(kReplyStandIn, at + 1) != std::string::npos)
    return makeError("chat: the template rewrites the assistant's reply, so "
                     "the conversation cannot go on after the reply the KV "
                     "cache holds");
  return rendered->dropFront(at + kReplyStandIn.size());
}

absl::StatusOr<ChatTemplate>
ChatTemplate::withJinja(JinjaTemplate jinjaTemplate, std::string bos,
                        std::string eos) const {
  ChatTemplate chat = *this;
  chat.jinja = std::move(jinjaTemplate);
  chat.bosToken = std::move(bos);
  chat.eosToken = std::move(eos);
  LLMC_RETURN_IF_ERROR(chat.findJinjaReplySuffix());
  return chat;
}

absl::Status ChatTemplate::findJinjaReplySuffix() {
  const ChatMessage turns[] = {{Role::User, "Hi"}, {Role::Assistant, "Hello"}};
  LLMC_ASSIGN_OR_RETURN(ChatPrompt suffix, renderAfterReply(turns, {}, false));
  jinjaReplySuffix = std::move(suffix.text);
  return absl::OkStatus();
}

absl::StatusOr<ChatTemplate>
ChatTemplate::withVariables(const nlohmann::ordered_json &extra) const {
  if (!jinja)
    return makeError(strCat("chat: the built-in ", stringifyChatFormat(format),
                            " format reads no template variables"));
  if (!extra.is_object())
    return makeError("chat: template variables must be a JSON object");
  for (std::string_view reserved :
       {"messages", "add_generation_prompt", "bos_token", "eos_token"})
    if (extra.contains(reserved))
      return makeError(strCat("chat: the template variable '", reserved,
                              "' is set by the renderer itself"));
  ChatTemplate chat = *this;
  chat.variables = std::make_shared<const nlohmann::ordered_json>(extra);
  LLMC_RETURN_IF_ERROR(chat.findJinjaReplySuffix());
  return chat;
}

std::string_view ChatTemplate::getReplySuffix() const {
  if (jinja)
    return jinjaReplySuffix;
  switch (format) {
  case ChatFormat::Raw:
    return "";
  case ChatFormat::ChatML:
    return "<|im_end|>\n";
  case ChatFormat::Llama2:
    return " </s>";
  case ChatFormat::Llama3:
    return "<|eot_id|>";
  }
  // The switch covers every format.
  std::abort();
}

std::vector<std::string> ChatTemplate::stopStrings() const {
  switch (format) {
  case ChatFormat::Raw:
    return {};
  case ChatFormat::ChatML:
    return {"<|im_end|>", "<|endoftext|>"};
  case ChatFormat::Llama2:
    return {"</s>"};
  case ChatFormat::Llama3:
    return {"<|eot_id|>", "<|end_of_text|>"};
  }
  // The switch covers every format.
  std::abort();
}

} // namespace llmc::chat
