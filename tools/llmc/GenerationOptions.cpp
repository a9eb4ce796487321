//===- GenerationOptions.cpp - options and outputs of generating commands -===//

#include "tools/llmc/GenerationOptions.h"

#include "dialects/top/Interpreter/NpyFile.h"
#include "runtime/session/CacheCapacityError.h"
#include "tools/llmc/Commands.h"

#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::list<std::string> inputIds(
    "input-ids",
    cl::desc("Comma-separated token ids of one turn (repeat for more turns)"),
    cl::sub(getEvalCommand()), cl::sub(getRunCommand()));
static cl::opt<int64_t> maxNewTokens(
    "max-new-tokens",
    cl::desc("Tokens generated per turn (eval, run: 16; chat: the binary's "
             "default)"),
    cl::init(16), cl::sub(getEvalCommand()), cl::sub(getRunCommand()),
    cl::sub(getChatCommand()));
static cl::opt<std::string>
    logitsOut("logits-out",
              cl::desc("Write float32 [generated, vocab] logits as .npy"),
              cl::sub(getEvalCommand()), cl::sub(getRunCommand()));
static cl::opt<std::string>
    idsOut("ids-out", cl::desc("Write prompt and generated ids as JSON"),
           cl::sub(getEvalCommand()), cl::sub(getRunCommand()),
           cl::sub(getChatCommand()));
static cl::opt<unsigned>
    threads("threads", cl::desc("Threads per kernel (default: all cores)"),
            cl::init(0), cl::sub(getEvalCommand()), cl::sub(getRunCommand()),
            cl::sub(getChatCommand()));
static cl::alias threadsShort("j", cl::desc("Alias for --threads"),
                              cl::aliasopt(threads));
static cl::opt<bool> allowSpecial(
    "allow-special",
    cl::desc("Read special tokens typed in -p text or chat turns "
             "(\"<|im_end|>\") as those tokens; by default they are text"),
    cl::sub(getRunCommand()), cl::sub(getChatCommand()));

static llvm::Expected<std::vector<int32_t>> parseIds(llvm::StringRef text) {
  std::vector<int32_t> ids;
  llvm::SmallVector<llvm::StringRef> fields;
  text.split(fields, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef field : fields) {
    int32_t id;
    if (field.trim().getAsInteger(10, id) || id < 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--input-ids: '%s' is not a token id",
                                     field.str().c_str());
    ids.push_back(id);
  }
  if (ids.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--input-ids: a turn has no tokens");
  return ids;
}

llvm::Expected<std::vector<session::Turn>> getInputTurns() {
  std::vector<session::Turn> turns;
  for (const std::string &text : inputIds) {
    llvm::Expected<std::vector<int32_t>> ids = parseIds(text);
    if (!ids)
      return ids.takeError();
    turns.push_back({std::move(*ids), {}});
  }
  return turns;
}

llvm::Expected<int64_t> getMaxNewTokens() {
  if (maxNewTokens < 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--max-new-tokens must be positive");
  return static_cast<int64_t>(maxNewTokens);
}

bool hasMaxNewTokens() { return maxNewTokens.getNumOccurrences() > 0; }

bool getAllowSpecial() { return allowSpecial; }

unsigned getThreadCount() {
  return threads ? threads
                 : llvm::hardware_concurrency().compute_thread_count();
}

llvm::Error explainCapacity(llvm::Error error, llvm::StringRef remedy) {
  return llvm::handleErrors(
      std::move(error), [&](const session::CacheCapacityError &full) {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       full.message() + " (" + remedy + ")");
      });
}

llvm::json::Value turnsToJson(llvm::ArrayRef<session::Turn> turns) {
  llvm::json::Array prompt, generated, turnList;
  for (const session::Turn &turn : turns) {
    llvm::json::Array turnInput, turnGenerated;
    for (int32_t id : turn.inputIds) {
      prompt.push_back(id);
      turnInput.push_back(id);
    }
    for (int32_t id : turn.generated) {
      generated.push_back(id);
      turnGenerated.push_back(id);
    }
    turnList.push_back(
        llvm::json::Object{{"input_ids", std::move(turnInput)},
                           {"generated", std::move(turnGenerated)}});
  }
  return llvm::json::Object{{"prompt", std::move(prompt)},
                            {"generated", std::move(generated)},
                            {"turns", std::move(turnList)}};
}

llvm::Error writeGenerationOutputs(llvm::ArrayRef<session::Turn> turns,
                                   llvm::ArrayRef<float> logits, int64_t vocab,
                                   bool printIds) {
  if (!logitsOut.empty()) {
    int64_t rows = static_cast<int64_t>(logits.size()) / vocab;
    top::Tensor tensor = top::Tensor::fromF32({rows, vocab}, logits.vec());
    if (llvm::Error error =
            writeFileAtomically(logitsOut, [&](llvm::raw_ostream &os) {
              os << top::serializeNpy(tensor);
              return llvm::Error::success();
            }))
      return error;
  }
  llvm::json::Value ids = turnsToJson(turns);
  if (!idsOut.empty())
    return writeFileAtomically(idsOut, [&](llvm::raw_ostream &os) {
      os << ids << "\n";
      return llvm::Error::success();
    });
  if (printIds)
    llvm::outs() << ids << "\n";
  return llvm::Error::success();
}

} // namespace llmc
