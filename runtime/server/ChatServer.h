//===- ChatServer.h - an OpenAI-compatible HTTP server over a binary -*- C++ -*-===//
//
// `llmc serve`: the chat-completions protocol over a compiled model, on
// cpp-httplib.
//
//   POST /v1/chat/completions   messages rendered with the binary's chat
//                               template; `stream` as server-sent events
//   POST /v1/completions        a text prompt, as `llmc run -p` encodes it
//   GET  /v1/models, /health, /metrics (Prometheus text)
//   POST /tokenize, /detokenize
//
// Errors are OpenAI-style JSON with the HTTP status. With an API key every
// route but /health needs `Authorization: Bearer <key>`. People's words are
// never read as special tokens. One request generates at a time; others
// wait for it, up to `slots + queue` requests in all: beyond, the server
// answers 503 with Retry-After at once rather than let them pile up. Each runs on one of a few kept conversations: the one whose
// tokens share the longest prefix with its prompt (else the least recently
// used), rewound to that prefix, so a follow-up turn sent with its whole
// history runs only its new tokens (usage.prompt_tokens_details.
// cached_tokens says how many it reused).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SERVER_CHATSERVER_H
#define LLMC_RUNTIME_SERVER_CHATSERVER_H

#include "runtime/api/Model.h"
#include "support/Status.h"

#include <memory>
#include <string>

namespace llmc::server {

struct ServerOptions {
  /// Loopback unless the user opens it wider.
  std::string host = "127.0.0.1";
  /// 0 picks a free port.
  int port = 8080;
  /// Required as a bearer token when not empty.
  std::string apiKey;
  /// The model's name in replies and /v1/models.
  std::string modelName = "llmc";
  /// Largest request body accepted (413 beyond).
  size_t maxBodyBytes = 1 << 20;
  /// Conversations whose KV caches are kept: a request whose prompt starts
  /// with one's tokens feeds only the rest.
  int slots = 4;
  /// Completion requests that may wait beyond `slots` for the one
  /// generation at a time; further ones are answered 503 with Retry-After.
  int queue = 8;
};

class ChatServer {
public:
  /// `model` must outlive the server.
  ChatServer(Model &model, ServerOptions options);
  ~ChatServer();

  /// Binds the socket; returns the port (the chosen one when the options
  /// asked for 0). Fails naming the address when it cannot bind.
  absl::StatusOr<int> bind();
  /// Serves until stop() (from another thread) or a failure.
  void serve();
  void stop();

private:
  class Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace llmc::server

#endif // LLMC_RUNTIME_SERVER_CHATSERVER_H
