//===- InterpreterSession.cpp - a conversation on the top interpreter -----===//

#include "tools/llmc/InterpreterSession.h"

#include "frontends/llm/Masks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace llmc {

using llm::Phase;
using top::Tensor;

static llvm::Error sessionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

InterpreterSession::InterpreterSession(const LoadedModel &model,
                                       llm::BuildOptions options,
                                       unsigned threads,
                                       const plugins::WeightSource &weights)
    : model(model), options(options),
      interpreter(weights, top::InterpreterOptions{threads}) {
  context.disableMultithreading();
}

llvm::Expected<std::unique_ptr<InterpreterSession>>
InterpreterSession::create(const LoadedModel &model, llm::BuildOptions options,
                           unsigned threads, SessionOverrides overrides) {
  std::unique_ptr<InterpreterSession> session(new InterpreterSession(
      model, options, threads,
      overrides.weights ? *overrides.weights : *model.weights));
  llvm::Expected<llm::GraphBuilder> builder =
      llm::GraphBuilder::create(session->context, model.spec, options);
  if (!builder)
    return builder.takeError();
  session->builder.emplace(std::move(*builder));
  for (const std::string &name : session->builder->getPieceNames()) {
    llvm::Expected<llm::Piece> piece = session->builder->build(name);
    if (!piece)
      return piece.takeError();
    if (overrides.preparePiece)
      if (llvm::Error error = overrides.preparePiece(*piece))
        return std::move(error);
    session->pieces.try_emplace(name, std::move(*piece));
  }
  const plugins::ModelSpec &spec = model.spec;
  size_t cacheSize = options.seqLength * spec.numKvHeads * spec.headDim;
  session->cacheK.assign(spec.numLayers, std::vector<float>(cacheSize));
  session->cacheV.assign(spec.numLayers, std::vector<float>(cacheSize));
  return std::move(session);
}

llvm::Expected<std::vector<Tensor>>
InterpreterSession::run(llvm::StringRef name, llvm::ArrayRef<Tensor> inputs) {
  auto function = llvm::cast<mlir::func::FuncOp>(pieces[name].getFunction());
  llvm::Expected<std::vector<Tensor>> outputs =
      interpreter.run(function, inputs);
  if (!outputs)
    return sessionError("piece " + name + ": " +
                        llvm::toString(outputs.takeError()));
  return outputs;
}

Tensor InterpreterSession::cacheSlice(const std::vector<float> &cache,
                                      int64_t slots) const {
  int64_t row = model.spec.numKvHeads * model.spec.headDim;
  return Tensor::fromF32(
      {1, slots, model.spec.numKvHeads, model.spec.headDim},
      std::vector<float>(cache.begin(), cache.begin() + slots * row));
}

llvm::Expected<std::vector<float>>
InterpreterSession::runChunk(llvm::ArrayRef<int32_t> tokens, Phase phase) {
  const plugins::ModelSpec &spec = model.spec;
  int64_t length = builder->getQueryLength(phase);
  int64_t historySlots = builder->getHistoryLength(phase);
  int64_t count = static_cast<int64_t>(tokens.size());

  std::vector<int32_t> ids(length, 0), positions(length);
  std::copy(tokens.begin(), tokens.end(), ids.begin());
  for (int64_t i = 0; i < length; ++i)
    positions[i] = static_cast<int32_t>(history + i);
  std::vector<float> mask =
      phase == Phase::Prefill ? llm::buildPrefillMask(length)
      : phase == Phase::PrefillKV
          ? llm::buildPrefillKVMask(length, historySlots, history)
          : llm::buildDecodeMask(historySlots, history);

  llvm::Expected<std::vector<Tensor>> embedded =
      run(phase == Phase::Decode ? "embed.decode" : "embed.prefill",
          {Tensor::fromI32({1, length}, ids)});
  if (!embedded)
    return embedded.takeError();
  Tensor hidden = std::move((*embedded)[0]);
  Tensor positionTensor = Tensor::fromI32({1, length}, positions);
  Tensor maskTensor =
      Tensor::fromF32({1, length, historySlots + length}, std::move(mask));

  int64_t row = spec.numKvHeads * spec.headDim;
  for (int64_t layer = 0; layer < spec.numLayers; ++layer) {
    std::vector<Tensor> inputs = {std::move(hidden), positionTensor,
                                  maskTensor};
    if (historySlots > 0) {
      inputs.push_back(cacheSlice(cacheK[layer], historySlots));
      inputs.push_back(cacheSlice(cacheV[layer], historySlots));
    }
    std::string name = "block." + std::to_string(layer) + "." +
                       llm::stringifyPhase(phase).str();
    llvm::Expected<std::vector<Tensor>> outputs = run(name, inputs);
    if (!outputs)
      return outputs.takeError();
    hidden = std::move((*outputs)[0]);
    llvm::ArrayRef<float> newK = (*outputs)[1].getF32();
    llvm::ArrayRef<float> newV = (*outputs)[2].getF32();
    std::copy(newK.begin(), newK.begin() + count * row,
              cacheK[layer].begin() + history * row);
    std::copy(newV.begin(), newV.begin() + count * row,
              cacheV[layer].begin() + history * row);
  }
  history += count;
  llvm::ArrayRef<float> last =
      hidden.getF32().slice((count - 1) * spec.hiddenSize, spec.hiddenSize);
  return std::vector<float>(last.begin(), last.end());
}

llvm::Expected<std::vector<float>>
InterpreterSession::feed(llvm::ArrayRef<int32_t> tokens) {
  if (tokens.empty())
    return sessionError("nothing to feed: the prompt is empty");
  for (int32_t token : tokens)
    if (token < 0 || token >= model.spec.vocabSize)
      return sessionError("token id " + llvm::Twine(token) +
                          " is outside the vocabulary [0, " +
                          llvm::Twine(model.spec.vocabSize) + ")");
  if (history + static_cast<int64_t>(tokens.size()) > options.seqLength)
    return sessionError(
        "the conversation needs " +
        llvm::Twine(history + static_cast<int64_t>(tokens.size())) +
        " tokens but the KV cache holds " + llvm::Twine(options.seqLength) +
        " (raise --seq-length)");
  int64_t chunk = options.maxInputLength;
  std::vector<float> last;
  while (!tokens.empty()) {
    Phase phase;
    llvm::ArrayRef<int32_t> part;
    // prefill_kv holds S - L history slots; a prompt arriving after more
    // history than that goes through decode one token at a time.
    bool fitsPrefillKV =
        history <= builder->getHistoryLength(Phase::PrefillKV);
    if (history > 0 && (tokens.size() == 1 || !fitsPrefillKV)) {
      phase = Phase::Decode;
      part = tokens.take_front(1);
    } else {
      phase = history == 0 ? Phase::Prefill : Phase::PrefillKV;
      part = tokens.take_front(chunk);
    }
    llvm::Expected<std::vector<float>> hidden = runChunk(part, phase);
    if (!hidden)
      return hidden.takeError();
    last = std::move(*hidden);
    tokens = tokens.drop_front(part.size());
  }
  llvm::Expected<std::vector<Tensor>> logits =
      run("lm_head", {Tensor::fromF32({1, model.spec.hiddenSize}, last)});
  if (!logits)
    return logits.takeError();
  llvm::ArrayRef<float> values = (*logits)[0].getF32();
  return std::vector<float>(values.begin(), values.end());
}

llvm::Expected<int32_t>
InterpreterSession::pickGreedy(llvm::ArrayRef<float> logits) {
  llvm::Expected<std::vector<Tensor>> token = run(
      "greedy_head",
      {Tensor::fromF32({1, model.spec.vocabSize},
                       std::vector<float>(logits.begin(), logits.end()))});
  if (!token)
    return token.takeError();
  return (*token)[0].getI32()[0];
}

} // namespace llmc
