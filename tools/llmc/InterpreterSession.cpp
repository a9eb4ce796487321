//===- InterpreterSession.cpp - a conversation on the top interpreter -----===//

#include "tools/llmc/InterpreterSession.h"
#include "support/LlvmStatus.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace llmc {

using top::Tensor;

session::ModelDims getModelDims(const plugins::ModelSpec &spec,
                                const llm::BuildOptions &options) {
  session::ModelDims dims;
  dims.numLayers = spec.numLayers;
  dims.numKvHeads = spec.numKvHeads;
  dims.headDim = spec.headDim;
  dims.hiddenSize = spec.hiddenSize;
  dims.vocabSize = spec.vocabSize;
  dims.seqLength = options.seqLength;
  dims.maxInputLength = options.maxInputLength;
  dims.prefillLengths = options.prefillLengths;
  dims.layerWindows = spec.layerWindows;
  return dims;
}

InterpreterSession::InterpreterSession(top::InterpreterOptions options,
                                       const plugins::WeightSource &weights)
    : interpreter(weights, std::move(options)) {
  context.disableMultithreading();
}

llvm::Expected<std::unique_ptr<InterpreterSession>>
InterpreterSession::create(const LoadedModel &model, llm::BuildOptions options,
                           unsigned threads, SessionOverrides overrides) {
  top::InterpreterOptions interpreterOptions;
  interpreterOptions.threads = threads;
  interpreterOptions.observeOperands = std::move(overrides.observeOperands);
  std::unique_ptr<InterpreterSession> session(new InterpreterSession(
      std::move(interpreterOptions),
      overrides.weights ? *overrides.weights : *model.weights));
  llvm::Expected<llm::GraphBuilder> builder =
      llm::GraphBuilder::create(session->context, model.spec, options);
  if (!builder)
    return builder.takeError();
  for (const std::string &name : builder->getPieceNames()) {
    llvm::Expected<llm::Piece> piece = builder->build(name);
    if (!piece)
      return piece.takeError();
    if (overrides.preparePiece)
      if (llvm::Error error = overrides.preparePiece(*piece))
        return std::move(error);
    session->pieces.try_emplace(name, std::move(*piece));
  }
  // GraphBuilder::create checked the options against the model.
  session->conversation.emplace(*session, getModelDims(model.spec, options));
  return std::move(session);
}

absl::StatusOr<std::vector<Tensor>>
InterpreterSession::run(std::string_view piece,
                        absl::Span<const Tensor> inputs) {
  return support::toStatusOr(runPiece(piece, inputs));
}

llvm::Expected<std::vector<Tensor>>
InterpreterSession::runPiece(llvm::StringRef name,
                             llvm::ArrayRef<Tensor> inputs) {
  auto piece = pieces.find(name);
  if (piece == pieces.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no piece named '%s' in this model",
                                   name.str().c_str());
  auto function = llvm::cast<mlir::func::FuncOp>(piece->second.getFunction());
  llvm::Expected<std::vector<Tensor>> outputs =
      interpreter.run(function, inputs);
  if (!outputs)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "piece " + name + ": " +
                                       llvm::toString(outputs.takeError()));
  return outputs;
}

} // namespace llmc
