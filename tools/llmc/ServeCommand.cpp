//===- ServeCommand.cpp - llmc serve: OpenAI's HTTP API over a binary -----===//
//
//   llmc serve -m model.llmc [--host 127.0.0.1] [--port 8080] [--api-key K]
//              [--parallel N] [--queue Q]
//
// Loads the binary on its chip's device and answers the chat-completions
// protocol (runtime/server/ChatServer.h) until it is stopped. It prints
// `listening on http://HOST:PORT` on stderr once it accepts connections
// (--port 0 picks a free port, which that line names).
//
//===----------------------------------------------------------------------===//

#include "runtime/server/ChatServer.h"
#include "support/Strings.h"
#include "tools/llmc/BinaryOptions.h"
#include "tools/llmc/CommandSupport.h"
#include "tools/llmc/RuntimeCommands.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

namespace llmc {

namespace {
struct ServeOptions {
  BinaryOptions binary;
  std::string host = "127.0.0.1";
  int port = 8080;
  /// Conversations whose KV caches are kept between requests.
  int parallel = 4;
  /// Requests that may wait beyond --parallel.
  int queue = 8;
  std::string apiKey;
};
} // namespace

static int runServe(const ServeOptions &serveOptions) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      loadBinaryModel(serveOptions.binary.path, /*threads=*/0);
  if (!model.ok())
    return reportError(model.status());
  if (!(*model)->getTokenizer())
    return reportError(absl::FailedPreconditionError(support::strCat(
        std::string_view((*model)->getBinary().name()),
        " holds no tokenizer, so it cannot serve text: reconvert a "
        "checkpoint that has tokenizer.json")));
  server::ServerOptions options;
  options.host = serveOptions.host;
  options.port = serveOptions.port;
  options.apiKey = serveOptions.apiKey;
  options.slots = serveOptions.parallel;
  options.queue = serveOptions.queue;
  if (serveOptions.parallel < 1 || serveOptions.queue < 0)
    return reportError(absl::InvalidArgumentError(
        "--parallel must be at least 1 and --queue at least 0"));
  options.modelName =
      std::filesystem::path(std::string((*model)->getBinary().name()))
          .stem()
          .string();
  server::ChatServer chatServer(**model, options);
  absl::StatusOr<int> bound = chatServer.bind();
  if (!bound.ok())
    return reportError(bound.status());
  std::cerr << "listening on http://" << options.host << ":" << *bound
            << std::endl;
  chatServer.serve();
  return 0;
}

CommandAction addServeCommand(CLI::App &command) {
  auto options = std::make_shared<ServeOptions>();
  addBinaryOptions(command, options->binary);
  command.add_option("--host", options->host,
                     "The address to listen on (default: loopback)");
  command.add_option("--port", options->port,
                     "The port to listen on; 0 picks a free one");
  command.add_option("--parallel", options->parallel,
                     "Conversations whose KV caches are kept between "
                     "requests");
  command.add_option("--queue", options->queue,
                     "Requests that may wait beyond --parallel for the one "
                     "generation at a time; more are answered 503");
  command.add_option("--api-key", options->apiKey,
                     "Require `Authorization: Bearer <key>` on every route "
                     "but /health");
  return [options] { return runServe(*options); };
}

} // namespace llmc
