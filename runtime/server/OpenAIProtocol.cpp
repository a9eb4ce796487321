//===- OpenAIProtocol.cpp - the requests and replies llmc serve speaks ----===//
//
// A body is whatever a client sends: every value's type is checked before
// it is read, so no body makes nlohmann throw.
//
//===----------------------------------------------------------------------===//

#include "runtime/server/OpenAIProtocol.h"

#include "runtime/sampling/Sampler.h"
#include "runtime/tokenizer/JsonReader.h"
#include "support/Json.h"
#include "support/Strings.h"

#include <algorithm>

namespace llmc::server {

using nlohmann::json;

static absl::Status requestError(std::string_view message) {
  return absl::InvalidArgumentError(std::string(message));
}

/// Field `key` of `object`; null when absent or `object` is no object.
static const json *getField(const json &object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

/// Field `key` of `object` when it is a string.
static const std::string *getString(const json &object, std::string_view key) {
  const json *value = getField(object, key);
  if (!value || !value->is_string())
    return nullptr;
  return &value->get_ref<const std::string &>();
}

/// Field `key` of `object` when it is a boolean.
static std::optional<bool> getBoolean(const json &object,
                                      std::string_view key) {
  const json *value = getField(object, key);
  if (!value || !value->is_boolean())
    return std::nullopt;
  return value->get<bool>();
}

/// A number field, when present.
static absl::StatusOr<std::optional<double>> getNumber(const json &object,
                                                       std::string_view key) {
  const json *value = getField(object, key);
  if (!value || value->is_null())
    return std::nullopt;
  if (!value->is_number())
    return requestError(support::strCat("'", key, "' must be a number"));
  return value->get<double>();
}

/// The text of a message's content: a string, or an array of parts whose
/// text parts are joined.
static absl::StatusOr<std::string> getContent(const json &value, size_t index) {
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_array()) {
    std::string text;
    for (const json &part : value) {
      const std::string *type = getString(part, "type");
      const std::string *partText = getString(part, "text");
      if (!type || *type != "text" || !partText)
        return requestError(support::strCat(
            "messages[", index, "].content: only text parts are supported"));
      text += *partText;
    }
    return text;
  }
  return requestError(
      support::strCat("messages[", index,
                      "].content must be a string or an array of text parts"));
}

static absl::Status parseMessages(const json &object,
                                  const RequestLimits &limits,
                                  CompletionRequest &request) {
  const json *messages = getField(object, "messages");
  if (!messages || !messages->is_array() || messages->empty())
    return requestError("'messages' must be a non-empty array");
  if (messages->size() > limits.maxMessages)
    return requestError(support::strCat("'messages' holds ", messages->size(),
                                        " messages; at most ",
                                        limits.maxMessages, " are accepted"));
  for (size_t index = 0; index < messages->size(); ++index) {
    const json &message = (*messages)[index];
    const std::string *role = getString(message, "role");
    const json *content = getField(message, "content");
    if (!role || !content)
      return requestError(support::strCat("messages[", index,
                                          "] needs a 'role' and a 'content'"));
    absl::StatusOr<chat::Role> parsedRole = chat::parseRole(*role);
    if (!parsedRole.ok())
      return requestError(
          support::strCat("messages[", index,
                          "]: ", std::string(parsedRole.status().message())));
    LLMC_ASSIGN_OR_RETURN(std::string text, getContent(*content, index));
    request.messages.push_back({*parsedRole, std::move(text)});
  }
  return absl::OkStatus();
}

/// The sampling fields; none given (or temperature 0) leaves greedy
/// decoding.
static absl::Status parseSampling(const json &object,
                                  CompletionRequest &request) {
  sampling::SamplingParams params;
  bool sampled = false;
  auto readSampling = [&](std::string_view key, auto apply) -> absl::Status {
    LLMC_ASSIGN_OR_RETURN(std::optional<double> value, getNumber(object, key));
    if (value) {
      apply(*value);
      sampled = true;
    }
    return absl::OkStatus();
  };
  LLMC_RETURN_IF_ERROR(readSampling("temperature", [&](double value) {
    params.greedy = value == 0;
    params.temperature = value == 0 ? 1.0f : static_cast<float>(value);
  }));
  LLMC_RETURN_IF_ERROR(
      readSampling("top_p", [&](double value) { params.topP = float(value); }));
  LLMC_RETURN_IF_ERROR(readSampling("top_k", [&](double value) {
    params.topK = static_cast<int64_t>(value);
  }));
  LLMC_RETURN_IF_ERROR(readSampling("repetition_penalty", [&](double value) {
    params.repetitionPenalty = float(value);
  }));
  LLMC_RETURN_IF_ERROR(readSampling("seed", [&](double value) {
    params.seed = static_cast<uint64_t>(value);
  }));
  if (sampled && !params.greedy) {
    if (absl::Status invalid = sampling::Sampler::validate(params);
        !invalid.ok())
      return requestError(std::string(invalid.message()));
    request.sampling = params;
  }
  return absl::OkStatus();
}

static absl::Status parseStop(const json &stop, const RequestLimits &limits,
                              CompletionRequest &request) {
  if (stop.is_string()) {
    request.stop.push_back(stop.get<std::string>());
  } else if (stop.is_array()) {
    for (const json &entry : stop) {
      if (!entry.is_string())
        return requestError("'stop' must be a string or strings");
      request.stop.push_back(entry.get<std::string>());
    }
  } else if (!stop.is_null()) {
    return requestError("'stop' must be a string or strings");
  }
  if (request.stop.size() > limits.maxStopStrings ||
      std::any_of(request.stop.begin(), request.stop.end(),
                  [](const std::string &text) { return text.empty(); }))
    return requestError(support::strCat(
        "'stop' holds at most ", limits.maxStopStrings, " non-empty strings"));
  return absl::OkStatus();
}

absl::StatusOr<CompletionRequest>
parseCompletionRequest(std::string_view body, bool chat,
                       const RequestLimits &limits) {
  absl::StatusOr<json> parsed = support::parseJson(body);
  if (!parsed.ok())
    return requestError(support::strCat(
        "the body is not JSON: ", std::string(parsed.status().message())));
  if (!parsed->is_object())
    return requestError("the body must be a JSON object");
  const json &object = *parsed;
  CompletionRequest request;
  if (chat) {
    LLMC_RETURN_IF_ERROR(parseMessages(object, limits, request));
  } else {
    const std::string *prompt = getString(object, "prompt");
    if (!prompt || prompt->empty())
      return requestError("'prompt' must be a non-empty string");
    request.prompt = *prompt;
  }

  for (std::string_view key : {"max_tokens", "max_completion_tokens"}) {
    LLMC_ASSIGN_OR_RETURN(std::optional<double> value, getNumber(object, key));
    // 2^63 and beyond have no int64 to compare with.
    if (value && (*value < 1 || *value >= 0x1p63 ||
                  *value != static_cast<int64_t>(*value)))
      return requestError(
          support::strCat("'", key, "' must be a positive integer"));
    if (value)
      request.maxTokens = static_cast<int64_t>(*value);
  }
  LLMC_RETURN_IF_ERROR(parseSampling(object, request));

  if (std::optional<bool> stream = getBoolean(object, "stream"))
    request.stream = *stream;
  if (const json *variables = getField(object, "chat_template_kwargs")) {
    if (!chat || !variables->is_object())
      return requestError("'chat_template_kwargs' must be an object, in a "
                          "chat request");
    request.templateVariables = nlohmann::ordered_json(*variables);
  }
  if (const json *options = getField(object, "stream_options"))
    request.includeUsage =
        getBoolean(*options, "include_usage").value_or(false);
  if (const json *stop = getField(object, "stop"))
    LLMC_RETURN_IF_ERROR(parseStop(*stop, limits, request));
  return request;
}

absl::StatusOr<TokenizeRequest> parseTokenizeRequest(std::string_view body) {
  absl::StatusOr<json> parsed = support::parseJson(body);
  const std::string *content =
      parsed.ok() ? getString(*parsed, "content") : nullptr;
  if (!content)
    return requestError("'content' must be a string");
  return TokenizeRequest{*content,
                         getBoolean(*parsed, "add_special").value_or(false)};
}

absl::StatusOr<std::vector<int32_t>>
parseDetokenizeRequest(std::string_view body, int64_t vocabSize) {
  absl::StatusOr<json> parsed = support::parseJson(body);
  const json *tokens = parsed.ok() ? getField(*parsed, "tokens") : nullptr;
  if (!tokens || !tokens->is_array())
    return requestError("'tokens' must be an array of token ids");
  std::vector<int32_t> ids;
  for (const json &token : *tokens) {
    std::optional<int64_t> id = tokenizer::getInteger(token);
    if (!id || *id < 0 || *id >= vocabSize)
      return requestError("'tokens' holds an id outside the vocabulary");
    ids.push_back(static_cast<int32_t>(*id));
  }
  return ids;
}

std::string_view getFinishReason(FinishReason reason, bool stoppedAtString) {
  if (stoppedAtString || reason == FinishReason::StopToken)
    return "stop";
  return "length";
}

json makeError(std::string_view message, std::string_view type, int status) {
  return json{
      {"error", json{{"message", message}, {"type", type}, {"code", status}}}};
}

json makeUsage(int64_t promptTokens, int64_t completionTokens,
               int64_t cachedTokens) {
  return json{{"prompt_tokens", promptTokens},
              {"completion_tokens", completionTokens},
              {"total_tokens", promptTokens + completionTokens},
              {"prompt_tokens_details", json{{"cached_tokens", cachedTokens}}}};
}

} // namespace llmc::server
