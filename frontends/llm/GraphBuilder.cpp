//===- GraphBuilder.cpp - options, the list of pieces and the embedding ---===//

#include "frontends/llm/GraphBuilder.h"

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/InternVision.h"
#include "frontends/llm/MiniCPMVision.h"
#include "frontends/llm/PieceEmitter.h"
#include "pieces/ChunkLengths.h"

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
  if (std::optional<std::string> problem = pieces::checkPrefillLengths(
          options.prefillLengths, options.maxInputLength))
    return invalid(*problem);
  if (options.penaltyWindow < 1 || options.sampleTopK < 1)
    return invalid("the penalty window and the sampling top-k must be at "
                   "least 1");
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  return GraphBuilder(context, spec, options);
}

int64_t GraphBuilder::getQueryLength(Phase phase, int64_t length) const {
  return phase == Phase::Decode ? 1 : length;
}

int64_t GraphBuilder::getHistoryLength(Phase phase, int64_t length) const {
  switch (phase) {
  case Phase::None:
  case Phase::Prefill: return 0;
  case Phase::PrefillKV: return options.seqLength - length;
  case Phase::Decode: return options.seqLength;
  }
  llvm_unreachable("unknown phase");
}

int64_t GraphBuilder::getKeyLength(Phase phase, int64_t length) const {
  return getHistoryLength(phase, length) + getQueryLength(phase, length);
}

int64_t GraphBuilder::getSampleTopK() const {
  return std::min(options.sampleTopK, spec.vocabSize);
}

std::vector<std::string> GraphBuilder::getPieceNames() const {
  int64_t l = options.maxInputLength;
  std::vector<std::string> names = {"embed.prefill"};
  for (int64_t length : options.prefillLengths)
    names.push_back(pieces::getChunkPieceName("embed.prefill", length, l));
  names.push_back("embed.decode");
  for (int64_t layer = 0; layer < spec.numLayers; ++layer) {
    std::string block = "block." + std::to_string(layer) + ".";
    for (Phase phase : {Phase::Prefill, Phase::PrefillKV}) {
      std::string base = block + stringifyPhase(phase).str();
      names.push_back(base);
      for (int64_t length : options.prefillLengths)
        names.push_back(pieces::getChunkPieceName(base, length, l));
    }
    names.push_back(block + stringifyPhase(Phase::Decode).str());
  }
  names.push_back("lm_head");
  names.push_back("greedy_head");
  names.push_back("sample_head");
  if (spec.internVision || spec.miniCPMVision)
    names.push_back("vision");
  return names;
}

llvm::Expected<Piece> GraphBuilder::build(llvm::StringRef name) const {
  // A shorter chunk's piece is its L-length piece at that length (only
  // prefill pieces' names take a length).
  int64_t length = options.maxInputLength;
  if (std::optional<int64_t> chunk = pieces::getChunkLengthOfName(name);
      chunk && llvm::is_contained(options.prefillLengths, *chunk)) {
    length = *chunk;
    name = name.rsplit('.').first;
  }
  if (name == "embed.prefill")
    return buildEmbedding(Phase::Prefill, length);
  if (name == "embed.decode")
    return buildEmbedding(Phase::Decode, length);
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
        return buildBlock(layer, phase, length);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "no piece named '%s' in this model",
                                 name.str().c_str());
}

Piece GraphBuilder::buildEmbedding(Phase phase, int64_t chunkLength) const {
  Piece piece;
  piece.name = phase == Phase::Decode
                   ? "embed.decode"
                   : pieces::getChunkPieceName("embed.prefill", chunkLength,
                                               options.maxInputLength);
  piece.phase = phase;
  PieceEmitter emit(*context, spec, piece);
  int64_t length = getQueryLength(phase, chunkLength);
  Value ids = emit.input(IORole::InputIds, {1, length}, /*isInteger=*/true);
  Value table = emit.weight(TensorRole::TokenEmbedding, 0,
                            {spec.vocabSize, spec.hiddenSize});
  OpBuilder &b = emit.getBuilder();
  RankedTensorType hiddenType = emit.f32Type({1, length, spec.hiddenSize});
  Value hidden =
      top::GatherOp::create(b, emit.locOf(TensorRole::TokenEmbedding, 0),
                            hiddenType, table, ids, /*axis=*/0);
  if (spec.embeddingMultiplier != 1.0)
    hidden = top::MulConstOp::create(
        b, emit.loc("embed.scale"), hiddenType, hidden,
        b.getF64FloatAttr(spec.embeddingMultiplier));
  emit.output(IORole::Hidden, hidden);
  emit.finish();
  return piece;
}

} // namespace llmc::llm
