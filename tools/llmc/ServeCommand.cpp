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
#include "tools/llmc/BinaryOptions.h"
#include "tools/llmc/Commands.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string>
    host("host", cl::desc("The address to listen on (default: loopback)"),
         cl::init("127.0.0.1"), cl::sub(getServeCommand()));
static cl::opt<int> port("port",
                         cl::desc("The port to listen on; 0 picks a free one"),
                         cl::init(8080), cl::sub(getServeCommand()));
static cl::opt<int> parallel(
    "parallel",
    cl::desc("Conversations whose KV caches are kept between requests"),
    cl::init(4), cl::sub(getServeCommand()));
static cl::opt<int> queue(
    "queue",
    cl::desc("Requests that may wait beyond --parallel for the one "
             "generation at a time; more are answered 503"),
    cl::init(8), cl::sub(getServeCommand()));
static cl::opt<std::string> apiKey(
    "api-key",
    cl::desc("Require `Authorization: Bearer <key>` on every route but "
             "/health"),
    cl::sub(getServeCommand()));

int runServeCommand() {
  llvm::Expected<std::unique_ptr<Model>> model = loadBinaryModel();
  if (!model)
    return reportError(model.takeError());
  if (!(*model)->getTokenizer())
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        (*model)->getBinary().name() +
            " holds no tokenizer, so it cannot serve text: reconvert a "
            "checkpoint that has tokenizer.json"));
  server::ServerOptions options;
  options.host = host;
  options.port = port;
  options.apiKey = apiKey;
  options.slots = parallel;
  options.queue = queue;
  if (parallel < 1 || queue < 0)
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--parallel must be at least 1 and --queue at least 0"));
  options.modelName =
      llvm::sys::path::stem((*model)->getBinary().name()).str();
  server::ChatServer chatServer(**model, options);
  llvm::Expected<int> bound = chatServer.bind();
  if (!bound)
    return reportError(bound.takeError());
  llvm::errs() << "listening on http://" << options.host << ":" << *bound
               << "\n";
  llvm::errs().flush();
  chatServer.serve();
  return 0;
}

} // namespace llmc
