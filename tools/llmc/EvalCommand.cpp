//===- EvalCommand.cpp - llmc eval: greedy generation on the interpreter --===//
//
//   llmc eval -m <checkpoint> --input-ids 1,300,301 [--input-ids ...]
//             --max-new-tokens 16 --logits-out F.npy --ids-out F.json
//
// Each --input-ids is one turn: the first goes through prefill, each later
// one through prefill_kv after the whole history (earlier prompts and every
// generated token). Exactly --max-new-tokens greedy tokens are generated per
// turn, so runs compare token for token with a reference.
//
// --quantize=<mode> (with --q-group-size, --asymmetric, --qtable) runs the
// same pieces on the weights a binary of that mode holds: quantized weights
// dequantized, float weights rounded to f16 or bf16 (computing in f32). It
// measures what quantizing the weights costs, without a chip.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/LoweredWeights.h"
#include "backends/common/quant/DerivedWeightSource.h"
#include "dialects/top/Interpreter/NpyFile.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/InterpreterSession.h"
#include "tools/llmc/PieceOptions.h"
#include "tools/llmc/QuantOptions.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::list<std::string> inputIds(
    "input-ids",
    cl::desc("Comma-separated token ids of one turn (repeat for more turns)"),
    cl::OneOrMore, cl::sub(getEvalCommand()));
static cl::opt<int64_t> maxNewTokens("max-new-tokens",
                                     cl::desc("Tokens generated per turn"),
                                     cl::init(16), cl::sub(getEvalCommand()));
static cl::opt<std::string>
    logitsOut("logits-out",
              cl::desc("Write float32 [generated, vocab] logits as .npy"),
              cl::sub(getEvalCommand()));
static cl::opt<std::string>
    idsOut("ids-out", cl::desc("Write prompt and generated ids as JSON"),
           cl::sub(getEvalCommand()));
static cl::opt<unsigned> threads(
    "threads", cl::desc("Threads per kernel (default: all cores)"),
    cl::init(0), cl::sub(getEvalCommand()));
static cl::alias threadsShort("j", cl::desc("Alias for --threads"),
                              cl::aliasopt(threads));
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

namespace {
struct Turn {
  std::vector<int32_t> inputIds;
  std::vector<int32_t> generated;
};
} // namespace

static llvm::json::Value toJson(llvm::ArrayRef<Turn> turns) {
  llvm::json::Array prompt, generated, turnList;
  for (const Turn &turn : turns) {
    llvm::json::Array turnInput, turnGenerated;
    for (int32_t id : turn.inputIds) {
      prompt.push_back(id);
      turnInput.push_back(id);
    }
    for (int32_t id : turn.generated) {
      generated.push_back(id);
      turnGenerated.push_back(id);
    }
    turnList.push_back(llvm::json::Object{
        {"input_ids", std::move(turnInput)},
        {"generated", std::move(turnGenerated)}});
  }
  return llvm::json::Object{{"prompt", std::move(prompt)},
                            {"generated", std::move(generated)},
                            {"turns", std::move(turnList)}};
}

int runEvalCommand(const plugins::Registry &registry) {
  if (maxNewTokens < 1)
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(), "--max-new-tokens must be positive"));
  std::vector<Turn> turns;
  for (const std::string &text : inputIds) {
    llvm::Expected<std::vector<int32_t>> ids = parseIds(text);
    if (!ids)
      return reportError(ids.takeError());
    turns.push_back({std::move(*ids), {}});
  }

  llm::BuildOptions options = getBuildOptions();
  llvm::Expected<LoadedModel> model =
      loadModel(registry, getModelPath(), options);
  if (!model)
    return reportError(model.takeError());
  unsigned threadCount =
      threads ? threads : llvm::hardware_concurrency().compute_thread_count();
  SessionOverrides overrides;
  std::unique_ptr<quant::DerivedWeightSource> derivedWeights;
  if (isQuantizeSet()) {
    llvm::Expected<lowering::LoweringOptions> lowering = getLoweringOptions();
    if (!lowering)
      return reportError(lowering.takeError());
    derivedWeights =
        std::make_unique<quant::DerivedWeightSource>(*model->weights);
    overrides.weights = derivedWeights.get();
    overrides.preparePiece = [options = *lowering](
                                 llm::Piece &piece) -> llvm::Error {
      // Pieces without weights (the token heads) compute the same in every
      // mode.
      if (piece.weights.empty())
        return llvm::Error::success();
      return lowering::retargetToLoweredWeights(*piece.module, options);
    };
  }
  llvm::Expected<std::unique_ptr<InterpreterSession>> session =
      InterpreterSession::create(*model, options, threadCount,
                                 std::move(overrides));
  if (!session)
    return reportError(session.takeError());

  int64_t vocab = model->spec.vocabSize;
  std::vector<float> allLogits;
  std::vector<int32_t> pending;
  for (Turn &turn : turns) {
    std::vector<int32_t> tokens = pending;
    tokens.insert(tokens.end(), turn.inputIds.begin(), turn.inputIds.end());
    llvm::Expected<std::vector<float>> logits = (*session)->feed(tokens);
    for (int64_t step = 0;; ++step) {
      if (!logits)
        return reportError(logits.takeError());
      llvm::Expected<int32_t> token = (*session)->pickGreedy(*logits);
      if (!token)
        return reportError(token.takeError());
      allLogits.insert(allLogits.end(), logits->begin(), logits->end());
      turn.generated.push_back(*token);
      if (step + 1 == maxNewTokens) {
        pending = {*token};
        break;
      }
      logits = (*session)->feed({*token});
    }
  }

  if (!logitsOut.empty()) {
    int64_t rows = static_cast<int64_t>(allLogits.size()) / vocab;
    top::Tensor tensor = top::Tensor::fromF32({rows, vocab}, allLogits);
    if (llvm::Error error = writeFileAtomically(
            logitsOut, [&](llvm::raw_ostream &os) {
              os << top::serializeNpy(tensor);
              return llvm::Error::success();
            }))
      return reportError(std::move(error));
  }
  llvm::json::Value ids = toJson(turns);
  if (!idsOut.empty()) {
    if (llvm::Error error =
            writeFileAtomically(idsOut, [&](llvm::raw_ostream &os) {
              os << ids << "\n";
              return llvm::Error::success();
            }))
      return reportError(std::move(error));
  } else {
    llvm::outs() << ids << "\n";
  }
  return 0;
}

} // namespace llmc
