//===- ChatTemplate.cpp - chat messages into a model's prompt text --------===//

#include "runtime/chat/ChatTemplate.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace llmc::chat {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

llvm::StringRef stringifyRole(Role role) {
  switch (role) {
  case Role::System:
    return "system";
  case Role::User:
    return "user";
  case Role::Assistant:
    return "assistant";
  }
  llvm_unreachable("unknown role");
}

llvm::Expected<Role> parseRole(llvm::StringRef name) {
  std::optional<Role> role = llvm::StringSwitch<std::optional<Role>>(name)
                                 .Case("system", Role::System)
                                 .Case("user", Role::User)
                                 .Case("assistant", Role::Assistant)
                                 .Default(std::nullopt);
  if (!role)
    return makeError("chat: unknown role '" + name +
                     "' (expected system, user or assistant)");
  return *role;
}

llvm::StringRef stringifyChatFormat(ChatFormat format) {
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
  llvm_unreachable("unknown chat format");
}

ChatTemplate::ChatTemplate(ChatFormat format, std::string defaultSystemPrompt)
    : format(format), defaultSystemPrompt(std::move(defaultSystemPrompt)) {}

llvm::Expected<ChatTemplate> ChatTemplate::get(llvm::StringRef id) {
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
  return makeError("chat: unknown template '" + id +
                   "' (expected raw, chatml, qwen2, qwen2.5, qwen3, llama2 "
                   "or llama3)");
}

//===----------------------------------------------------------------------===//
// Rendering
//===----------------------------------------------------------------------===//

void ChatPrompt::appendContent(llvm::StringRef content) {
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

bool ChatPrompt::replaceWithMarkup(llvm::StringRef marker,
                                   llvm::StringRef markup) {
  size_t at = text.find(marker.str());
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
  llvm::StringRef whole(text);
  size_t begin = whole.size() - whole.ltrim().size();
  size_t end = whole.rtrim().size();
  return slice(*this, begin, std::max(begin, end));
}

static void renderChatML(llvm::ArrayRef<ChatMessage> messages,
                         llvm::StringRef defaultSystemPrompt,
                         bool addGenerationPrompt, ChatPrompt &out) {
  auto turn = [&](llvm::StringRef role, llvm::StringRef content) {
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

static void renderLlama3(llvm::ArrayRef<ChatMessage> messages,
                         bool addGenerationPrompt, ChatPrompt &out) {
  auto header = [&](llvm::StringRef role) {
    out.appendMarkup("<|start_header_id|>");
    out.appendMarkup(role);
    out.appendMarkup("<|end_header_id|>\n\n");
  };
  for (const ChatMessage &message : messages) {
    if (&message == &messages.front())
      out.appendMarkup("<|begin_of_text|>");
    header(stringifyRole(message.role));
    out.appendContent(llvm::StringRef(message.content).trim());
    out.appendMarkup("<|eot_id|>");
  }
  if (addGenerationPrompt)
    header("assistant");
}

/// Llama 2 has no generation prompt: a rendered conversation that ends with
/// a user turn ends with "[/INST]", where the reply starts.
static llvm::Error renderLlama2(llvm::ArrayRef<ChatMessage> messages,
                                ChatPrompt &out) {
  std::optional<llvm::StringRef> system;
  if (!messages.empty() && messages.front().role == Role::System) {
    system = messages.front().content;
    messages = messages.drop_front();
  }
  for (auto [index, message] : llvm::enumerate(messages)) {
    if (message.role == Role::System)
      return makeError("chat: the llama2 template takes a system message "
                       "only as the first message");
    Role expected = index % 2 == 0 ? Role::User : Role::Assistant;
    if (message.role != expected)
      return makeError("chat: the llama2 template needs turns that alternate "
                       "user/assistant starting with user; message " +
                       llvm::Twine(index + (system ? 1 : 0)) + " is from the " +
                       stringifyRole(message.role));
    if (message.role == Role::Assistant) {
      out.appendMarkup(" ");
      out.appendContent(llvm::StringRef(message.content).trim());
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
  return llvm::Error::success();
}

llvm::Expected<ChatPrompt>
ChatTemplate::render(llvm::ArrayRef<ChatMessage> messages,
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
    if (llvm::Error error = renderLlama2(messages, out))
      return std::move(error);
    break;
  }
  return out;
}

llvm::Expected<ChatPrompt>
ChatTemplate::renderContinuation(llvm::ArrayRef<ChatMessage> history,
                                 llvm::ArrayRef<ChatMessage> newMessages,
                                 bool addGenerationPrompt) const {
  llvm::Expected<ChatPrompt> before = render(history, false);
  if (!before)
    return before.takeError();
  std::vector<ChatMessage> all(history.begin(), history.end());
  all.insert(all.end(), newMessages.begin(), newMessages.end());
  llvm::Expected<ChatPrompt> after = render(all, addGenerationPrompt);
  if (!after)
    return after.takeError();
  // Every format renders message by message, so the history's text is a
  // prefix; the check guards that property.
  if (!llvm::StringRef(after->text).starts_with(before->text))
    return makeError("chat: the " +
                     (jinja ? llvm::StringRef("checkpoint's")
                            : stringifyChatFormat(format)) +
                     " template renders the history differently once new "
                     "messages follow it");
  return after->dropFront(before->text.size());
}

/// Stands in for a reply's text so that it can be found in the render:
/// private-use code points around a word, which no template trims, splits
/// or writes itself.
static constexpr llvm::StringLiteral kReplyStandIn =
    "\xF3\xB0\x80\x80reply\xF3\xB0\x80\x80";

llvm::Expected<ChatPrompt>
ChatTemplate::renderAfterReply(llvm::ArrayRef<ChatMessage> history,
                               llvm::ArrayRef<ChatMessage> newMessages,
                               bool addGenerationPrompt) const {
  if (history.empty() || history.back().role != Role::Assistant)
    return makeError("chat: a conversation continues after an assistant "
                     "reply, and this one does not end with one");
  std::vector<ChatMessage> all(history.begin(), history.end());
  all.back().content = kReplyStandIn.str();
  all.insert(all.end(), newMessages.begin(), newMessages.end());
  llvm::Expected<ChatPrompt> rendered = render(all, addGenerationPrompt);
  if (!rendered)
    return rendered.takeError();
  size_t at = rendered->text.find(kReplyStandIn.str());
  if (at == std::string::npos ||
      rendered->text.find(kReplyStandIn.str(), at + 1) != std::string::npos)
    return makeError("chat: the template rewrites the assistant's reply, so "
                     "the conversation cannot go on after the reply the KV "
                     "cache holds");
  return rendered->dropFront(at + kReplyStandIn.size());
}

llvm::Expected<ChatTemplate>
ChatTemplate::withJinja(JinjaTemplate jinjaTemplate, std::string bos,
                        std::string eos) const {
  ChatTemplate chat = *this;
  chat.jinja = std::move(jinjaTemplate);
  chat.bosToken = std::move(bos);
  chat.eosToken = std::move(eos);
  if (llvm::Error error = chat.findJinjaReplySuffix())
    return std::move(error);
  return chat;
}

llvm::Error ChatTemplate::findJinjaReplySuffix() {
  llvm::Expected<ChatPrompt> suffix = renderAfterReply(
      {{Role::User, "Hi"}, {Role::Assistant, "Hello"}}, {}, false);
  if (!suffix)
    return suffix.takeError();
  jinjaReplySuffix = std::move(suffix->text);
  return llvm::Error::success();
}

llvm::Expected<ChatTemplate>
ChatTemplate::withVariables(const nlohmann::ordered_json &extra) const {
  if (!jinja)
    return makeError("chat: the built-in " + stringifyChatFormat(format) +
                     " format reads no template variables");
  if (!extra.is_object())
    return makeError("chat: template variables must be a JSON object");
  for (llvm::StringRef reserved :
       {"messages", "add_generation_prompt", "bos_token", "eos_token"})
    if (extra.contains(reserved.str()))
      return makeError("chat: the template variable '" + reserved +
                       "' is set by the renderer itself");
  ChatTemplate chat = *this;
  chat.variables = std::make_shared<const nlohmann::ordered_json>(extra);
  if (llvm::Error error = chat.findJinjaReplySuffix())
    return std::move(error);
  return chat;
}

llvm::StringRef ChatTemplate::getReplySuffix() const {
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
  llvm_unreachable("unknown chat format");
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
  llvm_unreachable("unknown chat format");
}

} // namespace llmc::chat
