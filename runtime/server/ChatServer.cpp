//===- ChatServer.cpp - an OpenAI-compatible HTTP server over a binary ----===//

#include "runtime/server/ChatServer.h"

#include "runtime/api/Conversation.h"
#include "runtime/server/OpenAIProtocol.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "support/Strings.h"

#include "absl/strings/str_format.h"
#include "absl/types/span.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <functional>
#include <mutex>
#include <string_view>
#include <type_traits>

namespace llmc::server {

using nlohmann::json;

namespace {

/// What a finished generation reports.
struct Generated {
  int64_t promptTokens = 0;
  /// Prompt tokens a kept conversation already held.
  int64_t cachedTokens = 0;
  int64_t completionTokens = 0;
  std::string finishReason;
};

/// The longest tail of `text` that could still start a stop string, cut at
/// a UTF-8 character boundary: text a stream must hold back.
size_t getHoldBack(std::string_view text,
                   const std::vector<std::string> &stop) {
  size_t hold = 0;
  for (const std::string &marker : stop)
    for (size_t length = std::min(marker.size() - 1, text.size()); length > 0;
         --length)
      if (support::endsWith(text, std::string_view(marker).substr(0, length))) {
        hold = std::max(hold, length);
        break;
      }
  // Never split a character: its continuation bytes are 10xxxxxx.
  size_t cut = text.size() - hold;
  while (cut > 0 && cut < text.size() &&
         (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
    --cut;
  return text.size() - cut;
}

/// `value` as compact JSON text. Generated text may end inside a character
/// and a parse error quotes the bytes it stopped at: bytes that are not
/// UTF-8 are written as U+FFFD rather than failing.
std::string toText(const json &value) {
  return value.dump(/*indent=*/-1, ' ', /*ensure_ascii=*/false,
                    json::error_handler_t::replace);
}

void setJson(httplib::Response &response, const json &value, int status = 200) {
  response.status = status;
  response.set_content(toText(value), "application/json");
}

void setError(httplib::Response &response, int status, std::string_view message,
              std::string_view type = "invalid_request_error") {
  setJson(response, makeError(message, type, status), status);
}

void setError(httplib::Response &response, int status,
              const absl::Status &error) {
  setError(response, status, std::string(error.message()));
}

/// The binary's chat template with the request's chat_template_kwargs.
absl::StatusOr<chat::ChatTemplate>
getChatTemplate(const Model &model, const CompletionRequest &request) {
  if (!request.templateVariables)
    return model.getChatTemplate();
  return model.getChatTemplate().withVariables(*request.templateVariables);
}

} // namespace

class ChatServer::Impl {
public:
  Impl(Model &model, ServerOptions options)
      : model(model), options(std::move(options)) {
    for (int i = 0; i < std::max(1, this->options.slots); ++i)
      slots.push_back({model.startConversation(), 0});
    routes();
  }

  absl::StatusOr<int> bind() {
    int port =
        options.port == 0
            ? server.bind_to_any_port(options.host)
            : (server.bind_to_port(options.host, options.port) ? options.port
                                                               : -1);
    if (port < 0)
      return absl::UnavailableError(absl::StrFormat(
          "cannot listen on %s:%d", options.host, options.port));
    return port;
  }
  void serve() { server.listen_after_bind(); }
  void stop() { server.stop(); }

private:
  void routes();
  bool authorized(const httplib::Request &request) const;
  void complete(const httplib::Request &request, httplib::Response &response,
                bool chat);
  /// Generates for `request` (with the generation lock held), passing each
  /// piece of text to `emit`, which returns false when the client is gone.
  absl::StatusOr<Generated>
  generate(const CompletionRequest &request,
           const std::function<bool(std::string_view)> &emit);
  /// The fields every reply of request `id` starts with.
  json header(bool chat, bool chunk, const std::string &id) const;

  /// A kept conversation and when it last served.
  struct Slot {
    std::unique_ptr<Conversation> conversation;
    uint64_t lastUse = 0;
  };
  /// The slot for `ids`, rewound to what it shares with them; returns the
  /// ids it already holds.
  int64_t takeSlot(absl::Span<const int32_t> ids, Slot *&chosen);

  /// What /metrics reports, all since the server started; guarded by
  /// `lock`, which is only held briefly, so a scrape never waits for a
  /// generation.
  struct Metrics {
    std::mutex lock;
    uint64_t requests = 0;
    uint64_t failedRequests = 0;
    uint64_t promptTokens = 0;
    uint64_t cachedPromptTokens = 0;
    uint64_t completionTokens = 0;
    double firstTokenSeconds = 0;
    uint64_t decodeTokens = 0;
    double decodeSeconds = 0;
    uint64_t rejectedRequests = 0;
    std::atomic<int64_t> waiting{0};
  };
  /// Holds a place among the `slots + queue` completion requests in flight;
  /// gives it back when destroyed (a streamed reply's ends with its stream).
  class Admission {
  public:
    explicit Admission(std::atomic<int64_t> &inFlight) : inFlight(inFlight) {}
    Admission(const Admission &) = delete;
    Admission &operator=(const Admission &) = delete;
    ~Admission() { --inFlight; }

  private:
    std::atomic<int64_t> &inFlight;
  };
  /// Completion requests in flight at most: every slot and queue place.
  int getAdmissionLimit() const {
    return std::max(1, options.slots) + std::max(0, options.queue);
  }
  /// A place for one more completion request, or null when all are taken.
  std::shared_ptr<Admission> admit();
  std::string renderMetrics();

  Model &model;
  ServerOptions options;
  httplib::Server server;
  Metrics metrics;
  std::atomic<int64_t> inFlight{0};
  /// Guards the device and the slots: one generation at a time.
  std::mutex generation;
  std::vector<Slot> slots;
  uint64_t useClock = 0;
  std::atomic<uint64_t> nextId{1};
};

bool ChatServer::Impl::authorized(const httplib::Request &request) const {
  if (options.apiKey.empty() || request.path == "/health")
    return true;
  return request.get_header_value("Authorization") ==
         "Bearer " + options.apiKey;
}

int64_t ChatServer::Impl::takeSlot(absl::Span<const int32_t> ids,
                                   Slot *&chosen) {
  auto sharedWith = [&](const Slot &slot) {
    const Conversation &conversation = *slot.conversation;
    std::vector<int32_t> known(conversation.getTokens().begin(),
                               conversation.getTokens().end());
    if (std::optional<int32_t> pending = conversation.getPendingToken())
      known.push_back(*pending);
    size_t shared = 0;
    while (shared < known.size() && shared < ids.size() &&
           known[shared] == ids[shared])
      ++shared;
    return static_cast<int64_t>(shared);
  };
  chosen = &slots.front();
  int64_t best = sharedWith(*chosen);
  for (Slot &slot : absl::MakeSpan(slots).subspan(1)) {
    int64_t shared = sharedWith(slot);
    if (shared > best || (shared == best && slot.lastUse < chosen->lastUse)) {
      chosen = &slot;
      best = shared;
    }
  }
  chosen->lastUse = ++useClock;
  // Keep what the cache holds of the shared prefix (the pending token is
  // not in it), and feed at least one token.
  Conversation &conversation = *chosen->conversation;
  int64_t keep = std::min(best, conversation.getHistoryLength());
  keep = std::max<int64_t>(
      0, std::min<int64_t>(keep, static_cast<int64_t>(ids.size()) - 1));
  conversation.rewind(keep);
  return keep;
}

json ChatServer::Impl::header(bool chat, bool chunk,
                              const std::string &id) const {
  std::string_view object =
      chat ? (chunk ? "chat.completion.chunk" : "chat.completion")
           : "text_completion";
  return json{{"id", id},
              {"object", object},
              {"created", static_cast<int64_t>(std::time(nullptr))},
              {"model", options.modelName}};
}

absl::StatusOr<Generated>
ChatServer::Impl::generate(const CompletionRequest &request,
                           const std::function<bool(std::string_view)> &emit) {
  absl::StatusOr<std::vector<int32_t>> ids;
  if (request.messages.empty()) {
    ids = model.encodePrompt(request.prompt, /*parseSpecialTokens=*/false);
  } else {
    LLMC_ASSIGN_OR_RETURN(chat::ChatTemplate chatTemplate,
                          getChatTemplate(model, request));
    LLMC_ASSIGN_OR_RETURN(chat::ChatPrompt prompt,
                          chatTemplate.render(request.messages, true));
    // The rendered text holds the BOS token where the template puts one.
    ids =
        model.encode(prompt.text, /*addSpecialTokens=*/false, prompt.contents);
  }
  if (!ids.ok())
    return ids.status();
  GenerateOptions generateOptions;
  generateOptions.maxNewTokens = request.maxTokens;
  generateOptions.sampling = request.sampling;
  // The text so far, what was passed on, and whether a stop string ended it.
  std::string text;
  size_t emitted = 0;
  bool stoppedAtString = false, clientGone = false;
  auto onToken = [&](int32_t, std::string_view piece) {
    text += piece;
    size_t end = text.size();
    for (const std::string &marker : request.stop) {
      size_t at = text.find(
          marker, emitted > marker.size() ? emitted - marker.size() : 0);
      if (at != std::string::npos && at < end) {
        end = at;
        stoppedAtString = true;
      }
    }
    if (!stoppedAtString)
      end -= getHoldBack(text, request.stop);
    if (end > emitted &&
        !emit(std::string_view(text).substr(emitted, end - emitted)))
      clientGone = true;
    emitted = std::max(emitted, end);
    return !stoppedAtString && !clientGone;
  };
  ++metrics.waiting;
  std::lock_guard<std::mutex> lock(generation);
  --metrics.waiting;
  Slot *slot = nullptr;
  int64_t cached = takeSlot(*ids, slot);
  absl::StatusOr<GenerateResult> result =
      slot->conversation->send(absl::Span<const int32_t>(*ids).subspan(cached),
                               generateOptions, onToken, PendingToken::Drop);
  if (!result.ok()) {
    // A failed turn may have fed part of the prompt: start the slot over.
    slot->conversation->reset();
    std::lock_guard<std::mutex> counting(metrics.lock);
    ++metrics.requests;
    ++metrics.failedRequests;
    return result.status();
  }
  {
    std::lock_guard<std::mutex> counting(metrics.lock);
    ++metrics.requests;
    metrics.promptTokens += ids->size();
    metrics.cachedPromptTokens += static_cast<uint64_t>(cached);
    metrics.completionTokens += result->ids.size();
    metrics.firstTokenSeconds += result->timings.firstTokenSeconds;
    metrics.decodeTokens += static_cast<uint64_t>(result->timings.decodeTokens);
    metrics.decodeSeconds += result->timings.decodeSeconds;
  }
  if (!stoppedAtString && !clientGone && emitted < text.size())
    emit(std::string_view(text).substr(emitted));
  Generated generated;
  generated.promptTokens = static_cast<int64_t>(ids->size());
  generated.cachedTokens = cached;
  generated.completionTokens = static_cast<int64_t>(result->ids.size());
  generated.finishReason =
      std::string(getFinishReason(result->finish, stoppedAtString));
  return generated;
}

std::shared_ptr<ChatServer::Impl::Admission> ChatServer::Impl::admit() {
  if (++inFlight > getAdmissionLimit()) {
    --inFlight;
    std::lock_guard<std::mutex> counting(metrics.lock);
    ++metrics.rejectedRequests;
    return nullptr;
  }
  return std::make_shared<Admission>(inFlight);
}

void ChatServer::Impl::complete(const httplib::Request &httpRequest,
                                httplib::Response &response, bool chat) {
  absl::StatusOr<CompletionRequest> request =
      parseCompletionRequest(httpRequest.body, chat, RequestLimits());
  if (!request.ok())
    return setError(response, 400, request.status());
  std::shared_ptr<Admission> admission = admit();
  if (!admission) {
    response.set_header("Retry-After", "1");
    return setError(response, 503,
                    "the server is busy: every slot and queue place is "
                    "taken; retry later",
                    "server_error");
  }
  std::string id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(nextId++);
  if (!request->stream) {
    std::string text;
    absl::StatusOr<Generated> generated =
        generate(*request, [&](std::string_view piece) {
          text += piece;
          return true;
        });
    if (!generated.ok())
      return setError(response, 400, generated.status());
    json reply = header(chat, /*chunk=*/false, id);
    json choice{{"index", 0}, {"finish_reason", generated->finishReason}};
    if (chat)
      choice["message"] = json{{"role", "assistant"}, {"content", text}};
    else
      choice["text"] = text;
    reply["choices"] = json::array({std::move(choice)});
    reply["usage"] =
        makeUsage(generated->promptTokens, generated->completionTokens,
                  generated->cachedTokens);
    return setJson(response, reply);
  }
  CompletionRequest streamed = std::move(*request);
  response.set_chunked_content_provider(
      "text/event-stream",
      [this, chat, streamed, id, admission](size_t, httplib::DataSink &sink) {
        auto send = [&](const json &value) {
          std::string event = "data: " + toText(value) + "\n\n";
          return sink.write(event.data(), event.size());
        };
        // `delta` is an object: a completion's chunk takes its content.
        auto chunk = [&](json delta, json finish) {
          json event = header(chat, /*chunk=*/true, id);
          json choice{{"index", 0}, {"finish_reason", std::move(finish)}};
          if (chat)
            choice["delta"] = std::move(delta);
          else
            choice["text"] = delta.value("content", "");
          event["choices"] = json::array({std::move(choice)});
          return event;
        };
        if (chat)
          send(chunk(json{{"role", "assistant"}, {"content", ""}}, nullptr));
        absl::StatusOr<Generated> generated =
            generate(streamed, [&](std::string_view piece) {
              return send(chunk(json{{"content", piece}}, nullptr));
            });
        if (!generated.ok()) {
          send(makeError(std::string(generated.status().message()),
                         "invalid_request_error", 400));
        } else {
          send(chunk(json::object(), generated->finishReason));
          if (streamed.includeUsage) {
            json usage = header(chat, /*chunk=*/true, id);
            usage["choices"] = json::array();
            usage["usage"] =
                makeUsage(generated->promptTokens, generated->completionTokens,
                          generated->cachedTokens);
            send(usage);
          }
        }
        std::string done = "data: [DONE]\n\n";
        sink.write(done.data(), done.size());
        sink.done();
        return true;
      });
}

std::string ChatServer::Impl::renderMetrics() {
  std::string text;
  auto metric = [&](std::string_view name, std::string_view type,
                    std::string_view help, auto value) {
    std::string number;
    if constexpr (std::is_floating_point_v<decltype(value)>)
      number = absl::StrFormat("%.6f", value);
    else
      number = support::strCat(value);
    text +=
        support::strCat("# HELP llmc_", name, " ", help, "\n# TYPE llmc_", name,
                        " ", type, "\nllmc_", name, " ", number, "\n");
  };
  int64_t waiting = metrics.waiting.load();
  std::lock_guard<std::mutex> lock(metrics.lock);
  metric("requests_total", "counter", "Completion requests generated.",
         metrics.requests);
  metric("request_failures_total", "counter",
         "Completion requests whose generation failed.",
         metrics.failedRequests);
  metric("prompt_tokens_total", "counter", "Prompt tokens of the requests.",
         metrics.promptTokens);
  metric("prompt_tokens_cached_total", "counter",
         "Prompt tokens a kept conversation already held (not run again).",
         metrics.cachedPromptTokens);
  metric("completion_tokens_total", "counter", "Tokens generated.",
         metrics.completionTokens);
  metric("time_to_first_token_seconds_total", "counter",
         "Time from each request's generation to its first token, summed.",
         metrics.firstTokenSeconds);
  metric("decode_tokens_total", "counter",
         "Tokens generated after each request's first.", metrics.decodeTokens);
  metric("decode_seconds_total", "counter", "Host time of those decode steps.",
         metrics.decodeSeconds);
  metric("requests_waiting", "gauge",
         "Requests waiting for the one generation at a time.", waiting);
  metric("requests_rejected_total", "counter",
         "Completion requests answered 503: every slot and queue place was "
         "taken.",
         metrics.rejectedRequests);
  return text;
}

void ChatServer::Impl::routes() {
  server.set_payload_max_length(options.maxBodyBytes);
  // A worker for every admitted request and two for quick routes, so a
  // request beyond the queue is answered 503 instead of waiting unseen in
  // the socket's backlog.
  server.new_task_queue = [threads = getAdmissionLimit() + 2] {
    return new httplib::ThreadPool(threads);
  };
  server.set_pre_routing_handler(
      [this](const httplib::Request &request, httplib::Response &response) {
        if (authorized(request))
          return httplib::Server::HandlerResponse::Unhandled;
        setError(response, 401, "a valid API key is required",
                 "authentication_error");
        return httplib::Server::HandlerResponse::Handled;
      });
  server.set_error_handler(
      [](const httplib::Request &request, httplib::Response &response) {
        if (!response.body.empty())
          return;
        std::string_view message = response.status == 404 ? "no such route"
                                   : response.status == 413
                                       ? "the body is too large"
                                       : "the request failed";
        setError(response, response.status,
                 support::strCat(message, ": ", request.path));
      });
  server.Get("/health", [](const httplib::Request &, httplib::Response &res) {
    setJson(res, json{{"status", "ok"}});
  });
  server.Get("/metrics",
             [this](const httplib::Request &, httplib::Response &res) {
               res.set_content(renderMetrics(), "text/plain; version=0.0.4");
             });
  server.Get(
      "/v1/models", [this](const httplib::Request &, httplib::Response &res) {
        setJson(res, json{{"object", "list"},
                          {"data", json::array({json{{"id", options.modelName},
                                                     {"object", "model"},
                                                     {"owned_by", "llmc"}}})}});
      });
  server.Post("/v1/chat/completions",
              [this](const httplib::Request &req, httplib::Response &res) {
                complete(req, res, /*chat=*/true);
              });
  server.Post("/v1/completions",
              [this](const httplib::Request &req, httplib::Response &res) {
                complete(req, res, /*chat=*/false);
              });
  server.Post("/tokenize", [this](const httplib::Request &req,
                                  httplib::Response &res) {
    absl::StatusOr<TokenizeRequest> request = parseTokenizeRequest(req.body);
    if (!request.ok())
      return setError(res, 400, request.status());
    const std::string &content = request->content;
    absl::StatusOr<std::vector<int32_t>> ids =
        model.encode(content, request->addSpecial,
                     {tokenizer::TextRange{0, content.size()}});
    if (!ids.ok())
      return setError(res, 400, ids.status());
    setJson(res, json{{"tokens", *ids}});
  });
  server.Post("/detokenize", [this](const httplib::Request &req,
                                    httplib::Response &res) {
    const tokenizer::Tokenizer *tokenizer = model.getTokenizer();
    if (!tokenizer)
      return setError(res, 400, "the binary holds no tokenizer");
    absl::StatusOr<std::vector<int32_t>> ids =
        parseDetokenizeRequest(req.body, tokenizer->vocabSize());
    if (!ids.ok())
      return setError(res, 400, ids.status());
    setJson(res,
            json{{"content", tokenizer->decode(*ids, /*skipSpecial=*/false)}});
  });
}

ChatServer::ChatServer(Model &model, ServerOptions options)
    : impl(std::make_unique<Impl>(model, std::move(options))) {}
ChatServer::~ChatServer() = default;
absl::StatusOr<int> ChatServer::bind() { return impl->bind(); }
void ChatServer::serve() { impl->serve(); }
void ChatServer::stop() { impl->stop(); }

} // namespace llmc::server
