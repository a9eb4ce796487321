//===- llmc.hpp - the C++ API over the stable C ABI -------------*- C++ -*-===//
//
// A compiled `.llmc` binary from a C++17 program built outside this
// repository: the classes below own the C API's handles (llmc_c.h) and speak
// only standard types, so an application compiles against the installed
// headers and links libllmc_runtime.so alone, whatever compiler and
// libraries built the runtime.
//
//   llmc::sdk::Model model = llmc::sdk::Model::load("model.llmc");
//   llmc::sdk::GenerateOptions options;
//   options.maxNewTokens = 32;
//   llmc::sdk::Result result = model.generate(
//       "Once upon a time", options,
//       [](int32_t id, std::string_view text) {
//         std::cout << text << std::flush;
//         return true; // false ends the turn with this token
//       });
//
//   llmc::sdk::Chat chat = model.startChat("You are terse.");
//   std::cout << chat.send("Hello!").text << "\n";
//
// Failures throw llmc::sdk::Error, which carries the C API's status and
// message. An exception a callback throws ends the turn and is rethrown by
// the call that ran the callback. A Model runs one generation at a time, as
// the C API says; it must outlive its chats.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_C_LLMC_HPP
#define LLMC_RUNTIME_C_LLMC_HPP

#include "llmc/llmc_c.h"

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::sdk {

/// A failed call: the C API's status and the library's message.
class Error : public std::runtime_error {
public:
  Error(llmc_status status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  llmc_status status() const { return status_; }

private:
  llmc_status status_;
};

/// What a turn may do; the defaults are the C API's (llmc_generate_options).
struct GenerateOptions {
  /// Tokens generated at most; 0 takes the binary's default.
  int64_t maxNewTokens = 0;
  /// 0 decodes greedily on the device; a positive temperature samples on the
  /// host with the fields below.
  float temperature = 0.0f;
  int64_t topK = 0;
  float topP = 1.0f;
  float repetitionPenalty = 1.0f;
  uint64_t seed = 0;
  bool stopAtStopTokens = true;
  /// Read special tokens written in the prompt as those tokens.
  bool parseSpecialTokens = false;
  /// Keep the logits each token was chosen from (Result::logits).
  bool keepLogits = false;
};

enum class FinishReason { StopToken, MaxTokens, Callback, CacheFull };

/// A turn's outcome, copied out of the library.
struct Result {
  /// The generated ids, the stop token included.
  std::vector<int32_t> ids;
  /// Their text, special tokens left out.
  std::string text;
  FinishReason finishReason = FinishReason::StopToken;
  /// [ids, vocab] row-major when GenerateOptions::keepLogits was set.
  std::vector<float> logits;
};

/// Sees each generated token with the UTF-8 text it completes (possibly
/// empty while a character is incomplete); returns false to end the turn
/// with that token.
using TokenCallback = std::function<bool(int32_t id, std::string_view text)>;

namespace detail {

inline void check(llmc_status status) {
  if (status != LLMC_OK)
    throw Error(status, llmc_last_error());
}

inline llmc_generate_options toC(const GenerateOptions &options) {
  llmc_generate_options c;
  llmc_generate_options_init(&c);
  c.max_new_tokens = options.maxNewTokens;
  c.temperature = options.temperature;
  c.top_k = options.topK;
  c.top_p = options.topP;
  c.repetition_penalty = options.repetitionPenalty;
  c.seed = options.seed;
  c.stop_at_stop_tokens = options.stopAtStopTokens;
  c.parse_special_tokens = options.parseSpecialTokens;
  c.keep_logits = options.keepLogits;
  return c;
}

/// The C callback of a TokenCallback; an exception it throws is kept for
/// the caller, never let across the C boundary.
struct CallbackState {
  const TokenCallback *callback;
  std::exception_ptr exception;

  static int call(void *userData, int32_t id, const char *text, size_t size) {
    auto *state = static_cast<CallbackState *>(userData);
    try {
      return (*state->callback)(id, std::string_view(text, size)) ? 1 : 0;
    } catch (...) {
      state->exception = std::current_exception();
      return 0;
    }
  }
};

struct ResultDeleter {
  void operator()(llmc_result *result) const { llmc_result_free(result); }
};

/// Runs `generate(callback, userData, &result)` and copies the result out.
template <typename Generate>
Result runTurn(const TokenCallback &callback, Generate generate) {
  CallbackState state{&callback, nullptr};
  llmc_result *raw = nullptr;
  llmc_status status = callback ? generate(&CallbackState::call, &state, &raw)
                                : generate(nullptr, nullptr, &raw);
  std::unique_ptr<llmc_result, ResultDeleter> owned(raw);
  if (state.exception)
    std::rethrow_exception(state.exception);
  check(status);
  Result result;
  size_t count = 0;
  const int32_t *ids = llmc_result_ids(raw, &count);
  result.ids.assign(ids, ids + count);
  result.text = llmc_result_text(raw);
  result.finishReason =
      static_cast<FinishReason>(llmc_result_finish_reason(raw));
  size_t floats = 0;
  if (const float *logits = llmc_result_logits(raw, &floats))
    result.logits.assign(logits, logits + floats);
  return result;
}

} // namespace detail

/// Turns of text rendered by the binary's chat template, whose history
/// stays in the chat's own KV cache.
class Chat {
public:
  /// Sends a user turn and generates the reply. Error::status() is
  /// LLMC_ERROR_CACHE_FULL when the turn does not fit: reset() and resend.
  Result send(std::string_view userText, const GenerateOptions &options = {},
              const TokenCallback &callback = {}) {
    std::string text(userText);
    llmc_generate_options c = detail::toC(options);
    return detail::runTurn(callback, [&](llmc_token_callback function,
                                         void *userData, llmc_result **out) {
      return llmc_chat_send(chat_.get(), text.c_str(), &c, function, userData,
                            out);
    });
  }

  /// Starts a new conversation with the same system prompt.
  void reset() { llmc_chat_reset(chat_.get()); }

private:
  friend class Model;
  struct Deleter {
    void operator()(llmc_chat *chat) const { llmc_chat_free(chat); }
  };
  explicit Chat(llmc_chat *chat) : chat_(chat) {}
  std::unique_ptr<llmc_chat, Deleter> chat_;
};

/// A binary opened on the device of its chip.
class Model {
public:
  /// Opens `path`; `threads` per device kernel, 0 for every hardware
  /// thread.
  static Model load(const std::string &path, unsigned threads = 0) {
    llmc_model_options options;
    llmc_model_options_init(&options);
    options.threads = threads;
    llmc_model *model = nullptr;
    detail::check(llmc_model_load(path.c_str(), &options, &model));
    return Model(model);
  }

  int64_t vocabSize() const { return llmc_model_vocab_size(model_.get()); }

  /// Generates after `prompt` (encoded with the binary's tokenizer) in a
  /// fresh context.
  Result generate(std::string_view prompt, const GenerateOptions &options = {},
                  const TokenCallback &callback = {}) {
    std::string text(prompt);
    llmc_generate_options c = detail::toC(options);
    return detail::runTurn(callback, [&](llmc_token_callback function,
                                         void *userData, llmc_result **out) {
      return llmc_generate(model_.get(), text.c_str(), &c, function, userData,
                           out);
    });
  }

  /// Generates after the token ids `ids` in a fresh context.
  Result generate(const std::vector<int32_t> &ids,
                  const GenerateOptions &options = {},
                  const TokenCallback &callback = {}) {
    llmc_generate_options c = detail::toC(options);
    return detail::runTurn(callback, [&](llmc_token_callback function,
                                         void *userData, llmc_result **out) {
      return llmc_generate_ids(model_.get(), ids.data(), ids.size(), &c,
                               function, userData, out);
    });
  }

  /// A chat opened by `systemPrompt` (empty for none).
  Chat startChat(std::string_view systemPrompt = {}) {
    std::string text(systemPrompt);
    llmc_chat *chat = nullptr;
    detail::check(llmc_chat_start(model_.get(), text.c_str(), &chat));
    return Chat(chat);
  }

private:
  struct Deleter {
    void operator()(llmc_model *model) const { llmc_model_free(model); }
  };
  explicit Model(llmc_model *model) : model_(model) {}
  std::unique_ptr<llmc_model, Deleter> model_;
};

} // namespace llmc::sdk

#endif // LLMC_RUNTIME_C_LLMC_HPP
