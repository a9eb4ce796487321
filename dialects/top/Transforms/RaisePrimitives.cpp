//===- RaisePrimitives.cpp - the top-raise-primitives pass ----------------===//
//
// Graphs imported op by op (ONNX) spell the transformer's fused operations
// out in primitives. Each pattern here recognises one such subgraph in the
// form Hugging Face's eager code exports it and replaces it by the fused op
// the graph builder emits, so an import reaches the same IR as the HF path:
//
//   RMSNorm      x * (1 / sqrt(mean(x^2, last) + eps)), then * weight
//   SiLU         x * sigmoid(x)
//   MLP          (silu(x W_gate) * (x W_up)) W_down
//   Rope         q * cos + concat(-q[.., D/2:], q[.., :D/2]) * sin
//   FAttention   softmax(q repeat(k)^T * scale + mask) repeat(v), back to
//                [B, L, H * D]
//
// A pattern checks every operand, attribute and shape it relies on; a
// subgraph that differs anywhere (another exponent or axis, a scale that is
// not constant, the inverse rotation) is left as it is.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/IR/TopOps.h"
#include "dialects/top/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace llmc::top {
#define GEN_PASS_DEF_TOPRAISEPRIMITIVESPASS
#include "dialects/top/Transforms/Passes.h.inc"
} // namespace llmc::top

using namespace mlir;
using namespace llmc::top;

namespace {

RankedTensorType typeOf(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

/// The decimal a float32 constant was written from: the shortest one that
/// rounds to it (an exported eps of 1e-6 is stored as 9.99999997e-7).
double getShortestDecimal(float value) {
  char text[32];
  std::to_chars_result written =
      std::to_chars(text, text + sizeof(text), value);
  return std::strtod(std::string(text, written.ptr).c_str(), nullptr);
}

/// The value of a constant holding one element (of any shape).
std::optional<double> getScalar(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense || dense.getNumElements() != 1)
    return std::nullopt;
  return (*dense.value_begin<APFloat>()).convertToDouble();
}

/// True when `axes` names exactly the last axis of a rank-`rank` tensor.
bool isLastAxis(ArrayRef<int64_t> axes, int64_t rank) {
  return axes.size() == 1 && (axes[0] == rank - 1 || axes[0] == -1);
}

/// Calls `match(a, b)` with the two operands of a commutative op in both
/// orders; true when one order matches.
template <typename Fn> bool eitherOrder(Operation *op, Fn match) {
  return match(op->getOperand(0), op->getOperand(1)) ||
         match(op->getOperand(1), op->getOperand(0));
}

Value permute(PatternRewriter &rewriter, Location loc, Value input,
              ArrayRef<int64_t> order) {
  RankedTensorType type = typeOf(input);
  SmallVector<int64_t> shape;
  for (int64_t axis : order)
    shape.push_back(type.getDimSize(axis));
  return PermuteOp::create(rewriter, loc, type.clone(shape), input,
                           rewriter.getDenseI64ArrayAttr(order));
}

constexpr int64_t kSwapMiddle[] = {0, 2, 1, 3};

/// x * (1 / sqrt(mean(x^2) + eps)) -> RMSNorm(x, none, eps).
struct RaiseRMSNorm : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    Value input;
    double eps = 0;
    bool matched = eitherOrder(op, [&](Value x, Value scale) {
      auto div = scale.getDefiningOp<DivOp>();
      if (!div || getScalar(div.getLhs()) != 1.0)
        return false;
      auto sqrt = div.getRhs().getDefiningOp<SqrtOp>();
      auto add = sqrt ? sqrt.getInput().getDefiningOp<AddOp>() : AddOp();
      if (!add)
        return false;
      return eitherOrder(add, [&](Value mean, Value epsilon) {
        std::optional<double> value = getScalar(epsilon);
        auto reduce = mean.getDefiningOp<ReduceMeanOp>();
        auto pow = reduce ? reduce.getInput().getDefiningOp<PowOp>() : PowOp();
        RankedTensorType type = typeOf(x);
        if (!value || *value <= 0 || !pow || pow.getInput() != x ||
            pow.getExponent().convertToDouble() != 2.0 || !type ||
            !reduce.getKeepdims() ||
            !isLastAxis(reduce.getAxes(), type.getRank()))
          return false;
        input = x;
        eps = getShortestDecimal(static_cast<float>(*value));
        return true;
      });
    });
    if (!matched)
      return rewriter.notifyMatchFailure(op, "is not an RMS normalization");
    Value none = NoneOp::create(rewriter, op.getLoc(), rewriter.getNoneType());
    rewriter.replaceOpWithNewOp<RMSNormOp>(op, op.getType(), input, none,
                                           rewriter.getF64FloatAttr(eps));
    return success();
  }
};

/// RMSNorm(x, none) * w, w [D] -> RMSNorm(x, w).
struct FoldRMSNormWeight : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    RMSNormOp norm;
    Value weight;
    bool matched = eitherOrder(op, [&](Value normalized, Value scale) {
      norm = normalized.getDefiningOp<RMSNormOp>();
      RankedTensorType type = typeOf(scale);
      if (!norm || !isa<NoneType>(norm.getWeight().getType()) ||
          !norm->hasOneUse() || !type || type.getRank() != 1 ||
          type.getDimSize(0) != typeOf(norm.getInput()).getShape().back() ||
          op.getType() != norm.getType())
        return false;
      weight = scale;
      return true;
    });
    if (!matched)
      return rewriter.notifyMatchFailure(op, "does not scale an RMSNorm");
    rewriter.replaceOpWithNewOp<RMSNormOp>(op, op.getType(), norm.getInput(),
                                           weight, norm.getEpsAttr());
    return success();
  }
};

/// x * sigmoid(x) -> SiLU(x).
struct RaiseSiLU : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    Value input;
    bool matched = eitherOrder(op, [&](Value x, Value gate) {
      auto sigmoid = gate.getDefiningOp<SigmoidOp>();
      input = x;
      return sigmoid && sigmoid.getInput() == x && x.getType() == op.getType();
    });
    if (!matched)
      return rewriter.notifyMatchFailure(op, "is not x * sigmoid(x)");
    rewriter.replaceOpWithNewOp<SiLUOp>(op, op.getType(), input);
    return success();
  }
};

/// A MatMul by a [K, N] matrix without bias or transposes: x W.
bool isPlainLinear(MatMulOp matmul) {
  return matmul && isa<NoneType>(matmul.getBias().getType()) &&
         !matmul.getLeftTranspose() && !matmul.getRightTranspose() &&
         typeOf(matmul.getRight()) && typeOf(matmul.getRight()).getRank() == 2;
}

/// (silu(x Wg) * (x Wu)) Wd -> MLP(x, Wg^T, Wu^T, Wd^T).
struct RaiseMLP : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    auto product = op.getInput().getDefiningOp<MulOp>();
    if (!isPlainLinear(op) || !product)
      return rewriter.notifyMatchFailure(op, "is not an MLP's down projection");
    MatMulOp gate, up;
    bool matched = eitherOrder(product, [&](Value activated, Value linear) {
      auto silu = activated.getDefiningOp<SiLUOp>();
      gate = silu ? silu.getInput().getDefiningOp<MatMulOp>() : MatMulOp();
      up = linear.getDefiningOp<MatMulOp>();
      return isPlainLinear(gate) && isPlainLinear(up) &&
             gate.getInput() == up.getInput() &&
             gate.getRight().getType() == up.getRight().getType();
    });
    if (!matched)
      return rewriter.notifyMatchFailure(op, "is not a gated MLP");
    Location loc = op.getLoc();
    // top.MLP takes weights in Linear layout, [out, in].
    Value gateWeight = permute(rewriter, loc, gate.getRight(), {1, 0});
    Value upWeight = permute(rewriter, loc, up.getRight(), {1, 0});
    Value downWeight = permute(rewriter, loc, op.getRight(), {1, 0});
    rewriter.replaceOpWithNewOp<MLPOp>(op, op.getType(), gate.getInput(),
                                       gateWeight, upWeight, downWeight);
    return success();
  }
};

/// `value` = Reshape(table rows [B, L, D]) to [B, 1, L, D] (heads-first
/// layout) or [B, L, 1, D] (tokens-first): the rows and whether the heads
/// come first.
std::optional<std::pair<Value, bool>> getRotaryRows(Value value) {
  auto reshape = value.getDefiningOp<ReshapeOp>();
  RankedTensorType type = typeOf(value);
  if (!reshape || !type || type.getRank() != 4)
    return std::nullopt;
  RankedTensorType rows = typeOf(reshape.getInput());
  if (!rows || rows.getRank() != 3 || rows.getDimSize(2) != type.getDimSize(3))
    return std::nullopt;
  if (type.getDimSize(1) == 1 && type.getDimSize(2) == rows.getDimSize(1))
    return std::make_pair(reshape.getInput(), true);
  if (type.getDimSize(2) == 1 && type.getDimSize(1) == rows.getDimSize(1))
    return std::make_pair(reshape.getInput(), false);
  return std::nullopt;
}

/// The half [begin, end) of the last axis that `value` slices from `input`.
bool isLastAxisSlice(Value value, Value input, int64_t begin, int64_t end) {
  auto slice = value.getDefiningOp<SliceOp>();
  if (!slice || slice.getInput() != input)
    return false;
  int64_t rank = typeOf(input).getRank();
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t dim = typeOf(input).getDimSize(axis);
    bool last = axis == rank - 1;
    if (slice.getStarts()[axis] != (last ? begin : 0) ||
        slice.getEnds()[axis] != (last ? end : dim) ||
        slice.getSteps()[axis] != 1)
      return false;
  }
  return true;
}

/// True when `rotated` is concat(-x[.., D/2:], x[.., :D/2]), Hugging Face's
/// rotate_half of `x`.
bool isRotateHalf(Value rotated, Value x) {
  auto concat = rotated.getDefiningOp<ConcatOp>();
  RankedTensorType type = typeOf(x);
  if (!concat || !type || concat.getInputs().size() != 2 ||
      concat.getAxis() != static_cast<uint64_t>(type.getRank() - 1))
    return false;
  int64_t dim = type.getShape().back();
  auto negated = concat.getInputs()[0].getDefiningOp<MulConstOp>();
  return dim % 2 == 0 && negated &&
         negated.getConstVal().convertToDouble() == -1.0 &&
         isLastAxisSlice(negated.getInput(), x, dim / 2, dim) &&
         isLastAxisSlice(concat.getInputs()[1], x, 0, dim / 2);
}

/// x * cos + rotate_half(x) * sin -> Rope(x, cos, sin) in half mode.
struct RaiseRope : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    Value input, cos, sin;
    bool headsFirst = false;
    bool matched = eitherOrder(op, [&](Value cosTerm, Value sinTerm) {
      auto cosMul = cosTerm.getDefiningOp<MulOp>();
      auto sinMul = sinTerm.getDefiningOp<MulOp>();
      if (!cosMul || !sinMul)
        return false;
      return eitherOrder(cosMul, [&](Value x, Value cosRows) {
        std::optional<std::pair<Value, bool>> cosTable = getRotaryRows(cosRows);
        RankedTensorType type = typeOf(x);
        if (!cosTable || !type || type.getRank() != 4 || type != op.getType())
          return false;
        return eitherOrder(sinMul, [&](Value rotated, Value sinRows) {
          std::optional<std::pair<Value, bool>> sinTable =
              getRotaryRows(sinRows);
          if (!sinTable || sinTable->second != cosTable->second ||
              !isRotateHalf(rotated, x))
            return false;
          input = x;
          cos = cosTable->first;
          sin = sinTable->first;
          headsFirst = cosTable->second;
          return true;
        });
      });
    });
    if (!matched)
      return rewriter.notifyMatchFailure(op, "is not a rotary embedding");
    // top.Rope rotates [B, L, H, D]; a heads-first tensor goes there and back.
    Location loc = op.getLoc();
    Value tokensFirst =
        headsFirst ? permute(rewriter, loc, input, kSwapMiddle) : input;
    Value rotated =
        RopeOp::create(rewriter, loc, tokensFirst.getType(), tokensFirst, cos,
                       sin, RopeModeAttr::get(getContext(), RopeMode::Half));
    rewriter.replaceOp(op, headsFirst
                               ? permute(rewriter, loc, rotated, kSwapMiddle)
                               : rotated);
    return success();
  }
};

/// The KV-head tensor [B, KV, K, D] that repeat_kv expanded into `value`
/// [B, KV * rep, K, D] (Reshape(Expand(Reshape)) to [B, KV, rep, K, D]), or
/// `value` itself.
Value getUnrepeated(Value value) {
  auto outer = value.getDefiningOp<ReshapeOp>();
  auto expand = outer ? outer.getInput().getDefiningOp<ExpandOp>() : ExpandOp();
  auto inner =
      expand ? expand.getInput().getDefiningOp<ReshapeOp>() : ReshapeOp();
  if (!inner)
    return value;
  RankedTensorType source = typeOf(inner.getInput());
  ArrayRef<int64_t> expanded = typeOf(expand.getOutput()).getShape();
  ArrayRef<int64_t> unsqueezed = typeOf(inner.getOutput()).getShape();
  ArrayRef<int64_t> result = typeOf(value).getShape();
  if (!source || source.getRank() != 4 || expanded.size() != 5 ||
      unsqueezed[2] != 1 || unsqueezed[0] != source.getDimSize(0) ||
      unsqueezed[1] != source.getDimSize(1) ||
      unsqueezed[3] != source.getDimSize(2) ||
      unsqueezed[4] != source.getDimSize(3) || expanded[1] != unsqueezed[1] ||
      result[1] != expanded[1] * expanded[2] || result[2] != expanded[3])
    return value;
  return inner.getInput();
}

/// The eager attention of a [B, H, L, D] query, back in [B, L, H * D], ->
/// FAttention.
struct RaiseFAttention : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto back = op.getInput().getDefiningOp<PermuteOp>();
    auto output = back ? back.getInput().getDefiningOp<MatMulOp>() : MatMulOp();
    if (!output || back.getOrder() != ArrayRef<int64_t>(kSwapMiddle) ||
        !isa<NoneType>(output.getBias().getType()) ||
        output.getLeftTranspose() || output.getRightTranspose())
      return rewriter.notifyMatchFailure(op, "does not end an attention");
    auto softmax = output.getInput().getDefiningOp<SoftmaxOp>();
    if (!softmax || typeOf(softmax.getOutput()).getRank() != 4 ||
        (static_cast<int64_t>(softmax.getAxis()) != 3 &&
         static_cast<int64_t>(softmax.getAxis()) != -1))
      return rewriter.notifyMatchFailure(op, "has no softmax over the keys");
    // Scores: [+ mask] of [scaled] q k^T.
    Value scores = softmax.getInput(), mask;
    if (auto add = scores.getDefiningOp<AddOp>()) {
      bool masked = eitherOrder(add, [&](Value scaled, Value additive) {
        RankedTensorType type = typeOf(additive);
        if (!type || type.getRank() != 4 || type.getDimSize(1) != 1 ||
            scaled.getDefiningOp<ConstantOp>())
          return false;
        scores = scaled;
        mask = additive;
        return true;
      });
      if (!masked)
        return rewriter.notifyMatchFailure(op, "adds no [B, 1, L, K] mask");
    }
    double scale = 1.0;
    if (auto div = scores.getDefiningOp<DivOp>()) {
      std::optional<double> divisor = getScalar(div.getRhs());
      if (!divisor || *divisor <= 0)
        return rewriter.notifyMatchFailure(op, "divides by no constant");
      scale = 1.0 / *divisor;
      scores = div.getLhs();
    } else if (auto mul = scores.getDefiningOp<MulOp>()) {
      bool scaled = eitherOrder(mul, [&](Value product, Value factor) {
        std::optional<double> value = getScalar(factor);
        if (!value || *value <= 0)
          return false;
        scale = *value;
        scores = product;
        return true;
      });
      if (!scaled)
        return rewriter.notifyMatchFailure(op, "scales by no constant");
    }
    auto product = scores.getDefiningOp<MatMulOp>();
    auto transposed =
        product ? product.getRight().getDefiningOp<PermuteOp>() : PermuteOp();
    const int64_t swapLast[] = {0, 1, 3, 2};
    if (!transposed || transposed.getOrder() != ArrayRef<int64_t>(swapLast) ||
        !isa<NoneType>(product.getBias().getType()) ||
        product.getLeftTranspose() || product.getRightTranspose())
      return rewriter.notifyMatchFailure(op, "computes no q k^T");
    Value query = product.getInput();
    Value keys = getUnrepeated(transposed.getInput());
    Value values = getUnrepeated(output.getRight());
    RankedTensorType q = typeOf(query), k = typeOf(keys), v = typeOf(values);
    if (!q || !k || !v || q.getRank() != 4 || k != v ||
        k.getDimSize(0) != q.getDimSize(0) ||
        k.getDimSize(3) != q.getDimSize(3) ||
        q.getDimSize(1) % k.getDimSize(1) != 0)
      return rewriter.notifyMatchFailure(op, "has inconsistent q, k and v");
    int64_t batch = q.getDimSize(0), heads = q.getDimSize(1),
            length = q.getDimSize(2), headDim = q.getDimSize(3),
            kvHeads = k.getDimSize(1), keyLength = k.getDimSize(2);
    RankedTensorType result = typeOf(op.getOutput());
    if (result.getRank() != 3 || result.getDimSize(2) != heads * headDim)
      return rewriter.notifyMatchFailure(op, "does not merge the heads");
    Location loc = op.getLoc();
    if (mask) {
      RankedTensorType type = typeOf(mask);
      if (type.getDimSize(2) != length || type.getDimSize(3) != keyLength)
        return rewriter.notifyMatchFailure(op, "has a mask of another shape");
      mask = ReshapeOp::create(
          rewriter, loc, type.clone({type.getDimSize(0), length, keyLength}),
          mask);
    } else {
      mask = NoneOp::create(rewriter, loc, rewriter.getNoneType());
    }
    (void)batch;
    // 1 / sqrt(head_dim) as the export stored it in float32, or exactly.
    if (std::abs(scale * std::sqrt(double(headDim)) - 1.0) < 1e-6)
      scale = 1.0 / std::sqrt(double(headDim));
    Value tokensFirstQuery = permute(rewriter, loc, query, kSwapMiddle);
    Value tokensFirstKeys = permute(rewriter, loc, keys, kSwapMiddle);
    Value tokensFirstValues = permute(rewriter, loc, values, kSwapMiddle);
    rewriter.replaceOpWithNewOp<FAttentionOp>(
        op, result, tokensFirstQuery, tokensFirstKeys, tokensFirstValues, mask,
        rewriter.getF64FloatAttr(scale), rewriter.getI64IntegerAttr(heads),
        rewriter.getI64IntegerAttr(kvHeads),
        rewriter.getI64IntegerAttr(headDim), rewriter.getBoolAttr(false),
        rewriter.getF64FloatAttr(0.0));
    return success();
  }
};

/// Concat(Permute(a, p), Permute(b, p), axis) ->
/// Permute(Concat(a, b, p[axis]), p): an exported decode step joins the KV
/// history and the new keys heads-first; joined tokens-first, the permutes
/// around the attention cancel.
struct ConcatBeforePermute : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> inputs;
    ArrayRef<int64_t> order;
    for (Value input : op.getInputs()) {
      auto permuted = input.getDefiningOp<PermuteOp>();
      if (!permuted || (!order.empty() && permuted.getOrder() != order))
        return rewriter.notifyMatchFailure(op, "joins no equal permutes");
      order = permuted.getOrder();
      inputs.push_back(permuted.getInput());
    }
    int64_t axis = order[op.getAxis()];
    RankedTensorType type = typeOf(inputs.front());
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = 0;
    for (Value input : inputs)
      shape[axis] += typeOf(input).getDimSize(axis);
    Value joined = ConcatOp::create(rewriter, op.getLoc(), type.clone(shape),
                                    inputs, rewriter.getI64IntegerAttr(axis));
    rewriter.replaceOp(op, permute(rewriter, op.getLoc(), joined, order));
    return success();
  }
};

struct TopRaisePrimitivesPass
    : llmc::top::impl::TopRaisePrimitivesPassBase<TopRaisePrimitivesPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<RaiseRMSNorm, FoldRMSNormWeight, RaiseSiLU, RaiseMLP,
                 RaiseRope, RaiseFAttention, ConcatBeforePermute>(context);
    PermuteOp::getCanonicalizationPatterns(patterns, context);
    ReshapeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
