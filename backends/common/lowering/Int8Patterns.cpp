//===- Int8Patterns.cpp - Linear layers and MLPs on 8-bit activations -----===//
//
// INT8 quantizes a Linear layer's input per tensor with its calibrated scale
// and its weight per output channel, symmetric, so the chip multiplies 8-bit
// integers into int32 and dequantizes once per output. The gated MLP stays
// one op; its intermediate is quantized inside it with its own calibrated
// type.
//
//===----------------------------------------------------------------------===//

#include "backends/common/lowering/LoweringSupport.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace llmc::lowering {
namespace {

using SelectorRef = std::shared_ptr<const ModeSelector>;

/// Per-channel symmetric 8-bit weights with f32 scales.
quant::QuantScheme getInt8WeightScheme() {
  quant::QuantScheme scheme;
  scheme.bits = 8;
  scheme.groupSize = 0;
  scheme.asymmetric = false;
  scheme.scaleType = quant::FloatType::F32;
  return scheme;
}

/// `value` (float, the activation type) quantized to `type` by a tpu.Cast
/// right after its definition, shared by every user wanting that type.
Value quantize(PatternRewriter &rewriter, Operation *user, Value value,
               mlir::quant::UniformQuantizedType type) {
  auto target = cast<RankedTensorType>(
      cast<RankedTensorType>(value.getType()).clone(type));
  for (Operation *other : value.getUsers()) {
    auto cast = dyn_cast<tpu::CastOp>(other);
    if (cast && cast.getType() == target &&
        cast->getBlock() == user->getBlock() && cast->isBeforeInBlock(user))
      return cast;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfterValue(value);
  return tpu::CastOp::create(rewriter, value.getLoc(), target, value);
}

/// The input of `op` in the activation type, quantized with the calibrated
/// range of tensor `name`.
FailureOr<Value> quantizeInput(PatternRewriter &rewriter,
                               const ModeSelector &selector, Operation *op,
                               Value input, StringRef name) {
  FloatType act = selector.getActivationType(op);
  FailureOr<mlir::quant::UniformQuantizedType> type =
      selector.getActivationQuantType(op, name, act);
  if (failed(type))
    return failure();
  return quantize(rewriter, op, castElements(rewriter, op, input, act), *type);
}

class MatMulToA8MatMul : public OpConversionPattern<top::MatMulOp> {
public:
  MatMulToA8MatMul(MLIRContext *context, SelectorRef selector)
      : OpConversionPattern(context, /*benefit=*/2),
        selector(std::move(selector)) {}

  LogicalResult
  matchAndRewrite(top::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isQuantizableMatMul(op) ||
        !quantizesActivations(selector->getMode(op)))
      return rewriter.notifyMatchFailure(op, "is not an INT8 Linear");
    FailureOr<Value> input =
        quantizeInput(rewriter, *selector, op, adaptor.getInput(),
                      getLocationName(op));
    if (failed(input))
      return failure();
    auto weight = op.getRight().getDefiningOp<top::WeightOp>();
    QuantizedWeight quantized =
        createQuantizedWeight(rewriter, op, weight, getInt8WeightScheme());
    FloatType act = selector->getActivationType(op);
    Value operands[] = {*input, quantized.weight, quantized.scale,
                        castElements(rewriter, op, adaptor.getBias(), act)};
    rewriter.replaceOp(op, tpu::A8MatMulOp::create(
                               rewriter, op.getLoc(),
                               TypeRange{op.getType().clone(act)}, operands));
    return success();
  }

private:
  SelectorRef selector;
};

class MLPToA8MLP : public OpConversionPattern<top::MLPOp> {
public:
  MLPToA8MLP(MLIRContext *context, SelectorRef selector)
      : OpConversionPattern(context, /*benefit=*/2),
        selector(std::move(selector)) {}

  LogicalResult
  matchAndRewrite(top::MLPOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isQuantizableMLP(op) ||
        !quantizesActivations(selector->getMode(op)))
      return rewriter.notifyMatchFailure(op, "is not an INT8 MLP");
    FloatType act = selector->getActivationType(op);
    auto down = op.getDown().getDefiningOp<top::WeightOp>();
    FailureOr<mlir::quant::UniformQuantizedType> intermediate =
        selector->getActivationQuantType(op, getIntermediateName(down), act);
    if (failed(intermediate))
      return failure();
    FailureOr<Value> input =
        quantizeInput(rewriter, *selector, op, adaptor.getInput(),
                      getLocationName(op));
    if (failed(input))
      return failure();
    SmallVector<QuantizedWeight, 3> quantized;
    for (Value weight : {op.getGate(), op.getUp(), op.getDown()})
      quantized.push_back(createQuantizedWeight(
          rewriter, op, weight.getDefiningOp<top::WeightOp>(),
          getInt8WeightScheme()));
    SmallVector<Value> operands = {*input};
    for (const QuantizedWeight &weight : quantized)
      operands.push_back(weight.weight);
    for (const QuantizedWeight &weight : quantized)
      operands.push_back(weight.scale);
    NamedAttribute attrs[] = {
        rewriter.getNamedAttr("intermediate", TypeAttr::get(*intermediate)),
        rewriter.getNamedAttr("activation", op.getActivationAttr())};
    rewriter.replaceOp(op, tpu::A8MLPOp::create(
                               rewriter, op.getLoc(),
                               TypeRange{op.getType().clone(act)}, operands,
                               attrs));
    return success();
  }

private:
  SelectorRef selector;
};

} // namespace

void populateInt8Patterns(RewritePatternSet &patterns, SelectorRef selector) {
  patterns.add<MatMulToA8MatMul, MLPToA8MLP>(patterns.getContext(), selector);
}

} // namespace llmc::lowering
