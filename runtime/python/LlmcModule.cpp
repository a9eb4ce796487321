//===- LlmcModule.cpp - the _llmc extension module ------------------------===//
//
// The C++ API to Python with pybind11: Model, Chat and Result. Generation
// releases the GIL, and the token callback takes it back for each token,
// so the `llmc` package (llmc/__init__.py) can stream tokens from a worker
// thread. Ids and logits come back as numpy arrays; failures raise
// llmc.Error (a RuntimeError) with the runtime's message.
//
//===----------------------------------------------------------------------===//

#include "runtime/c/GenerateOptions.h"
#include "runtime/llmc.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace py = pybind11;

namespace {

/// llmc.Error, set when the module is created.
PyObject *errorType = nullptr;

[[noreturn]] void raise(const absl::Status &error) {
  PyErr_SetString(errorType, std::string(error.message()).c_str());
  throw py::error_already_set();
}

template <typename T> T unwrap(absl::StatusOr<T> value) {
  if (!value.ok())
    raise(value.status());
  return *std::move(value);
}

/// (id, text) -> bool from Python, or none.
using PyCallback = std::function<bool(int32_t, const std::string &)>;

llmc::TokenCallback toCallback(const std::optional<PyCallback> &callback) {
  if (!callback)
    return {};
  return [callback = *callback](int32_t id, std::string_view text) {
    // pybind11 takes the GIL to call into Python.
    return callback(id, std::string(text));
  };
}

py::array_t<int32_t> toArray(const std::vector<int32_t> &ids) {
  return py::array_t<int32_t>(static_cast<py::ssize_t>(ids.size()), ids.data());
}

/// A finished turn; Result in Python.
struct Result {
  llmc::GenerateResult result;
  int64_t vocabSize = 0;

  py::array_t<int32_t> getIds() const { return toArray(result.ids); }
  py::array_t<int32_t> getPromptIds() const {
    return toArray(result.promptIds);
  }
  py::object getLogits() const {
    if (result.logits.empty() || vocabSize <= 0)
      return py::none();
    py::ssize_t rows = static_cast<py::ssize_t>(result.logits.size()) /
                       static_cast<py::ssize_t>(vocabSize);
    py::array_t<float> logits({rows, static_cast<py::ssize_t>(vocabSize)});
    std::copy(result.logits.begin(), result.logits.end(),
              logits.mutable_data());
    return std::move(logits);
  }
  std::string getFinishReason() const {
    return std::string(llmc::stringifyFinishReason(result.finish));
  }
};

class Model {
public:
  Model(const std::string &path, unsigned threads, bool verifyChecksums) {
    llmc::ModelOptions options;
    options.threads = threads;
    options.verifyChecksums = verifyChecksums;
    model = unwrap(llmc::Model::load(path, options));
  }

  Result generate(const std::variant<std::string, std::vector<int32_t>> &prompt,
                  const llmc_generate_options &options,
                  const std::optional<PyCallback> &callback) {
    absl::StatusOr<llmc::GenerateResult> result = [&] {
      py::gil_scoped_release release;
      if (const std::string *text = std::get_if<std::string>(&prompt))
        return model->generate(std::string_view(*text),
                               llmc::toGenerateOptions(&options),
                               toCallback(callback));
      return model->generate(
          absl::MakeConstSpan(std::get<std::vector<int32_t>>(prompt)),
          llmc::toGenerateOptions(&options), toCallback(callback));
    }();
    return Result{unwrap(std::move(result)), getVocabSize()};
  }

  py::array_t<int32_t> encode(const std::string &text, bool addSpecialTokens) {
    return toArray(unwrap(model->encode(text, addSpecialTokens)));
  }

  int64_t getVocabSize() const { return model->getDims().vocabSize; }
  llmc::Model &get() { return *model; }

private:
  std::unique_ptr<llmc::Model> model;
};

class Chat {
public:
  /// Keeps `owner` (the Python Model) alive as long as the chat.
  Chat(Model &model, py::object owner, const std::string &systemPrompt)
      : model(model), owner(std::move(owner)),
        session(unwrap(model.get().startChat(systemPrompt))) {}

  Result send(const std::string &userText, const llmc_generate_options &options,
              const std::optional<PyCallback> &callback) {
    absl::StatusOr<llmc::GenerateResult> result = [&] {
      py::gil_scoped_release release;
      return session->send(userText, toCallback(callback),
                           llmc::toGenerateOptions(&options));
    }();
    return Result{unwrap(std::move(result)), model.getVocabSize()};
  }

  void reset() { session->reset(); }

  /// (role, content) pairs of the conversation so far.
  std::vector<std::pair<std::string, std::string>> getMessages() const {
    std::vector<std::pair<std::string, std::string>> messages;
    for (const llmc::chat::ChatMessage &message : session->getMessages())
      messages.emplace_back(
          std::string(llmc::chat::stringifyRole(message.role)),
          message.content);
    return messages;
  }

private:
  Model &model;
  py::object owner;
  std::unique_ptr<llmc::ChatSession> session;
};

/// Binds `method` of a class whose calls take the generation keywords.
template <typename Class, typename First>
void defGenerating(py::class_<Class> &cls, const char *name,
                   Result (Class::*method)(const First &,
                                           const llmc_generate_options &,
                                           const std::optional<PyCallback> &),
                   const char *first, const char *doc) {
  cls.def(
      name,
      [method](Class &self, const First &input, int64_t maxNewTokens,
               double temperature, int64_t topK, double topP,
               double repetitionPenalty, uint64_t seed, bool stopAtStopTokens,
               bool parseSpecialTokens, bool keepLogits,
               std::optional<PyCallback> callback) {
        llmc_generate_options options;
        llmc_generate_options_init(&options);
        options.max_new_tokens = maxNewTokens;
        options.temperature = static_cast<float>(temperature);
        options.top_k = topK;
        options.top_p = static_cast<float>(topP);
        options.repetition_penalty = static_cast<float>(repetitionPenalty);
        options.seed = seed;
        options.stop_at_stop_tokens = stopAtStopTokens;
        options.parse_special_tokens = parseSpecialTokens;
        options.keep_logits = keepLogits;
        return (self.*method)(input, options, callback);
      },
      py::arg(first), py::kw_only(), py::arg("max_new_tokens") = 0,
      py::arg("temperature") = 0.0, py::arg("top_k") = 0,
      py::arg("top_p") = 1.0, py::arg("repetition_penalty") = 1.0,
      py::arg("seed") = 0, py::arg("stop_at_stop_tokens") = true,
      py::arg("parse_special_tokens") = false, py::arg("keep_logits") = false,
      py::arg("callback") = py::none(), doc);
}

} // namespace

PYBIND11_MODULE(_llmc, module) {
  module.doc() = "llmc's runtime: compiled .llmc binaries from Python (the "
                 "extension behind the llmc package)";
  static py::exception<std::runtime_error> error(module, "Error",
                                                 PyExc_RuntimeError);
  errorType = error.ptr();

  py::class_<Result>(module, "Result")
      .def_property_readonly("ids", &Result::getIds,
                             "The generated ids (int32), the stop token "
                             "included.")
      .def_property_readonly("prompt_ids", &Result::getPromptIds,
                             "The ids fed for this turn.")
      .def_property_readonly(
          "text", [](const Result &self) { return self.result.text; },
          "The generated text, special tokens left out.")
      .def_property_readonly("finish_reason", &Result::getFinishReason,
                             "'stop token', 'max tokens', 'callback' or "
                             "'cache full'.")
      .def_property_readonly("logits", &Result::getLogits,
                             "[generated, vocab] float32 logits with "
                             "keep_logits, else None.")
      .def_property_readonly("first_token_seconds",
                             [](const Result &self) {
                               return self.result.timings.firstTokenSeconds;
                             })
      .def_property_readonly("tokens_per_second", [](const Result &self) {
        return self.result.timings.getHostTokensPerSecond();
      });

  py::class_<Model> model(module, "Model");
  model
      .def(py::init<const std::string &, unsigned, bool>(), py::arg("path"),
           py::kw_only(), py::arg("threads") = 0,
           py::arg("verify_checksums") = true,
           "Opens a .llmc binary on the device of its chip.")
      .def_property_readonly("vocab_size", &Model::getVocabSize)
      .def("encode", &Model::encode, py::arg("text"),
           py::arg("add_special_tokens") = true,
           "The ids of `text` under the binary's tokenizer.")
      .def(
          "start_chat",
          [](py::object self, const std::string &systemPrompt) {
            return std::make_unique<Chat>(self.cast<Model &>(), self,
                                          systemPrompt);
          },
          py::arg("system_prompt") = "",
          "A chat whose turns the binary's chat template renders.");
  defGenerating<Model, std::variant<std::string, std::vector<int32_t>>>(
      model, "generate_result", &Model::generate, "prompt",
      "Generates after a text prompt or a list of ids in a fresh context; "
      "calls callback(id, text) per token (False ends the turn).");

  py::class_<Chat> chat(module, "Chat");
  chat.def("reset", &Chat::reset,
           "Starts a new conversation with the same system prompt.")
      .def_property_readonly("messages", &Chat::getMessages,
                             "(role, content) of every turn so far.");
  defGenerating<Chat, std::string>(chat, "send_result", &Chat::send,
                                   "user_text",
                                   "Sends a user turn; returns the reply.");
}
