//===- BlockBuilder.cpp - one transformer layer in each phase -------------===//
//
// Pre-norm decoder layer of Llama and Qwen:
//   h   = x + o_proj(attention(rope(q), rope(k), v))   q, k, v from norm(x)
//   out = h + mlp(norm(h))
// Gemma normalizes each branch's output too (post_norm(o_proj(...)),
// post_norm(mlp(...))) and may soft-cap the attention scores; Gemma 3's
// sliding layers rotate with their own base.
// The three phases differ only in how many tokens enter and which keys they
// attend over: prefill sees its own L tokens, prefill_kv puts H = S - L
// history slots in front of them, decode puts S cache slots in front of its
// single token. New K/V are outputs, so the runtime writes them into the
// cache in place.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/GraphBuilder.h"
#include "frontends/llm/PieceEmitter.h"
#include "frontends/llm/RopeTables.h"
#include "pieces/ChunkLengths.h"

#include <cmath>

using namespace mlir;
using llmc::plugins::TensorRole;

namespace llmc::llm {

namespace {

/// Emits the ops of one layer into a PieceEmitter.
class BlockEmitter {
public:
  BlockEmitter(PieceEmitter &emit, const plugins::ModelSpec &spec,
               int64_t layer, int64_t length)
      : emit(emit), b(emit.getBuilder()), spec(spec), layer(layer),
        length(length) {}

  Value rmsNorm(TensorRole role, Value input, int64_t width) {
    auto type = cast<RankedTensorType>(input.getType());
    Value weight = emit.weight(role, layer, {width});
    return top::RMSNormOp::create(b, emit.locOf(role, layer), type, input,
                                  weight, b.getF64FloatAttr(spec.rmsNormEps));
  }

  /// `input` [1, L, in] times the Linear weight [out, in] of `role`, plus the
  /// bias of `biasRole` when the model has one.
  Value linear(TensorRole role, std::optional<TensorRole> biasRole,
               Value input, int64_t in, int64_t out) {
    Value weight = emit.weight(role, layer, {out, in});
    Value bias = biasRole && spec.attentionBias
                     ? emit.weight(*biasRole, layer, {out})
                     : emit.none();
    return top::MatMulOp::create(b, emit.locOf(role, layer),
                                 emit.f32Type({1, length, out}), input, weight,
                                 bias, /*left_transpose=*/false,
                                 /*right_transpose=*/true);
  }

  Value splitHeads(Value input, int64_t heads, llvm::StringRef name) {
    return top::ReshapeOp::create(b, emit.loc(prefix() + name),
                                  emit.f32Type({1, length, heads, spec.headDim}),
                                  input);
  }

  Value rope(Value input, Value cos, Value sin, llvm::StringRef name) {
    auto mode = spec.ropePairing == plugins::RopePairing::Interleaved
                    ? top::RopeMode::Interleaved
                    : top::RopeMode::Half;
    return top::RopeOp::create(b, emit.loc(prefix() + name), input.getType(),
                               input, cos, sin, mode);
  }

  Value add(Value lhs, Value rhs, llvm::StringRef name) {
    return top::AddOp::create(b, emit.loc(prefix() + name), lhs.getType(), lhs,
                              rhs);
  }

  std::string prefix() const {
    return "layers." + std::to_string(layer) + ".";
  }

  PieceEmitter &emit;
  OpBuilder &b;
  const plugins::ModelSpec &spec;
  int64_t layer;
  int64_t length;
};

top::Activation activationOf(llvm::StringRef hiddenAct) {
  if (hiddenAct == "gelu")
    return top::Activation::GELU;
  if (hiddenAct == "gelu_tanh")
    return top::Activation::GELUTanh;
  if (hiddenAct == "relu")
    return top::Activation::ReLU;
  return top::Activation::SiLU;
}

} // namespace

Piece GraphBuilder::buildBlock(int64_t layer, Phase phase,
                               int64_t chunkLength) const {
  Piece piece;
  std::string base =
      "block." + std::to_string(layer) + "." + stringifyPhase(phase).str();
  piece.name = phase == Phase::Decode
                   ? base
                   : pieces::getChunkPieceName(base, chunkLength,
                                               options.maxInputLength);
  piece.phase = phase;
  piece.layer = layer;
  PieceEmitter emit(*context, spec, piece);
  OpBuilder &b = emit.getBuilder();

  int64_t length = getQueryLength(phase, chunkLength);
  int64_t history = getHistoryLength(phase, chunkLength);
  int64_t keys = getKeyLength(phase, chunkLength);
  int64_t hiddenSize = spec.hiddenSize;
  int64_t qWidth = spec.numHeads * spec.headDim;
  int64_t kvWidth = spec.numKvHeads * spec.headDim;
  BlockEmitter block(emit, spec, layer, length);

  Value hidden = emit.input(IORole::Hidden, {1, length, hiddenSize});
  Value positions =
      emit.input(IORole::PositionIds, {1, length}, /*isInteger=*/true);
  Value mask = emit.input(IORole::Mask, {1, length, keys});
  Value historyK, historyV;
  if (history > 0) {
    historyK = emit.input(IORole::HistoryK,
                          {1, history, spec.numKvHeads, spec.headDim});
    historyV = emit.input(IORole::HistoryV,
                          {1, history, spec.numKvHeads, spec.headDim});
  }

  // Attention.
  Value x = block.rmsNorm(TensorRole::AttentionNorm, hidden, hiddenSize);
  Value q = block.splitHeads(
      block.linear(TensorRole::QueryWeight, TensorRole::QueryBias, x,
                   hiddenSize, qWidth),
      spec.numHeads, "q_heads");
  Value k = block.splitHeads(
      block.linear(TensorRole::KeyWeight, TensorRole::KeyBias, x, hiddenSize,
                   kvWidth),
      spec.numKvHeads, "k_heads");
  Value v = block.splitHeads(
      block.linear(TensorRole::ValueWeight, TensorRole::ValueBias, x,
                   hiddenSize, kvWidth),
      spec.numKvHeads, "v_heads");
  if (spec.qkNorm) {
    q = block.rmsNorm(TensorRole::QueryNorm, q, spec.headDim);
    k = block.rmsNorm(TensorRole::KeyNorm, k, spec.headDim);
  }
  RankedTensorType angleType = emit.f32Type({1, length, spec.rotaryDim});
  RopeTableNames tables = getRopeTableNames(spec, layer);
  Value cosTable =
      emit.namedWeight(tables.cos, {options.seqLength, spec.rotaryDim});
  Value sinTable =
      emit.namedWeight(tables.sin, {options.seqLength, spec.rotaryDim});
  Value cos = top::GatherOp::create(b, emit.loc(block.prefix() + "rope_cos"),
                                    angleType, cosTable, positions, 0);
  Value sin = top::GatherOp::create(b, emit.loc(block.prefix() + "rope_sin"),
                                    angleType, sinTable, positions, 0);
  q = block.rope(q, cos, sin, "q_rope");
  k = block.rope(k, cos, sin, "k_rope");

  Value keysAll = k, valuesAll = v;
  if (history > 0) {
    RankedTensorType cacheType =
        emit.f32Type({1, keys, spec.numKvHeads, spec.headDim});
    keysAll = top::ConcatOp::create(b, emit.loc(block.prefix() + "k_all"),
                                    cacheType, ValueRange{historyK, k}, 1);
    valuesAll = top::ConcatOp::create(b, emit.loc(block.prefix() + "v_all"),
                                      cacheType, ValueRange{historyV, v}, 1);
  }
  Value attention = top::FAttentionOp::create(
      b, emit.loc(block.prefix() + "attention"),
      emit.f32Type({1, length, qWidth}), q, keysAll, valuesAll, mask,
      llvm::APFloat(spec.getAttentionScale()),
      spec.numHeads, spec.numKvHeads, spec.headDim, /*causal=*/false,
      llvm::APFloat(spec.attentionSoftcap));
  Value projected = block.linear(TensorRole::OutputWeight, std::nullopt,
                                 attention, qWidth, hiddenSize);
  if (spec.hasTensor(TensorRole::PostAttentionNorm))
    projected =
        block.rmsNorm(TensorRole::PostAttentionNorm, projected, hiddenSize);
  Value residual = block.add(hidden, projected, "attention_residual");

  // Feed-forward.
  Value y = block.rmsNorm(TensorRole::MlpNorm, residual, hiddenSize);
  int64_t inner = spec.intermediateSize;
  Value gate = emit.weight(TensorRole::GateWeight, layer, {inner, hiddenSize});
  Value up = emit.weight(TensorRole::UpWeight, layer, {inner, hiddenSize});
  Value down = emit.weight(TensorRole::DownWeight, layer, {hiddenSize, inner});
  Value mlp = top::MLPOp::create(
      b, emit.loc(block.prefix() + "mlp"), residual.getType(), y, gate, up,
      down, activationOf(spec.hiddenAct));
  if (spec.hasTensor(TensorRole::PostMlpNorm))
    mlp = block.rmsNorm(TensorRole::PostMlpNorm, mlp, hiddenSize);
  Value output = block.add(residual, mlp, "mlp_residual");

  emit.output(IORole::Hidden, output);
  emit.output(IORole::NewK, k);
  emit.output(IORole::NewV, v);
  emit.finish();
  return piece;
}

} // namespace llmc::llm
