//===- ChatDetect.cpp - a checkpoint's chat template from its config -----===//
//
// Recognises the family of a Hugging Face `chat_template` by its marker
// tokens instead of evaluating the Jinja, and reads ChatML's default system
// message from the string literal the template writes it in.
//
//===----------------------------------------------------------------------===//

#include "runtime/chat/ChatTemplate.h"

#include "support/Json.h"
#include "support/Strings.h"

#include <optional>

namespace llmc::chat {

using nlohmann::json;

static absl::Status makeError(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

/// Field `key` of `object`; null when absent.
static const json *getField(const json &object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

/// Field `key` of `object` when it is a string.
static std::optional<std::string_view> getString(const json &object,
                                                 std::string_view key) {
  const json *value = getField(object, key);
  if (!value || !value->is_string())
    return std::nullopt;
  return value->get_ref<const std::string &>();
}

/// The text of a special token entry: a string, or an object whose
/// "content" is one (older configs write AddedToken objects).
static std::optional<std::string_view> tokenText(const json *value) {
  if (!value)
    return std::nullopt;
  if (value->is_string())
    return value->get_ref<const std::string &>();
  return getString(*value, "content");
}

/// Whether the config names `token` as BOS, EOS or an added token.
static bool namesToken(const json &config, std::string_view token) {
  for (std::string_view key : {"bos_token", "eos_token"})
    if (tokenText(getField(config, key)) == token)
      return true;
  if (const json *added = getField(config, "added_tokens_decoder");
      added && added->is_object())
    for (const json &entry : *added)
      if (tokenText(&entry) == token)
        return true;
  return false;
}

/// The `chat_template` of the config: none, a string, or the "default" (else
/// the first) of a list of {"name", "template"} objects.
static absl::StatusOr<std::optional<std::string>>
readChatTemplate(const json &config) {
  const json *value = getField(config, "chat_template");
  if (!value || value->is_null())
    return std::nullopt;
  if (value->is_string())
    return std::optional<std::string>(value->get<std::string>());
  auto badType = [] {
    return makeError("tokenizer_config.json: chat_template is neither a "
                     "string nor a list of {\"name\", \"template\"} objects");
  };
  if (!value->is_array() || value->empty())
    return badType();
  std::optional<std::string_view> chosen;
  for (const json &entry : *value) {
    std::optional<std::string_view> text = getString(entry, "template");
    if (!text)
      return badType();
    if (!chosen || getString(entry, "name") == std::string_view("default"))
      chosen = text;
  }
  return std::optional<std::string>(*chosen);
}

/// The default system message a ChatML template writes out literally, as in
/// '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n': text
/// between "<|im_start|>system" plus a newline (escaped or not) and
/// "<|im_end|>" holding no quote, so no expression. Empty when there is none.
static std::string findDefaultSystemPrompt(std::string_view chatTemplate) {
  static constexpr std::string_view kOpen = "<|im_start|>system";
  static constexpr std::string_view kClose = "<|im_end|>";
  for (size_t at = chatTemplate.find(kOpen); at != std::string_view::npos;
       at = chatTemplate.find(kOpen, at + 1)) {
    std::string_view rest = chatTemplate.substr(at + kOpen.size());
    if (!support::consumePrefix(rest, "\\n") &&
        !support::consumePrefix(rest, "\n"))
      continue;
    std::string prompt;
    bool literal = true;
    while (literal && !rest.empty() && !support::startsWith(rest, kClose)) {
      char c = rest.front();
      rest.remove_prefix(1);
      if (c == '\'' || c == '"') {
        literal = false;
      } else if (c == '\\' && !rest.empty()) {
        char escaped = rest.front();
        rest.remove_prefix(1);
        prompt += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
      } else {
        prompt += c;
      }
    }
    if (literal && support::startsWith(rest, kClose) && !prompt.empty())
      return prompt;
  }
  return "";
}

/// The template a recognised `chat_template` text stands for.
static std::optional<ChatTemplate>
classifyChatTemplate(std::string_view chatTemplate) {
  if (support::contains(chatTemplate, "<|im_start|>"))
    return ChatTemplate(ChatFormat::ChatML,
                        findDefaultSystemPrompt(chatTemplate));
  if (support::contains(chatTemplate, "<|start_header_id|>"))
    return ChatTemplate(ChatFormat::Llama3);
  if (support::contains(chatTemplate, "[INST]"))
    return ChatTemplate(ChatFormat::Llama2);
  return std::nullopt;
}

absl::StatusOr<ChatTemplate>
ChatTemplate::detect(std::string_view tokenizerConfigJson,
                     std::string_view modelType) {
  json config = json::object();
  if (!support::trim(tokenizerConfigJson).empty()) {
    absl::StatusOr<json> parsed = support::parseJson(tokenizerConfigJson);
    if (!parsed.ok())
      return makeError(support::strCat("tokenizer_config.json: ",
                                       std::string(parsed.status().message())));
    if (!parsed->is_object())
      return makeError("tokenizer_config.json: the top level is not an "
                       "object");
    config = std::move(*parsed);
  }

  LLMC_ASSIGN_OR_RETURN(std::optional<std::string> chatTemplate,
                        readChatTemplate(config));
  if (chatTemplate)
    if (std::optional<ChatTemplate> found = classifyChatTemplate(*chatTemplate))
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
