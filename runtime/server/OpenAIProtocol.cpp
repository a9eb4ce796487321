//===- OpenAIProtocol.cpp - the requests and replies llmc serve speaks ----===//

#include "runtime/server/OpenAIProtocol.h"

#include "runtime/sampling/Sampler.h"

namespace llmc::server {

static llvm::Error requestError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A number field, when present.
static llvm::Expected<std::optional<double>>
getNumber(const llvm::json::Object &object, llvm::StringRef key) {
  const llvm::json::Value *value = object.get(key);
  if (!value || value->kind() == llvm::json::Value::Null)
    return std::nullopt;
  std::optional<double> number = value->getAsNumber();
  if (!number)
    return requestError("'" + key + "' must be a number");
  return number;
}

/// The text of a message's content: a string, or an array of parts whose
/// text parts are joined.
static llvm::Expected<std::string> getContent(const llvm::json::Value &value,
                                              size_t index) {
  if (std::optional<llvm::StringRef> text = value.getAsString())
    return text->str();
  if (const llvm::json::Array *parts = value.getAsArray()) {
    std::string text;
    for (const llvm::json::Value &part : *parts) {
      const llvm::json::Object *object = part.getAsObject();
      if (!object || object->getString("type") != "text" ||
          !object->getString("text"))
        return requestError("messages[" + llvm::Twine(index) +
                            "].content: only text parts are supported");
      text += object->getString("text")->str();
    }
    return text;
  }
  return requestError("messages[" + llvm::Twine(index) +
                      "].content must be a string or an array of text parts");
}

llvm::Expected<CompletionRequest>
parseCompletionRequest(llvm::StringRef body, bool chat,
                       const RequestLimits &limits) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(body);
  if (!parsed)
    return requestError("the body is not JSON: " +
                        llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return requestError("the body must be a JSON object");
  CompletionRequest request;
  if (chat) {
    const llvm::json::Array *messages = object->getArray("messages");
    if (!messages || messages->empty())
      return requestError("'messages' must be a non-empty array");
    if (messages->size() > limits.maxMessages)
      return requestError("'messages' holds " +
                          llvm::Twine(messages->size()) +
                          " messages; at most " +
                          llvm::Twine(limits.maxMessages) + " are accepted");
    for (auto [index, entry] : llvm::enumerate(*messages)) {
      const llvm::json::Object *message = entry.getAsObject();
      std::optional<llvm::StringRef> role =
          message ? message->getString("role") : std::nullopt;
      const llvm::json::Value *content =
          message ? message->get("content") : nullptr;
      if (!role || !content)
        return requestError("messages[" + llvm::Twine(index) +
                            "] needs a 'role' and a 'content'");
      llvm::Expected<chat::Role> parsedRole = chat::parseRole(*role);
      if (!parsedRole)
        return requestError("messages[" + llvm::Twine(index) + "]: " +
                            llvm::toString(parsedRole.takeError()));
      llvm::Expected<std::string> text = getContent(*content, index);
      if (!text)
        return text.takeError();
      request.messages.push_back({*parsedRole, std::move(*text)});
    }
  } else {
    std::optional<llvm::StringRef> prompt = object->getString("prompt");
    if (!prompt || prompt->empty())
      return requestError("'prompt' must be a non-empty string");
    request.prompt = prompt->str();
  }

  for (llvm::StringRef key : {"max_tokens", "max_completion_tokens"}) {
    llvm::Expected<std::optional<double>> value = getNumber(*object, key);
    if (!value)
      return value.takeError();
    if (*value && (**value < 1 || **value != static_cast<int64_t>(**value)))
      return requestError("'" + key + "' must be a positive integer");
    if (*value)
      request.maxTokens = static_cast<int64_t>(**value);
  }
  sampling::SamplingParams params;
  bool sampled = false;
  auto readSampling = [&](llvm::StringRef key,
                          auto apply) -> llvm::Error {
    llvm::Expected<std::optional<double>> value = getNumber(*object, key);
    if (!value)
      return value.takeError();
    if (*value) {
      apply(**value);
      sampled = true;
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = readSampling("temperature", [&](double value) {
        params.greedy = value == 0;
        params.temperature = value == 0 ? 1.0f : static_cast<float>(value);
      }))
    return std::move(error);
  if (llvm::Error error = readSampling(
          "top_p", [&](double value) { params.topP = float(value); }))
    return std::move(error);
  if (llvm::Error error = readSampling("top_k", [&](double value) {
        params.topK = static_cast<int64_t>(value);
      }))
    return std::move(error);
  if (llvm::Error error = readSampling("repetition_penalty", [&](double value) {
        params.repetitionPenalty = float(value);
      }))
    return std::move(error);
  if (llvm::Error error = readSampling("seed", [&](double value) {
        params.seed = static_cast<uint64_t>(value);
      }))
    return std::move(error);
  if (sampled && !params.greedy) {
    if (absl::Status invalid = sampling::Sampler::validate(params);
        !invalid.ok())
      return requestError(std::string(invalid.message()));
    request.sampling = params;
  }

  if (std::optional<bool> stream = object->getBoolean("stream"))
    request.stream = *stream;
  if (const llvm::json::Value *variables = object->get("chat_template_kwargs")) {
    if (!chat || !variables->getAsObject())
      return requestError("'chat_template_kwargs' must be an object, in a "
                          "chat request");
    llvm::raw_string_ostream(request.templateVariables) << *variables;
  }
  if (const llvm::json::Object *options = object->getObject("stream_options"))
    request.includeUsage = options->getBoolean("include_usage").value_or(false);
  if (const llvm::json::Value *stop = object->get("stop")) {
    if (std::optional<llvm::StringRef> text = stop->getAsString()) {
      request.stop.push_back(text->str());
    } else if (const llvm::json::Array *texts = stop->getAsArray()) {
      for (const llvm::json::Value &entry : *texts) {
        std::optional<llvm::StringRef> text = entry.getAsString();
        if (!text)
          return requestError("'stop' must be a string or strings");
        request.stop.push_back(text->str());
      }
    } else if (stop->kind() != llvm::json::Value::Null) {
      return requestError("'stop' must be a string or strings");
    }
    if (request.stop.size() > limits.maxStopStrings ||
        llvm::any_of(request.stop,
                     [](const std::string &text) { return text.empty(); }))
      return requestError("'stop' holds at most " +
                          llvm::Twine(limits.maxStopStrings) +
                          " non-empty strings");
  }
  return request;
}

llvm::StringRef getFinishReason(FinishReason reason, bool stoppedAtString) {
  if (stoppedAtString || reason == FinishReason::StopToken)
    return "stop";
  return "length";
}

llvm::json::Value makeError(llvm::StringRef message, llvm::StringRef type,
                            int status) {
  return llvm::json::Object{
      {"error", llvm::json::Object{{"message", message},
                                   {"type", type},
                                   {"code", status}}}};
}

llvm::json::Value makeUsage(int64_t promptTokens, int64_t completionTokens,
                            int64_t cachedTokens) {
  return llvm::json::Object{
      {"prompt_tokens", promptTokens},
      {"completion_tokens", completionTokens},
      {"total_tokens", promptTokens + completionTokens},
      {"prompt_tokens_details",
       llvm::json::Object{{"cached_tokens", cachedTokens}}}};
}

} // namespace llmc::server
