//===- JinjaTemplate.cpp - a checkpoint's own Jinja chat template ---------===//
//
// The engine reports faults by exceptions; they stop at this file's
// boundary and leave it as absl::Status values.
//
//===----------------------------------------------------------------------===//

#include "runtime/chat/JinjaTemplate.h"

#include "runtime/chat/ChatTemplate.h"

#include "jinja/lexer.h"
#include "jinja/parser.h"
#include "jinja/runtime.h"

#include "support/File.h"
#include "support/Strings.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <iterator>
#include <limits>

namespace llmc::chat {

struct JinjaTemplate::Compiled {
  std::string source;
  std::string origin;
  jinja::program program;
};

using support::strCat;

/// A template that does not parse or raises is the checkpoint's fault, or
/// its user's.
static absl::Status makeError(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

JinjaTemplate::JinjaTemplate(std::shared_ptr<const Compiled> compiled)
    : compiled(std::move(compiled)) {}

const std::string &JinjaTemplate::getSource() const {
  return compiled->source;
}

absl::StatusOr<JinjaTemplate> JinjaTemplate::compile(std::string source,
                                                     std::string_view origin) {
  auto compiled = std::make_shared<Compiled>();
  compiled->source = std::move(source);
  compiled->origin = std::string(origin);
  try {
    jinja::lexer lexer;
    compiled->program =
        jinja::parse_from_tokens(lexer.tokenize(compiled->source));
  } catch (const std::exception &error) {
    return makeError(
        strCat(origin, ": the chat template does not parse: ", error.what()));
  }
  return JinjaTemplate(std::move(compiled));
}

absl::StatusOr<JinjaTemplate> JinjaTemplate::fromFile(std::string_view path) {
  if (path == "-")
    return compile(std::string(std::istreambuf_iterator<char>(std::cin), {}),
                   path);
  absl::StatusOr<std::string> source = support::readFile(std::string(path));
  if (!source.ok())
    return absl::Status(
        source.status().code(),
        strCat(path, ": cannot read: ", support::errorReason(source.status())));
  return compile(std::move(*source), path);
}

/// `json` as a template value; strings are marked as the caller's text
/// when `isContent`.
static jinja::value toValue(const nlohmann::ordered_json &json,
                            bool isContent) {
  switch (json.type()) {
  case nlohmann::ordered_json::value_t::boolean:
    return jinja::mk_val<jinja::value_bool>(json.get<bool>());
  case nlohmann::ordered_json::value_t::number_integer:
    return jinja::mk_val<jinja::value_int>(json.get<int64_t>());
  case nlohmann::ordered_json::value_t::number_unsigned:
    if (json.get<uint64_t>() <=
        static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return jinja::mk_val<jinja::value_int>(json.get<int64_t>());
    return jinja::mk_val<jinja::value_float>(json.get<double>());
  case nlohmann::ordered_json::value_t::number_float:
    return jinja::mk_val<jinja::value_float>(json.get<double>());
  case nlohmann::ordered_json::value_t::string: {
    auto text = jinja::mk_val<jinja::value_string>(json.get<std::string>());
    if (isContent)
      text->mark_input();
    return text;
  }
  case nlohmann::ordered_json::value_t::array: {
    auto array = jinja::mk_val<jinja::value_array>();
    for (const nlohmann::ordered_json &item : json)
      array->push_back(toValue(item, isContent));
    return array;
  }
  case nlohmann::ordered_json::value_t::object: {
    auto object = jinja::mk_val<jinja::value_object>();
    for (const auto &[key, item] : json.items())
      object->insert(key, toValue(item, isContent));
    return object;
  }
  default:
    return jinja::mk_val<jinja::value_none>();
  }
}

/// A message as a template value: every string in it but its role is the
/// caller's text. Templates build special tokens out of roles
/// ('<|' + message['role'] + '|>'), which must stay markup.
static jinja::value toMessageValue(const nlohmann::ordered_json &message) {
  if (!message.is_object())
    return toValue(message, /*isContent=*/true);
  auto object = jinja::mk_val<jinja::value_object>();
  for (const auto &[key, item] : message.items())
    object->insert(key, toValue(item, /*isContent=*/key != "role"));
  return object;
}

absl::StatusOr<ChatPrompt>
JinjaTemplate::render(const nlohmann::ordered_json &context,
                      std::optional<std::time_t> now) const {
  if (!context.is_object())
    return makeError(strCat(compiled->origin,
                            ": the template's context is not a JSON "
                            "object"));
  ChatPrompt prompt;
  try {
    jinja::context variables(compiled->source);
    if (now)
      variables.current_time = *now;
    for (const auto &[name, json] : context.items()) {
      if (name != "messages" || !json.is_array()) {
        variables.set_val(name, toValue(json, /*isContent=*/false));
        continue;
      }
      auto messages = jinja::mk_val<jinja::value_array>();
      for (const nlohmann::ordered_json &message : json)
        messages->push_back(toMessageValue(message));
      variables.set_val(name, messages);
    }
    jinja::runtime runtime(variables);
    jinja::value_string output = jinja::runtime::gather_string_parts(
        runtime.execute(compiled->program));
    for (const jinja::string_part &part : output->val_str.parts) {
      if (part.is_input)
        prompt.appendContent(part.val);
      else
        prompt.appendMarkup(part.val);
    }
  } catch (const std::exception &error) {
    return makeError(
        strCat(compiled->origin,
               ": rendering the chat template failed: ", error.what()));
  }
  return prompt;
}

absl::StatusOr<ChatPrompt>
JinjaTemplate::renderChat(absl::Span<const ChatMessage> messages,
                          bool addGenerationPrompt, std::string_view bosToken,
                          std::string_view eosToken,
                          const nlohmann::ordered_json *variables) const {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ChatMessage &message : messages)
    list.push_back({{"role", std::string(stringifyRole(message.role))},
                    {"content", message.content}});
  nlohmann::ordered_json context = {
      {"messages", std::move(list)},
      {"add_generation_prompt", addGenerationPrompt},
      {"bos_token", std::string(bosToken)},
      {"eos_token", std::string(eosToken)}};
  if (variables)
    for (const auto &[name, value] : variables->items())
      context[name] = value;
  return render(context);
}

} // namespace llmc::chat
