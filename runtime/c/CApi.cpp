//===- CApi.cpp - llmc_c.h over the C++ API -------------------------------===//
//
// Handles own the C++ objects; statuses come from the absl::Status each
// call returns, its message kept per thread for llmc_last_error. Every entry
// point catches what the C++ side could still throw (allocation failures),
// since no exception may cross into C.
//
//===----------------------------------------------------------------------===//

#include "runtime/c/llmc_c.h"

#include "runtime/c/GenerateOptions.h"
#include "runtime/llmc.h"
#include "runtime/session/Session.h"

#include <exception>
#include <memory>
#include <string>

struct llmc_model {
  std::unique_ptr<llmc::Model> model;
};

struct llmc_chat {
  std::unique_ptr<llmc::ChatSession> chat;
};

struct llmc_result {
  llmc::GenerateResult result;
};

namespace {

thread_local std::string lastError;

llmc_status fail(llmc_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

/// Reports `error` as `status`, except that a chat turn that does not fit
/// the cache is LLMC_ERROR_CACHE_FULL: the caller's to handle.
llmc_status failWith(const absl::Status &error, llmc_status status) {
  if (llmc::session::getCacheCapacity(error))
    status = LLMC_ERROR_CACHE_FULL;
  return fail(status, std::string(error.message()));
}

/// Runs `body`, turning anything it throws into LLMC_ERROR_INTERNAL.
template <typename Body> llmc_status guarded(Body body) {
  lastError.clear();
  try {
    return body();
  } catch (const std::exception &exception) {
    return fail(LLMC_ERROR_INTERNAL, exception.what());
  } catch (...) {
    return fail(LLMC_ERROR_INTERNAL, "an unknown C++ exception");
  }
}

llmc_status nullArgument(const char *function, const char *argument) {
  return fail(LLMC_ERROR_INVALID_ARGUMENT,
              std::string(function) + ": " + argument + " is NULL");
}

llmc::TokenCallback toCallback(llmc_token_callback callback, void *userData) {
  if (!callback)
    return {};
  return [callback, userData](int32_t id, std::string_view text) {
    return callback(userData, id, text.data(), text.size()) != 0;
  };
}

/// Hands a finished turn to the caller, or reports why it failed.
llmc_status deliver(absl::StatusOr<llmc::GenerateResult> generated,
                    llmc_result **result) {
  if (!generated.ok())
    return failWith(generated.status(), LLMC_ERROR_GENERATE);
  *result = new llmc_result{std::move(*generated)};
  return LLMC_OK;
}

} // namespace

extern "C" {

const char *llmc_last_error(void) { return lastError.c_str(); }

void llmc_model_options_init(llmc_model_options *options) {
  if (!options)
    return;
  options->threads = 0;
  options->verify_checksums = 1;
}

llmc_status llmc_model_load(const char *path, const llmc_model_options *options,
                            llmc_model **model) {
  return guarded([&] {
    if (!path)
      return nullArgument("llmc_model_load", "path");
    if (!model)
      return nullArgument("llmc_model_load", "model");
    *model = nullptr;
    llmc::ModelOptions cppOptions;
    if (options) {
      cppOptions.threads = options->threads;
      cppOptions.verifyChecksums = options->verify_checksums != 0;
    }
    absl::StatusOr<std::unique_ptr<llmc::Model>> loaded =
        llmc::Model::load(path, cppOptions);
    if (!loaded.ok())
      return failWith(loaded.status(), LLMC_ERROR_LOAD);
    *model = new llmc_model{std::move(*loaded)};
    return LLMC_OK;
  });
}

void llmc_model_free(llmc_model *model) { delete model; }

int64_t llmc_model_vocab_size(const llmc_model *model) {
  return model ? model->model->getDims().vocabSize : 0;
}

void llmc_generate_options_init(llmc_generate_options *options) {
  if (!options)
    return;
  options->max_new_tokens = 0;
  options->temperature = 0.0f;
  options->top_k = 0;
  options->top_p = 1.0f;
  options->repetition_penalty = 1.0f;
  options->seed = 0;
  options->stop_at_stop_tokens = 1;
  options->parse_special_tokens = 0;
  options->keep_logits = 0;
}

llmc_status llmc_generate(llmc_model *model, const char *prompt,
                          const llmc_generate_options *options,
                          llmc_token_callback callback, void *userData,
                          llmc_result **result) {
  return guarded([&] {
    if (!model)
      return nullArgument("llmc_generate", "model");
    if (!prompt)
      return nullArgument("llmc_generate", "prompt");
    if (!result)
      return nullArgument("llmc_generate", "result");
    *result = nullptr;
    return deliver(model->model->generate(std::string_view(prompt),
                                          llmc::toGenerateOptions(options),
                                          toCallback(callback, userData)),
                   result);
  });
}

llmc_status llmc_generate_ids(llmc_model *model, const int32_t *ids,
                              size_t count,
                              const llmc_generate_options *options,
                              llmc_token_callback callback, void *userData,
                              llmc_result **result) {
  return guarded([&] {
    if (!model)
      return nullArgument("llmc_generate_ids", "model");
    if (!ids && count > 0)
      return nullArgument("llmc_generate_ids", "ids");
    if (!result)
      return nullArgument("llmc_generate_ids", "result");
    *result = nullptr;
    return deliver(model->model->generate(absl::Span<const int32_t>(ids, count),
                                          llmc::toGenerateOptions(options),
                                          toCallback(callback, userData)),
                   result);
  });
}

const int32_t *llmc_result_ids(const llmc_result *result, size_t *count) {
  if (count)
    *count = result ? result->result.ids.size() : 0;
  return result ? result->result.ids.data() : nullptr;
}

const char *llmc_result_text(const llmc_result *result) {
  return result ? result->result.text.c_str() : "";
}

llmc_finish_reason llmc_result_finish_reason(const llmc_result *result) {
  if (!result)
    return LLMC_FINISH_MAX_TOKENS;
  switch (result->result.finish) {
  case llmc::FinishReason::StopToken:
    return LLMC_FINISH_STOP_TOKEN;
  case llmc::FinishReason::MaxTokens:
    return LLMC_FINISH_MAX_TOKENS;
  case llmc::FinishReason::Callback:
    return LLMC_FINISH_CALLBACK;
  case llmc::FinishReason::CacheFull:
    return LLMC_FINISH_CACHE_FULL;
  }
  return LLMC_FINISH_MAX_TOKENS;
}

const float *llmc_result_logits(const llmc_result *result, size_t *count) {
  bool kept = result && !result->result.logits.empty();
  if (count)
    *count = kept ? result->result.logits.size() : 0;
  return kept ? result->result.logits.data() : nullptr;
}

void llmc_result_free(llmc_result *result) { delete result; }

llmc_status llmc_chat_start(llmc_model *model, const char *systemPrompt,
                            llmc_chat **chat) {
  return guarded([&] {
    if (!model)
      return nullArgument("llmc_chat_start", "model");
    if (!chat)
      return nullArgument("llmc_chat_start", "chat");
    *chat = nullptr;
    absl::StatusOr<std::unique_ptr<llmc::ChatSession>> session =
        model->model->startChat(systemPrompt ? systemPrompt : "");
    if (!session.ok())
      return failWith(session.status(), LLMC_ERROR_GENERATE);
    *chat = new llmc_chat{std::move(*session)};
    return LLMC_OK;
  });
}

void llmc_chat_free(llmc_chat *chat) { delete chat; }

llmc_status llmc_chat_send(llmc_chat *chat, const char *userText,
                           const llmc_generate_options *options,
                           llmc_token_callback callback, void *userData,
                           llmc_result **result) {
  return guarded([&] {
    if (!chat)
      return nullArgument("llmc_chat_send", "chat");
    if (!userText)
      return nullArgument("llmc_chat_send", "user_text");
    if (!result)
      return nullArgument("llmc_chat_send", "result");
    *result = nullptr;
    return deliver(chat->chat->send(userText, toCallback(callback, userData),
                                    llmc::toGenerateOptions(options)),
                   result);
  });
}

void llmc_chat_reset(llmc_chat *chat) {
  if (chat)
    chat->chat->reset();
}

} // extern "C"
