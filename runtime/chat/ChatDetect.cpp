//===- ChatDetect.cpp - a checkpoint's chat template from its config -----===//
//
// Recognises the family of a Hugging Face `chat_template` by its marker
// tokens instead of evaluating the Jinja, and reads ChatML's default system
// message from the string literal the template writes it in.
//
//===----------------------------------------------------------------------===//

#include "runtime/chat/ChatTemplate.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"

#include <optional>

namespace llmc::chat {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// The text of a special token entry: a string, or an object whose
/// "content" is one (older configs write AddedToken objects).
static std::optional<llvm::StringRef>
tokenText(const llvm::json::Value *value) {
  if (!value)
    return std::nullopt;
  if (std::optional<llvm::StringRef> text = value->getAsString())
    return text;
  if (const llvm::json::Object *object = value->getAsObject())
    return object->getString("content");
  return std::nullopt;
}

/// Whether the config names `token` as BOS, EOS or an added token.
static bool namesToken(const llvm::json::Object &config,
                       llvm::StringRef token) {
  for (llvm::StringRef key : {"bos_token", "eos_token"})
    if (tokenText(config.get(key)) == token)
      return true;
  if (const llvm::json::Object *added =
          config.getObject("added_tokens_decoder"))
    for (const auto &entry : *added)
      if (tokenText(&entry.second) == token)
        return true;
  return false;
}

/// The `chat_template` of the config: none, a string, or the "default" (else
/// the first) of a list of {"name", "template"} objects.
static llvm::Expected<std::optional<std::string>>
readChatTemplate(const llvm::json::Object &config) {
  const llvm::json::Value *value = config.get("chat_template");
  if (!value || value->kind() == llvm::json::Value::Null)
    return std::nullopt;
  if (std::optional<llvm::StringRef> text = value->getAsString())
    return std::optional<std::string>(text->str());
  const llvm::json::Array *list = value->getAsArray();
  auto badType = [] {
    return makeError("tokenizer_config.json: chat_template is neither a "
                     "string nor a list of {\"name\", \"template\"} objects");
  };
  if (!list || list->empty())
    return badType();
  std::optional<llvm::StringRef> chosen;
  for (const llvm::json::Value &entry : *list) {
    const llvm::json::Object *named = entry.getAsObject();
    std::optional<llvm::StringRef> text =
        named ? named->getString("template") : std::nullopt;
    if (!text)
      return badType();
    if (!chosen || named->getString("name") == llvm::StringRef("default"))
      chosen = text;
  }
  return std::optional<std::string>(chosen->str());
}

/// The default system message a ChatML template writes out literally, as in
/// '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n': text
/// between "<|im_start|>system" plus a newline (escaped or not) and
/// "<|im_end|>" holding no quote, so no expression. Empty when there is none.
static std::string findDefaultSystemPrompt(llvm::StringRef chatTemplate) {
  static constexpr llvm::StringLiteral kOpen = "<|im_start|>system";
  static constexpr llvm::StringLiteral kClose = "<|im_end|>";
  for (size_t at = chatTemplate.find(kOpen); at != llvm::StringRef::npos;
       at = chatTemplate.find(kOpen, at + 1)) {
    llvm::StringRef rest = chatTemplate.drop_front(at + kOpen.size());
    if (!rest.consume_front("\\n") && !rest.consume_front("\n"))
      continue;
    std::string prompt;
    bool literal = true;
    while (literal && !rest.empty() && !rest.starts_with(kClose)) {
      char c = rest.front();
      rest = rest.drop_front();
      if (c == '\'' || c == '"') {
        literal = false;
      } else if (c == '\\' && !rest.empty()) {
        char escaped = rest.front();
        rest = rest.drop_front();
        prompt += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
      } else {
        prompt += c;
      }
    }
    if (literal && rest.starts_with(kClose) && !prompt.empty())
      return prompt;
  }
  return "";
}

/// The template a recognised `chat_template` text stands for.
static std::optional<ChatTemplate>
classifyChatTemplate(llvm::StringRef chatTemplate) {
  if (chatTemplate.contains("<|im_start|>"))
    return ChatTemplate(ChatFormat::ChatML,
                        findDefaultSystemPrompt(chatTemplate));
  if (chatTemplate.contains("<|start_header_id|>"))
    return ChatTemplate(ChatFormat::Llama3);
  if (chatTemplate.contains("[INST]"))
    return ChatTemplate(ChatFormat::Llama2);
  return std::nullopt;
}

llvm::Expected<ChatTemplate>
ChatTemplate::detect(llvm::StringRef tokenizerConfigJson,
                     llvm::StringRef modelType) {
  llvm::json::Object config;
  if (!tokenizerConfigJson.trim().empty()) {
    llvm::Expected<llvm::json::Value> parsed =
        llvm::json::parse(tokenizerConfigJson);
    if (!parsed)
      return makeError("tokenizer_config.json: " +
                       llvm::toString(parsed.takeError()));
    llvm::json::Object *object = parsed->getAsObject();
    if (!object)
      return makeError("tokenizer_config.json: the top level is not an "
                       "object");
    config = std::move(*object);
  }

  llvm::Expected<std::optional<std::string>> chatTemplate =
      readChatTemplate(config);
  if (!chatTemplate)
    return chatTemplate.takeError();
  if (*chatTemplate)
    if (std::optional<ChatTemplate> found =
            classifyChatTemplate(**chatTemplate))
      return *found;

  if (modelType == "qwen2" || modelType == "qwen2_moe" ||
      modelType == "qwen3" || modelType == "qwen3_moe")
    return ChatTemplate(ChatFormat::ChatML);
  if (modelType == "llama")
    return ChatTemplate(namesToken(config, "<|eot_id|>") ? ChatFormat::Llama3
                                                         : ChatFormat::Llama2);
  return ChatTemplate(ChatFormat::Raw);
}

} // namespace llmc::chat
