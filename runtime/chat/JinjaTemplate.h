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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json_fwd.hpp>

#include <ctime>
#include <memory>
#include <optional>
#include <string>

namespace llmc::chat {

struct ChatMessage;
struct ChatPrompt;

class JinjaTemplate {
public:
  /// Parses `source`; errors name `origin` (a file, or "the binary's chat
  /// template") and the line and column of the fault.
  static llvm::Expected<JinjaTemplate> compile(std::string source,
                                               llvm::StringRef origin);
  /// Reads the template file at `path` ("-": standard input) and compiles
  /// it; errors name the file.
  static llvm::Expected<JinjaTemplate> fromFile(llvm::StringRef path);

  /// Renders with the variables of `context`, a JSON object holding what
  /// `apply_chat_template` passes: `messages`, `add_generation_prompt`,
  /// `bos_token`, `eos_token`, `tools` and any extra keyword. Objects keep
  /// their keys' order. The strings under `messages[*].content` are the
  /// prompt's contents. `strftime_now` formats `now` (the current time when
  /// absent) in local time. Fails when the template raises an exception or
  /// meets a value it cannot use.
  llvm::Expected<ChatPrompt> render(const nlohmann::ordered_json &context,
                                    std::optional<std::time_t> now = {}) const;

  /// Renders `messages` as `apply_chat_template(messages,
  /// add_generation_prompt=addGenerationPrompt, **variables)` does for a
  /// tokenizer whose BOS and EOS tokens are `bosToken` and `eosToken`;
  /// `variables`, when given, is a JSON object of extra keywords
  /// (`enable_thinking`, ...).
  llvm::Expected<ChatPrompt>
  renderChat(llvm::ArrayRef<ChatMessage> messages, bool addGenerationPrompt,
             llvm::StringRef bosToken, llvm::StringRef eosToken,
             const nlohmann::ordered_json *variables = nullptr) const;

  const std::string &getSource() const;

private:
  struct Compiled;
  explicit JinjaTemplate(std::shared_ptr<const Compiled> compiled);

  std::shared_ptr<const Compiled> compiled;
};

} // namespace llmc::chat

#endif // LLMC_RUNTIME_CHAT_JINJATEMPLATE_H
