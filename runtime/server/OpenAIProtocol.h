//===- OpenAIProtocol.h - the requests and replies llmc serve speaks -*- C++
//-*-===//
//
// The parts of OpenAI's chat-completions and completions protocol that
// llmc serve implements, as plain structs: parsing a request body (with a
// clear error naming the field) and writing the reply objects and
// streaming chunks. No HTTP here: ChatServer moves these over the wire.
// Replies are nlohmann::json, whose objects keep their keys sorted, the
// order clients have always seen.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SERVER_OPENAIPROTOCOL_H
#define LLMC_RUNTIME_SERVER_OPENAIPROTOCOL_H

#include "runtime/api/Generate.h"
#include "runtime/chat/ChatTemplate.h"

#include "support/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::server {

/// What /v1/chat/completions and /v1/completions ask for.
struct CompletionRequest {
  /// Chat: the messages; completions: empty, with `prompt` instead.
  std::vector<chat::ChatMessage> messages;
  std::string prompt;
  /// max_tokens (or max_completion_tokens); 0 leaves the binary's default.
  int64_t maxTokens = 0;
  /// Sampling; none (no temperature, top_p, top_k, seed or
  /// repetition_penalty given, or temperature 0) decodes greedily.
  std::optional<sampling::SamplingParams> sampling;
  bool stream = false;
  /// stream_options.include_usage: a last chunk with the token counts.
  bool includeUsage = false;
  /// Texts that end the reply when it produces one (left out of it).
  std::vector<std::string> stop;
  /// chat_template_kwargs (as vLLM and llama.cpp's server name it): extra
  /// keywords for the chat template, a JSON object; none when not given.
  std::optional<nlohmann::ordered_json> templateVariables;
};

/// Limits on what a request may hold.
struct RequestLimits {
  size_t maxMessages = 1024;
  size_t maxStopStrings = 16;
};

/// Parses a chat (`chat` true) or completions request body; the error
/// (InvalidArgument) names the field.
absl::StatusOr<CompletionRequest>
parseCompletionRequest(std::string_view body, bool chat,
                       const RequestLimits &limits);

/// What /tokenize asks for.
struct TokenizeRequest {
  std::string content;
  /// add_special: the tokenizer's BOS and EOS around the text.
  bool addSpecial = false;
};

/// Parses a /tokenize body, {"content": text, "add_special": bool}.
absl::StatusOr<TokenizeRequest> parseTokenizeRequest(std::string_view body);

/// The ids of a /detokenize body, {"tokens": [id, ...]}, each in
/// [0, vocabSize).
absl::StatusOr<std::vector<int32_t>>
parseDetokenizeRequest(std::string_view body, int64_t vocabSize);

/// OpenAI's finish_reason of a turn that ended for `reason` (`stop`,
/// `length`).
std::string_view getFinishReason(FinishReason reason, bool stoppedAtString);

/// An OpenAI error object {"error": {"message", "type", "code"}}.
nlohmann::json makeError(std::string_view message, std::string_view type,
                         int status);

/// The usage object of a reply; `cachedTokens` of the prompt were already
/// in a kept KV cache.
nlohmann::json makeUsage(int64_t promptTokens, int64_t completionTokens,
                         int64_t cachedTokens);

} // namespace llmc::server

#endif // LLMC_RUNTIME_SERVER_OPENAIPROTOCOL_H
