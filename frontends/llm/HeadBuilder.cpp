//===- HeadBuilder.cpp - the LM head and the token-choosing heads ---------===//
//
// The pieces after the last layer. lm_head turns the last token's hidden
// state into logits; greedy_head picks the most likely token; sample_head
// prepares sampling as TPU-MLIR's penalty sample head does: it returns the K
// most likely tokens and their probabilities after the repetition penalty,
// temperature and top-p, and the runtime draws one of them.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/IR/TopOps.h"
#include "frontends/llm/GraphBuilder.h"
#include "frontends/llm/PieceEmitter.h"

#include <limits>
#include <numeric>

using namespace mlir;
using llmc::plugins::TensorRole;

namespace llmc::llm {

Piece GraphBuilder::buildLmHead() const {
  Piece piece;
  piece.name = "lm_head";
  PieceEmitter emit(*context, spec, piece);
  OpBuilder &b = emit.getBuilder();
  Value hidden = emit.input(IORole::Hidden, {1, spec.hiddenSize});
  Value normWeight = emit.weight(TensorRole::FinalNorm, 0, {spec.hiddenSize});
  Value normed =
      top::RMSNormOp::create(b, emit.locOf(TensorRole::FinalNorm, 0),
                             emit.f32Type({1, spec.hiddenSize}), hidden,
                             normWeight, b.getF64FloatAttr(spec.rmsNormEps));
  TensorRole headRole =
      spec.tieWordEmbeddings ? TensorRole::TokenEmbedding : TensorRole::LmHead;
  Value head = emit.weight(headRole, 0, {spec.vocabSize, spec.hiddenSize});
  Value logits = top::MatMulOp::create(
      b, emit.locOf(headRole, 0), emit.f32Type({1, spec.vocabSize}), normed,
      head, emit.none(), /*left_transpose=*/false, /*right_transpose=*/true);
  if (double cap = spec.finalLogitSoftcap; cap > 0) {
    // cap * tanh(logits / cap), as Gemma 2 and llama.cpp compute it.
    Location loc = emit.loc("lm_head.softcap");
    Type type = logits.getType();
    Value scaled = top::MulConstOp::create(b, loc, type, logits,
                                           b.getF64FloatAttr(1.0 / cap));
    Value bent = top::TanhOp::create(b, loc, type, scaled);
    logits = top::MulConstOp::create(b, loc, type, bent,
                                     b.getF64FloatAttr(cap));
  }
  emit.output(IORole::Logits, logits);
  emit.finish();
  return piece;
}

Piece GraphBuilder::buildGreedyHead() const {
  Piece piece;
  piece.name = "greedy_head";
  PieceEmitter emit(*context, spec, piece);
  Value logits = emit.input(IORole::Logits, {1, spec.vocabSize});
  Value token = top::ArgOp::create(emit.getBuilder(), emit.loc("greedy_head"),
                                   emit.i32Type({1, 1}), logits, /*axis=*/1,
                                   /*keepdims=*/true, top::ArgMode::ArgMax);
  emit.output(IORole::Token, token);
  emit.finish();
  return piece;
}

//===----------------------------------------------------------------------===//
// sample_head
//===----------------------------------------------------------------------===//

namespace {

/// Emits the ops of sample_head for a vocabulary of V, a penalty window of W
/// ids and K candidates.
class SampleHeadEmitter {
public:
  SampleHeadEmitter(PieceEmitter &emit, int64_t vocab, int64_t window,
                    int64_t k)
      : emit(emit), b(emit.getBuilder()), vocab(vocab), window(window), k(k) {}

  /// Hugging Face's repetition penalty on `logits` [1, V]: the logit of each
  /// distinct id of `ids` [1, W] is divided by `penalty` when positive and
  /// multiplied by it otherwise. Negative ids are empty window slots.
  Value penalize(Value logits, Value ids, Value penalty);

  /// Probabilities of the candidates `scaled` [1, K] (temperature-scaled
  /// logits, best first) after top-k, which keeps the first `topK` (i32
  /// [1, 1]) of them, and top-p, which keeps the smallest prefix of those
  /// whose probability reaches `topP`; the kept share their probability,
  /// renormalized, the rest get 0. The best candidate always stays.
  Value filter(Value scaled, Value topK, Value topP);

private:
  Value constant(Location loc, RankedTensorType type, Attribute element) {
    return top::ConstantOp::create(
        b, loc, cast<ElementsAttr>(DenseElementsAttr::get(type, element)));
  }
  RankedTensorType maskType(int64_t width) {
    return RankedTensorType::get({1, width}, b.getI1Type());
  }

  PieceEmitter &emit;
  OpBuilder &b;
  int64_t vocab, window, k;
};

} // namespace

Value SampleHeadEmitter::penalize(Value logits, Value ids, Value penalty) {
  Location loc = emit.loc("sample_head.penalty");
  // A gather or scatter cannot skip an element, so empty slots are sent to a
  // spare column V appended to the logits and sliced off at the end. Its
  // value does not matter: the first logit is a cheap one to copy.
  Value spare = top::SliceOp::create(
      b, loc, emit.f32Type({1, 1}), logits, b.getDenseI64ArrayAttr({0, 0}),
      b.getDenseI64ArrayAttr({1, 1}), b.getDenseI64ArrayAttr({1, 1}));
  Value widened = top::ConcatOp::create(b, loc, emit.f32Type({1, vocab + 1}),
                                        ValueRange{logits, spare}, 1);
  Value empty = top::CompareOp::create(
      b, loc, maskType(window), ids,
      constant(loc, emit.i32Type({1, 1}), b.getI32IntegerAttr(0)),
      top::CompareMode::Lt);
  Value slots = top::WhereOp::create(
      b, loc, emit.i32Type({1, window}), empty,
      constant(loc, emit.i32Type({1, 1}), b.getI32IntegerAttr(vocab)), ids);

  // Each copy of a repeated id reads the same original logit and writes the
  // same penalized value, so the penalty applies once however often the id
  // appears in the window; which copy ScatterElements keeps cannot matter.
  Value picked = top::GatherOp::create(b, loc, emit.f32Type({1, 1, window}),
                                       widened, slots, /*axis=*/1);
  Value seen =
      top::ReshapeOp::create(b, loc, emit.f32Type({1, window}), picked);
  Value positive = top::CompareOp::create(
      b, loc, maskType(window), seen,
      constant(loc, emit.f32Type({1, 1}), b.getF32FloatAttr(0.0f)),
      top::CompareMode::Gt);
  Value shrunk =
      top::DivOp::create(b, loc, emit.f32Type({1, window}), seen, penalty);
  Value grown =
      top::MulOp::create(b, loc, emit.f32Type({1, window}), seen, penalty);
  Value penalized = top::WhereOp::create(b, loc, emit.f32Type({1, window}),
                                         positive, shrunk, grown);
  Value scattered =
      top::ScatterElementsOp::create(b, loc, emit.f32Type({1, vocab + 1}),
                                     widened, slots, penalized, /*axis=*/1);
  return top::SliceOp::create(b, loc, emit.f32Type({1, vocab}), scattered,
                              b.getDenseI64ArrayAttr({0, 0}),
                              b.getDenseI64ArrayAttr({1, vocab}),
                              b.getDenseI64ArrayAttr({1, 1}));
}

Value SampleHeadEmitter::filter(Value scaled, Value topK, Value topP) {
  Location loc = emit.loc("sample_head.top_p");
  RankedTensorType type = emit.f32Type({1, k});
  Value minusInfinity =
      constant(loc, emit.f32Type({1, 1}),
               b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  // The best candidate stays whatever top_k and top_p are (0, negative or
  // NaN), so the softmaxes below never divide by zero.
  llvm::SmallVector<bool> firstOnly(k, false);
  firstOnly[0] = true;
  Value first =
      top::ConstantOp::create(b, loc,
                              cast<ElementsAttr>(DenseElementsAttr::get(
                                  maskType(k), llvm::ArrayRef(firstOnly))));
  // Top-k at run time: the candidates ranked below top_k get -inf, whose
  // probability is exactly 0.
  llvm::SmallVector<int32_t> rankValues(k);
  std::iota(rankValues.begin(), rankValues.end(), 0);
  Value ranks = top::ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(DenseElementsAttr::get(emit.i32Type({1, k}),
                                                llvm::ArrayRef(rankValues))));
  Value ranked = top::CompareOp::create(b, loc, maskType(k), ranks, topK,
                                        top::CompareMode::Lt);
  Value inTopK =
      top::WhereOp::create(b, loc, maskType(k), first, first, ranked);
  Value kept =
      top::WhereOp::create(b, loc, type, inTopK, scaled, minusInfinity);
  Value probs = top::SoftmaxOp::create(b, loc, type, kept, /*axis=*/1);
  // A candidate stays when the candidates ranked above it hold less than
  // top_p: exactly the smallest prefix that reaches top_p.
  Value before = top::CumSumOp::create(b, loc, type, probs, /*axis=*/1,
                                       /*exclusive=*/true, /*reverse=*/false);
  Value below = top::CompareOp::create(b, loc, maskType(k), before, topP,
                                       top::CompareMode::Lt);
  Value keep = top::WhereOp::create(b, loc, maskType(k), first, first, below);
  // Renormalizing is a softmax over the kept logits: exp(-inf) is exactly 0.
  Value filtered =
      top::WhereOp::create(b, loc, type, keep, kept, minusInfinity);
  return top::SoftmaxOp::create(b, loc, type, filtered, /*axis=*/1);
}

Piece GraphBuilder::buildSampleHead() const {
  Piece piece;
  piece.name = "sample_head";
  PieceEmitter emit(*context, spec, piece);
  OpBuilder &b = emit.getBuilder();
  int64_t k = getSampleTopK();
  SampleHeadEmitter sample(emit, spec.vocabSize, options.penaltyWindow, k);

  Value logits = emit.input(IORole::Logits, {1, spec.vocabSize});
  Value ids = emit.input(IORole::RecentIds, {1, options.penaltyWindow},
                         /*isInteger=*/true);
  Value penalty = emit.input(IORole::Penalty, {1, 1});
  Value temperature = emit.input(IORole::Temperature, {1, 1});
  Value topP = emit.input(IORole::TopP, {1, 1});
  Value topKLimit = emit.input(IORole::TopK, {1, 1}, /*isInteger=*/true);

  Value penalized = sample.penalize(logits, ids, penalty);
  // Top-k before the temperature: dividing by a positive temperature keeps
  // the order, and scaling K values is cheaper than scaling V.
  auto topK = top::TopKOp::create(b, emit.loc("sample_head.top_k"),
                                  emit.f32Type({1, k}), emit.i32Type({1, k}),
                                  penalized, k, /*axis=*/1, /*largest=*/true);
  Value scaled =
      top::DivOp::create(b, emit.loc("sample_head.temperature"),
                         emit.f32Type({1, k}), topK.getValues(), temperature);
  Value probs = sample.filter(scaled, topKLimit, topP);

  emit.output(IORole::Probs, probs);
  emit.output(IORole::TokenIds, topK.getIndices());
  emit.finish();
  // Sampling must not lose precision: every mode computes it in f32.
  emit.pinMode("F32");
  return piece;
}

} // namespace llmc::llm
