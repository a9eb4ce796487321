//===- TopToTpuPatterns.cpp - patterns lowering top ops to tpu ops --------===//

#include "backends/common/lowering/LoweringSupport.h"
#include "backends/common/lowering/TopToTpu.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace llmc::lowering {
namespace {

using SelectorRef = std::shared_ptr<const ModeSelector>;

//===----------------------------------------------------------------------===//
// Float lowering: the same op in the mode's element type
//===----------------------------------------------------------------------===//

/// How an op's element types follow from its mode.
enum class Precision {
  /// Float operands are cast to the activation type; float results have it.
  Compute,
  /// Operands stay as they are; float results have the first operand's
  /// element type.
  Keep,
};

/// Replaces `op` by a `TpuOp` with `loweredOperands` (op's operands as
/// lowered) and op's attributes, in `elementType` (Compute) or in its
/// input's (Keep, `elementType` null).
template <typename TpuOp>
void replaceWithTpuOp(ConversionPatternRewriter &rewriter, Operation *op,
                      ValueRange loweredOperands, Type elementType) {
  SmallVector<Value> operands;
  for (Value operand : loweredOperands)
    operands.push_back(elementType
                           ? castElements(rewriter, op, operand, elementType)
                           : operand);
  Type resultElement = elementType;
  if (!resultElement)
    resultElement =
        cast<ShapedType>(operands.front().getType()).getElementType();
  SmallVector<Type> results;
  for (Type type : op->getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    results.push_back(tensor && isa<FloatType>(tensor.getElementType())
                          ? tensor.clone(resultElement)
                          : type);
  }
  auto lowered =
      TpuOp::create(rewriter, op->getLoc(), results, operands, op->getAttrs());
  rewriter.replaceOp(op, lowered->getResults());
}

template <typename TopOp, typename TpuOp,
          Precision precision = Precision::Compute>
class FloatLowering : public OpConversionPattern<TopOp> {
public:
  using OpAdaptor = typename TopOp::Adaptor;

  FloatLowering(MLIRContext *context, SelectorRef selector)
      : OpConversionPattern<TopOp>(context, /*benefit=*/1),
        selector(std::move(selector)) {}

  LogicalResult
  matchAndRewrite(TopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (leftToWeightOnly(op))
      return rewriter.notifyMatchFailure(op, "is weight-only quantized");
    Type elementType = precision == Precision::Compute
                           ? selector->getActivationType(op)
                           : Type();
    replaceWithTpuOp<TpuOp>(rewriter, op, adaptor.getOperands(), elementType);
    return success();
  }

private:
  /// A Linear layer or MLP in a weight-only or INT8 mode belongs to those
  /// patterns, even when they fail (a group size that does not divide K, a
  /// missing calibration entry): it must not silently stay float.
  bool leftToWeightOnly(TopOp op) const {
    QuantMode mode = selector->getMode(op);
    if (getWeightBits(mode) == 0 && !quantizesActivations(mode))
      return false;
    if constexpr (std::is_same_v<TopOp, top::MatMulOp>)
      return isQuantizableMatMul(op);
    if constexpr (std::is_same_v<TopOp, top::MLPOp>)
      return isQuantizableMLP(op);
    return false;
  }

  SelectorRef selector;
};

/// top.Constant in its mode's element type: float values are rounded to
/// the activation type (to nearest, ties to even); integers stay.
class ConstantLowering : public OpConversionPattern<top::ConstantOp> {
public:
  ConstantLowering(MLIRContext *context, SelectorRef selector)
      : OpConversionPattern(context, /*benefit=*/1),
        selector(std::move(selector)) {}

  LogicalResult
  matchAndRewrite(top::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "is not dense");
    FloatType act = selector->getActivationType(op);
    if (isa<FloatType>(value.getElementType()) && value.getElementType() != act)
      value = value.mapValues(act, [&](const APFloat &element) {
        APFloat rounded = element;
        bool losesInfo = false;
        rounded.convert(act.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                        &losesInfo);
        return rounded.bitcastToAPInt();
      });
    rewriter.replaceOp(op, tpu::ConstantOp::create(rewriter, op.getLoc(),
                                                   value.getType(), value));
    return success();
  }

private:
  SelectorRef selector;
};

//===----------------------------------------------------------------------===//
// Weight-only quantization
//===----------------------------------------------------------------------===//

/// The weight-only scheme of `weight` read by `op`; reports on `op` why it
/// cannot be quantized.
FailureOr<quant::QuantScheme>
getScheme(const ModeSelector &selector, Operation *op, top::WeightOp weight,
          bool requantize = false,
          std::optional<int64_t> groupSize = std::nullopt) {
  llvm::Expected<std::optional<quant::QuantScheme>> scheme =
      selector.getWeightScheme(op, weight, requantize, groupSize);
  if (!scheme) {
    op->emitOpError("cannot quantize '")
        << weight.getName() << "' in "
        << stringifyQuantMode(selector.getMode(op)) << ": "
        << llvm::toString(scheme.takeError());
    return failure();
  }
  if (!*scheme)
    return failure();
  return **scheme;
}

/// The q_group_size of one op over `schemes`: the last grouped scheme's
/// size, 0 when every scheme is per channel.
int64_t getSharedGroupSize(ArrayRef<quant::QuantScheme> schemes) {
  int64_t shared = 0;
  for (const quant::QuantScheme &scheme : schemes)
    if (scheme.groupSize != 0)
      shared = scheme.groupSize;
  return shared;
}

/// Whether getSharedGroupSize serves every scheme of `schemes` for weights
/// of `ks` input channels: a grouped scheme's size, or per channel where a
/// weight's group spans its K.
bool shareOneGroupSize(ArrayRef<quant::QuantScheme> schemes,
                       ArrayRef<int64_t> ks) {
  int64_t shared = getSharedGroupSize(schemes);
  for (auto [scheme, k] : llvm::zip(schemes, ks))
    if (scheme.groupSize != shared &&
        !(scheme.groupSize == 0 && (shared == 0 || shared == k)))
      return false;
  return true;
}

NamedAttribute weightOnlyAttr(PatternRewriter &rewriter, StringRef name,
                              int64_t value) {
  return rewriter.getNamedAttr(name, rewriter.getI64IntegerAttr(value));
}

class MatMulToA16MatMul : public OpConversionPattern<top::MatMulOp> {
public:
  MatMulToA16MatMul(MLIRContext *context, SelectorRef selector)
      : OpConversionPattern(context, /*benefit=*/2),
        selector(std::move(selector)) {}

  LogicalResult
  matchAndRewrite(top::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isQuantizableMatMul(op) ||
        getWeightBits(selector->getMode(op)) == 0)
      return rewriter.notifyMatchFailure(op, "is not a weight-only Linear");
    auto weight = op.getRight().getDefiningOp<top::WeightOp>();
    FailureOr<quant::QuantScheme> scheme = getScheme(*selector, op, weight);
    if (failed(scheme))
      return failure();
    FloatType act = selector->getActivationType(op);
    QuantizedWeight quantized =
        createQuantizedWeight(rewriter, op, weight, *scheme);
    Value operands[] = {castElements(rewriter, op, adaptor.getInput(), act),
                        quantized.weight, quantized.scale, quantized.zeroPoint,
                        castElements(rewriter, op, adaptor.getBias(), act)};
    NamedAttribute attrs[] = {
        weightOnlyAttr(rewriter, "weight_bits", scheme->bits),
        weightOnlyAttr(rewriter, "q_group_size", scheme->groupSize)};
    auto lowered = tpu::A16MatMulOp::create(rewriter, op.getLoc(),
                                            TypeRange{op.getType().clone(act)},
                                            operands, attrs);
    rewriter.replaceOp(op, lowered);
    return success();
  }

private:
  SelectorRef selector;
};

/// A gather from a table its piece lists in kQuantizedTablesAttr (a tied
/// embedding): in a weight-only mode it reads the table in the form the LM
/// head's tpu.A16MatMul reads it (the same scheme, the same derived weight
/// names), so the binary stores the table once. A float table of a
/// checkpoint whose author left its floats float stays float, as the LM
/// head does: ModeSelector gives both the float mode.
class GatherToA16Gather : public OpConversionPattern<top::GatherOp> {
public:
  GatherToA16Gather(MLIRContext *context, SelectorRef selector)
      : OpConversionPattern(context, /*benefit=*/2),
        selector(std::move(selector)) {}

  LogicalResult
  matchAndRewrite(top::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto table = op.getTable().getDefiningOp<top::WeightOp>();
    if (!table ||
        getWeightBits(selector->getMode(op)) == 0 ||
        !isListedQuantizedTable(op, table))
      return rewriter.notifyMatchFailure(op, "is not a quantized table");
    int64_t rank = table.getType().getRank();
    int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
    if (rank != 2 || axis != 0)
      return rewriter.notifyMatchFailure(op, "is not a row gather");
    FailureOr<quant::QuantScheme> scheme = getScheme(*selector, op, table);
    if (failed(scheme))
      return failure();
    FloatType act = selector->getActivationType(op);
    QuantizedWeight quantized =
        createQuantizedWeight(rewriter, op, table, *scheme);
    Value operands[] = {quantized.weight, quantized.scale,
                        quantized.zeroPoint, adaptor.getIndices()};
    NamedAttribute attrs[] = {
        weightOnlyAttr(rewriter, "weight_bits", scheme->bits),
        weightOnlyAttr(rewriter, "q_group_size", scheme->groupSize)};
    auto lowered = tpu::A16GatherOp::create(
        rewriter, op.getLoc(), TypeRange{op.getType().clone(act)}, operands,
        attrs);
    rewriter.replaceOp(op, lowered);
    return success();
  }

private:
  SelectorRef selector;
};

/// True when the three weights of an MLP are all computed from floats or all
/// stored with the same bits, grouping and zero points, which one A16MLP
/// needs.
bool haveOneStoredLayout(MutableArrayRef<top::WeightOp> weights) {
  top::StoredQuantAttr first = weights.front().getStoredAttr();
  return llvm::all_of(weights, [&](top::WeightOp weight) {
    top::StoredQuantAttr stored = weight.getStoredAttr();
    if (!first || !stored)
      return !first && !stored;
    return stored.getBits() == first.getBits() &&
           stored.getGroupSize() == first.getGroupSize() &&
           stored.getAsymmetric() == first.getAsymmetric() &&
           stored.getFloatZeroPoints() == first.getFloatZeroPoints();
  });
}

class MLPToA16MLP : public OpConversionPattern<top::MLPOp> {
public:
  MLPToA16MLP(MLIRContext *context, SelectorRef selector)
      : OpConversionPattern(context, /*benefit=*/2),
        selector(std::move(selector)) {}

  LogicalResult
  matchAndRewrite(top::MLPOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isQuantizableMLP(op) ||
        getWeightBits(selector->getMode(op)) == 0)
      return rewriter.notifyMatchFailure(op, "is not a weight-only MLP");
    top::WeightOp weights[] = {op.getGate().getDefiningOp<top::WeightOp>(),
                               op.getUp().getDefiningOp<top::WeightOp>(),
                               op.getDown().getDefiningOp<top::WeightOp>()};
    bool requantize = !haveOneStoredLayout(weights);
    if (requantize && llvm::any_of(weights, [](top::WeightOp weight) {
          return weight.getStoredAttr();
        }))
      op->emitWarning("the checkpoint stores the MLP's weights in different "
                      "quantized layouts; they are requantized in ")
          << stringifyQuantMode(selector->getMode(op));
    SmallVector<quant::QuantScheme, 3> schemes;
    SmallVector<int64_t, 3> ks;
    for (top::WeightOp weight : weights) {
      FailureOr<quant::QuantScheme> scheme =
          getScheme(*selector, op, weight, requantize);
      if (failed(scheme))
        return failure();
      schemes.push_back(*scheme);
      ks.push_back(weight.getType().getDimSize(1));
    }
    // One group size for the three weights: a group spanning a weight's K
    // is per-channel for that weight, as q_group_size = K means. Weights
    // whose fallbacks differ are all quantized per channel.
    if (!shareOneGroupSize(schemes, ks)) {
      op->emitWarning("the MLP weights '")
          << weights[0].getName() << "', '" << weights[1].getName()
          << "' and '" << weights[2].getName()
          << "' take no one group size; they are quantized per channel";
      for (auto [scheme, weight] : llvm::zip(schemes, weights)) {
        FailureOr<quant::QuantScheme> perChannel =
            getScheme(*selector, op, weight, requantize, /*groupSize=*/0);
        if (failed(perChannel))
          return failure();
        scheme = *perChannel;
      }
    }
    SmallVector<QuantizedWeight, 3> quantized;
    for (auto [scheme, weight] : llvm::zip(schemes, weights))
      quantized.push_back(createQuantizedWeight(rewriter, op, weight, scheme));
    int64_t bits = schemes.back().bits;
    int64_t groupSize = getSharedGroupSize(schemes);
    FloatType act = selector->getActivationType(op);
    SmallVector<Value> operands = {
        castElements(rewriter, op, adaptor.getInput(), act)};
    for (const QuantizedWeight &weight : quantized)
      operands.push_back(weight.weight);
    for (const QuantizedWeight &weight : quantized)
      operands.push_back(weight.scale);
    for (const QuantizedWeight &weight : quantized)
      operands.push_back(weight.zeroPoint);
    NamedAttribute attrs[] = {
        weightOnlyAttr(rewriter, "weight_bits", bits),
        weightOnlyAttr(rewriter, "q_group_size", groupSize),
        rewriter.getNamedAttr("activation", op.getActivationAttr())};
    auto lowered = tpu::A16MLPOp::create(rewriter, op.getLoc(),
                                         TypeRange{op.getType().clone(act)},
                                         operands, attrs);
    rewriter.replaceOp(op, lowered);
    return success();
  }

private:
  SelectorRef selector;
};

} // namespace

void populateTopToTpuPatterns(RewritePatternSet &patterns,
                              const LoweringOptions &options) {
  auto selector = std::make_shared<const ModeSelector>(options);
  MLIRContext *context = patterns.getContext();
  constexpr Precision keep = Precision::Keep;
  patterns.add<
      // Linear algebra and normalization.
      FloatLowering<top::MatMulOp, tpu::MatMulOp>,
      FloatLowering<top::RMSNormOp, tpu::RMSNormOp>,
      FloatLowering<top::LayerNormOp, tpu::LayerNormOp>,
      FloatLowering<top::GatherOp, tpu::GatherOp>,
      // Fused blocks.
      FloatLowering<top::RopeOp, tpu::RopeOp>,
      FloatLowering<top::FAttentionOp, tpu::FAttentionOp>,
      FloatLowering<top::MLPOp, tpu::MLPOp>,
      // Elementwise.
      FloatLowering<top::AddOp, tpu::AddOp>,
      FloatLowering<top::MulOp, tpu::MulOp>,
      FloatLowering<top::DivOp, tpu::DivOp>,
      FloatLowering<top::MulConstOp, tpu::MulConstOp>,
      FloatLowering<top::SiLUOp, tpu::SiLUOp>,
      FloatLowering<top::GELUOp, tpu::GELUOp>,
      FloatLowering<top::TanhOp, tpu::TanhOp>,
      FloatLowering<top::SoftmaxOp, tpu::SoftmaxOp>,
      FloatLowering<top::CumSumOp, tpu::CumSumOp>,
      FloatLowering<top::ConcatOp, tpu::ConcatOp>,
      FloatLowering<top::ScatterElementsOp, tpu::ScatterElementsOp>,
      // Selection: float operands in the mode's type, masks and ids as they
      // are.
      FloatLowering<top::CompareOp, tpu::CompareOp>,
      FloatLowering<top::WhereOp, tpu::WhereOp>, ConstantLowering,
      // Data movement and selection keep their input's element type.
      FloatLowering<top::ReshapeOp, tpu::ReshapeOp, keep>,
      FloatLowering<top::PermuteOp, tpu::PermuteOp, keep>,
      FloatLowering<top::SliceOp, tpu::SliceOp, keep>,
      FloatLowering<top::ArgOp, tpu::ArgOp, keep>,
      FloatLowering<top::TopKOp, tpu::TopKOp, keep>,
      // Weight-only quantization.
      MatMulToA16MatMul, MLPToA16MLP, GatherToA16Gather>(context, selector);
  populateInt8Patterns(patterns, selector);
}

} // namespace llmc::lowering
