//===- GraphBuilder.cpp - options, the list of pieces and the embedding ---===//

#include "frontends/llm/GraphBuilder.h"

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/InternVision.h"
#include "frontends/llm/MiniCPMVision.h"
#include "frontends/llm/PieceEmitter.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
using llmc::plugins::TensorRole;

namespace llmc::llm {

llvm::Expected<GraphBuilder> GraphBuilder::create(MLIRContext &context,
                                                  const plugins::ModelSpec &spec,
                                                  BuildOptions options) {
  if (llvm::Error error = spec.validate())
    return std::move(error);
  auto invalid = [&](const llvm::Twine &problem) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   spec.source + ": " + problem);
  };
  if (options.maxInputLength < 1)
    return invalid("--max-input-length must be at least 1");
  if (options.seqLength <= options.maxInputLength)
    return invalid("--seq-length (" + llvm::Twine(options.seqLength) +
                   ") must exceed --max-input-length (" +
                   llvm::Twine(options.maxInputLength) +
                   ") so that prefill_kv has room for history");
  if (options.penaltyWindow < 1 || options.sampleTopK < 1)
    return invalid("the penalty window and the sampling top-k must be at "
                   "least 1");
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  return GraphBuilder(context, spec, options);
}

int64_t GraphBuilder::getQueryLength(Phase phase) const {
  return phase == Phase::Decode ? 1 : options.maxInputLength;
}

int64_t GraphBuilder::getHistoryLength(Phase phase) const {
  switch (phase) {
  case Phase::None:
  case Phase::Prefill: return 0;
  case Phase::PrefillKV: return options.seqLength - options.maxInputLength;
  case Phase::Decode: return options.seqLength;
  }
  llvm_unreachable("unknown phase");
}

int64_t GraphBuilder::getKeyLength(Phase phase) const {
  return getHistoryLength(phase) + getQueryLength(phase);
}

int64_t GraphBuilder::getSampleTopK() const {
  return std::min(options.sampleTopK, spec.vocabSize);
}

std::vector<std::string> GraphBuilder::getPieceNames() const {
  std::vector<std::string> names = {"embed.prefill", "embed.decode"};
  for (int64_t layer = 0; layer < spec.numLayers; ++layer)
    for (Phase phase : {Phase::Prefill, Phase::PrefillKV, Phase::Decode})
      names.push_back("block." + std::to_string(layer) + "." +
                      stringifyPhase(phase).str());
  names.push_back("lm_head");
  names.push_back("greedy_head");
  names.push_back("sample_head");
  if (spec.internVision || spec.miniCPMVision)
    names.push_back("vision");
  return names;
}

llvm::Expected<Piece> GraphBuilder::build(llvm::StringRef name) const {
  if (name == "embed.prefill")
    return buildEmbedding(Phase::Prefill);
  if (name == "embed.decode")
    return buildEmbedding(Phase::Decode);
  if (name == "lm_head")
    return buildLmHead();
  if (name == "greedy_head")
    return buildGreedyHead();
  if (name == "sample_head")
    return buildSampleHead();
  if (name == "vision" && spec.internVision)
    return buildInternVisionPiece(*context, spec);
  if (name == "vision" && spec.miniCPMVision)
    return buildMiniCPMVisionPiece(*context, spec);
  llvm::SmallVector<llvm::StringRef, 3> parts;
  name.split(parts, '.');
  int64_t layer;
  if (parts.size() == 3 && parts[0] == "block" &&
      !parts[1].getAsInteger(10, layer) && layer >= 0 &&
      layer < spec.numLayers) {
    for (Phase phase : {Phase::Prefill, Phase::PrefillKV, Phase::Decode})
      if (parts[2] == stringifyPhase(phase))
        return buildBlock(layer, phase);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "no piece named '%s' in this model",
                                 name.str().c_str());
}

Piece GraphBuilder::buildEmbedding(Phase phase) const {
  Piece piece;
  piece.name = phase == Phase::Decode ? "embed.decode" : "embed.prefill";
  piece.phase = phase;
  PieceEmitter emit(*context, spec, piece);
  int64_t length = getQueryLength(phase);
  Value ids = emit.input(IORole::InputIds, {1, length}, /*isInteger=*/true);
  Value table = emit.weight(TensorRole::TokenEmbedding, 0,
                            {spec.vocabSize, spec.hiddenSize});
  Value hidden = top::GatherOp::create(
      emit.getBuilder(), emit.locOf(TensorRole::TokenEmbedding, 0),
      emit.f32Type({1, length, spec.hiddenSize}), table, ids, /*axis=*/0);
  emit.output(IORole::Hidden, hidden);
  emit.finish();
  return piece;
}

} // namespace llmc::llm
