//===- JinjaTemplate.h - a checkpoint's own Jinja chat template -*- C++ -*-===//
//
// The `chat_template` a Hugging Face checkpoint carries, compiled once and
// rendered as `apply_chat_template` renders it, by llama.cpp's Jinja engine
// (third_party/llama_jinja). The engine remembers which parts of the output
// came from the messages' contents; those become the prompt's contents,
// which are encoded as text, never as special tokens.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_CHAT_JINJATEMPLATE_H
#define LLMC_RUNTIME_CHAT_JINJATEMPLATE_H

#include "support/Status.h"

#include "absl/types/span.h"

#include <nlohmann/json_fwd.hpp>

#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace llmc::chat {

struct ChatMessage;
struct ChatPrompt;

class JinjaTemplate {
public:
  /// Parses `source`; errors name `origin` (a file, or "the binary's chat
  /// template") and the line and column of the fault.
  static absl::StatusOr<JinjaTemplate> compile(std::string source,
                                               std::string_view origin);
  /// Reads the template file at `path` ("-": standard input) and compiles
  /// it; errors name the file.
  static absl::StatusOr<JinjaTemplate> fromFile(std::string_view path);

  /// Renders with the variables of `context`, a JSON object holding what
  /// `apply_chat_template` passes: `messages`, `add_generation_prompt`,
  /// `bos_token`, `eos_token`, `tools` and any extra keyword. Objects keep
  /// their keys' order. The strings under `messages[*].content` are the
  /// prompt's contents. `strftime_now` formats `now` (the current time when
  /// absent) in local time. Fails when the template raises an exception or
  /// meets a value it cannot use.
  absl::StatusOr<ChatPrompt> render(const nlohmann::ordered_json &context,
                                    std::optional<std::time_t> now = {}) const;

  /// Renders `messages` as `apply_chat_template(messages,
  /// add_generation_prompt=addGenerationPrompt, **variables)` does for a
  /// tokenizer whose BOS and EOS tokens are `bosToken` and `eosToken`;
  /// `variables`, when given, is a JSON object of extra keywords
  /// (`enable_thinking`, ...).
  absl::StatusOr<ChatPrompt>
  renderChat(absl::Span<const ChatMessage> messages, bool addGenerationPrompt,
             std::string_view bosToken, std::string_view eosToken,
             const nlohmann::ordered_json *variables = nullptr) const;

  const std::string &getSource() const;

private:
  struct Compiled;
  explicit JinjaTemplate(std::shared_ptr<const Compiled> compiled);

  std::shared_ptr<const Compiled> compiled;
};

} // namespace llmc::chat

#endif // LLMC_RUNTIME_CHAT_JINJATEMPLATE_H
