//===- LoweringSupport.cpp - what the top -> tpu patterns share -----------===//

#include "backends/common/lowering/LoweringSupport.h"

#include "backends/common/quant/DerivedWeightName.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace llmc::lowering {

//===----------------------------------------------------------------------===//
// Modes
//===----------------------------------------------------------------------===//

ModeSelector::ModeSelector(LoweringOptions options)
    : options(std::move(options)) {
  for (const QTableRule &rule : this->options.qtable)
    globs.push_back(llvm::cantFail(llvm::GlobPattern::create(rule.pattern)));
}

/// The names a qtable rule may match: the op's location names and the names
/// of the weights it reads.
static SmallVector<StringRef> namesOf(Operation *op) {
  SmallVector<StringRef> names;
  op->getLoc()->walk([&](Location location) {
    if (auto name = dyn_cast<NameLoc>(location))
      names.push_back(name.getName().getValue());
    return WalkResult::advance();
  });
  for (Value operand : op->getOperands())
    if (auto weight = operand.getDefiningOp<top::WeightOp>())
      names.push_back(weight.getName());
  return names;
}

llvm::Expected<std::optional<QuantMode>> getPinnedMode(Operation *op) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    function = op->getParentOfType<FunctionOpInterface>();
  auto name =
      function ? function->getAttrOfType<StringAttr>(kPinnedModeAttr) : nullptr;
  if (!name)
    return std::nullopt;
  llvm::Expected<QuantMode> mode = parseQuantMode(name.getValue());
  if (!mode)
    return mode.takeError();
  return *mode;
}

std::optional<QuantMode> ModeSelector::getChosenMode(Operation *op) const {
  // tpu-lower-top rejects a pinned name that is no mode before lowering.
  llvm::Expected<std::optional<QuantMode>> pinned = getPinnedMode(op);
  if (!pinned)
    llvm::consumeError(pinned.takeError());
  else if (*pinned)
    return **pinned;
  if (globs.empty())
    return std::nullopt;
  SmallVector<StringRef> names = namesOf(op);
  for (size_t index = globs.size(); index-- > 0;)
    if (llvm::any_of(names,
                     [&](StringRef name) { return globs[index].match(name); }))
      return options.qtable[index].mode;
  return std::nullopt;
}

bool isListedQuantizedTable(Operation *op, top::WeightOp table) {
  auto function = op->getParentOfType<FunctionOpInterface>();
  auto tables =
      function ? function->getAttrOfType<ArrayAttr>(kQuantizedTablesAttr)
               : nullptr;
  if (!tables)
    return false;
  return llvm::any_of(tables, [&](Attribute name) {
    auto string = dyn_cast<StringAttr>(name);
    return string && string.getValue() == table.getName();
  });
}

/// Whether `op` reads Linear weights, all of which a checkpoint its author
/// quantized (kKeepsFloatWeightsAttr on its piece) stores in float.
static bool readsWeightsLeftFloat(Operation *op) {
  auto function = op->getParentOfType<FunctionOpInterface>();
  if (!function || !function->hasAttr(kKeepsFloatWeightsAttr))
    return false;
  bool readsLinearWeight = false;
  for (Value operand : op->getOperands()) {
    if (!isLinearWeight(operand))
      continue;
    if (operand.getDefiningOp<top::WeightOp>().getStoredAttr())
      return false;
    readsLinearWeight = true;
  }
  return readsLinearWeight;
}

QuantMode ModeSelector::getMode(Operation *op) const {
  if (std::optional<QuantMode> chosen = getChosenMode(op))
    return *chosen;
  auto function = isa<FunctionOpInterface>(op)
                      ? cast<FunctionOpInterface>(op)
                      : op->getParentOfType<FunctionOpInterface>();
  if (function && function->hasAttr(kFloatByDefaultAttr))
    return getFloatMode(options.mode);
  if (getWeightBits(options.mode) != 0 && readsWeightsLeftFloat(op))
    return getFloatMode(options.mode);
  return options.mode;
}

FloatType getFloatType(MLIRContext *context, quant::FloatType type) {
  switch (type) {
  case quant::FloatType::F32:
    return Float32Type::get(context);
  case quant::FloatType::F16:
    return Float16Type::get(context);
  case quant::FloatType::BF16:
    return BFloat16Type::get(context);
  }
  llvm_unreachable("unknown float type");
}

FloatType ModeSelector::getActivationType(Operation *op) const {
  return getFloatType(op->getContext(),
                      lowering::getActivationType(getMode(op)));
}

static quant::FloatType getQuantFloatType(Type type) {
  if (type.isF16())
    return quant::FloatType::F16;
  if (type.isBF16())
    return quant::FloatType::BF16;
  return quant::FloatType::F32;
}

int64_t getFallbackGroupSize(int64_t k, int64_t requested) {
  for (int64_t group = requested - 1; 2 * group >= requested; --group)
    if (k % group == 0)
      return group;
  return 0;
}

llvm::Expected<std::optional<quant::QuantScheme>>
ModeSelector::getWeightScheme(Operation *op, top::WeightOp weight,
                              bool requantize,
                              std::optional<int64_t> groupSize) const {
  QuantMode mode = getMode(op);
  int64_t bits = getWeightBits(mode);
  if (bits == 0)
    return std::nullopt;
  int64_t k = weight.getType().getDimSize(1);
  quant::QuantScheme scheme;
  if (top::StoredQuantAttr stored = weight.getStoredAttr();
      stored && !requantize) {
    scheme.bits = stored.getBits();
    scheme.groupSize = stored.getGroupSize() == k ? 0 : stored.getGroupSize();
    scheme.asymmetric = stored.getAsymmetric();
    scheme.floatZeroPoints = stored.getFloatZeroPoints();
    scheme.scaleType = getQuantFloatType(stored.getScaleType());
  } else {
    scheme.bits = bits;
    int64_t group = groupSize.value_or(options.groupSize);
    if (group != 0 && k % group != 0) {
      int64_t fallback = getFallbackGroupSize(k, group);
      op->emitWarning("group size ")
          << group << " does not divide K = " << k << " of '"
          << weight.getName() << "'; it is quantized "
          << (fallback ? "in groups of " + std::to_string(fallback)
                       : std::string("per channel"));
      group = fallback;
    }
    scheme.groupSize = group == k ? 0 : group;
    scheme.asymmetric = options.asymmetric;
    scheme.scaleType = lowering::getActivationType(mode);
  }
  if (llvm::Error error = quant::checkScheme(scheme, k))
    return std::move(error);
  return scheme;
}

FailureOr<mlir::quant::UniformQuantizedType>
ModeSelector::getActivationQuantType(Operation *op, StringRef name,
                                     FloatType expressed) const {
  const quant::TensorRange *range =
      options.calibration ? options.calibration->lookup(name) : nullptr;
  if (!range)
    return op->emitOpError("INT8 needs the calibrated range of '")
           << name << "', which the calibration table "
           << (options.calibrationPath.empty()
                   ? std::string()
                   : "'" + options.calibrationPath + "' ")
           << "does not list";
  quant::ActivationQuant params =
      quant::getActivationQuant(*range, options.asymmetric);
  MLIRContext *context = op->getContext();
  unsigned flags = params.isSigned ? mlir::quant::QuantizationFlags::Signed : 0;
  return mlir::quant::UniformQuantizedType::get(
      flags, IntegerType::get(context, 8), expressed, params.scale,
      params.zeroPoint, params.qmin(), params.qmax());
}

//===----------------------------------------------------------------------===//
// Linear layers
//===----------------------------------------------------------------------===//

bool isLinearWeight(Value value) {
  auto weight = value.getDefiningOp<top::WeightOp>();
  return weight && weight.getType().getRank() == 2;
}

bool isQuantizableMatMul(top::MatMulOp op) {
  return op.getRightTranspose() && !op.getLeftTranspose() &&
         isLinearWeight(op.getRight());
}

bool isQuantizableMLP(top::MLPOp op) {
  return isLinearWeight(op.getGate()) && isLinearWeight(op.getUp()) &&
         isLinearWeight(op.getDown());
}

std::string getLocationName(Operation *op) {
  std::string name;
  op->getLoc()->walk([&](Location location) {
    auto named = dyn_cast<NameLoc>(location);
    if (!named)
      return WalkResult::advance();
    name = named.getName().str();
    return WalkResult::interrupt();
  });
  return name;
}

std::string getIntermediateName(top::WeightOp down) {
  StringRef name = down.getName();
  name.consume_back(".weight");
  return name.str();
}

//===----------------------------------------------------------------------===//
// Casts and weights
//===----------------------------------------------------------------------===//

/// True when `candidate` is in `user`'s block before it, so it dominates
/// `user`.
static bool isAvailableAt(Operation *candidate, Operation *user) {
  return candidate->getBlock() == user->getBlock() &&
         candidate->isBeforeInBlock(user);
}

/// A top.Weight reading tensor `name` as `type`, placed right after
/// `anchor` unless one before `user` already does.
static Value getOrCreateWeight(PatternRewriter &rewriter, Operation *user,
                               Operation *anchor, StringRef name,
                               RankedTensorType type) {
  for (Operation &other : *anchor->getBlock()) {
    auto weight = dyn_cast<top::WeightOp>(other);
    if (weight && weight.getName() == name && weight.getType() == type &&
        isAvailableAt(weight, user))
      return weight;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfter(anchor);
  return top::WeightOp::create(rewriter, anchor->getLoc(), type, name);
}

Value castElements(PatternRewriter &rewriter, Operation *user, Value value,
                   Type elementType) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !isa<FloatType>(type.getElementType()) ||
      type.getElementType() == elementType)
    return value;
  auto target = cast<RankedTensorType>(type.clone(elementType));
  if (auto weight = value.getDefiningOp<top::WeightOp>())
    return getOrCreateWeight(rewriter, user, weight, weight.getName(), target);
  for (Operation *other : value.getUsers()) {
    auto cast = dyn_cast<tpu::CastOp>(other);
    if (cast && cast.getType() == target && isAvailableAt(cast, user))
      return cast;
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointAfterValue(value);
  return tpu::CastOp::create(rewriter, value.getLoc(), target, value);
}

Value getNone(OpBuilder &builder, Operation *op) {
  Block *entry = op->getBlock();
  if (auto function = op->getParentOfType<FunctionOpInterface>())
    entry = &function.getFunctionBody().front();
  for (Operation &other : *entry)
    if (auto none = dyn_cast<top::NoneOp>(other))
      return none;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(entry);
  return top::NoneOp::create(builder,
                             NameLoc::get(builder.getStringAttr("none")),
                             builder.getNoneType());
}

QuantizedWeight createQuantizedWeight(PatternRewriter &rewriter,
                                      Operation *user, top::WeightOp source,
                                      const quant::QuantScheme &scheme) {
  MLIRContext *context = rewriter.getContext();
  ArrayRef<int64_t> shape = source.getType().getShape();
  int64_t rows = shape[0], cols = shape[1];
  int64_t groups = scheme.groupSize == 0 ? 1 : cols / scheme.groupSize;
  FloatType expressed = getFloatType(context, scheme.scaleType);
  auto storage = IntegerType::get(context, scheme.bits);
  unsigned flags =
      scheme.asymmetric ? 0 : mlir::quant::QuantizationFlags::Signed;
  auto element = mlir::quant::AnyQuantizedType::get(
      flags, storage, expressed, scheme.minValue(), scheme.maxValue());

  auto nameOf = [&](quant::WeightPart part) {
    return quant::DerivedWeightName{source.getName().str(),
                                    quant::Derivation::quantized(scheme), part}
        .str();
  };
  // Each derived weight goes right after the previous one, so the three
  // stay together after their source.
  QuantizedWeight result;
  result.weight = getOrCreateWeight(
      rewriter, user, source, nameOf(quant::WeightPart::QWeight),
      RankedTensorType::get({rows, cols}, element));
  result.scale =
      getOrCreateWeight(rewriter, user, result.weight.getDefiningOp(),
                        nameOf(quant::WeightPart::Scale),
                        RankedTensorType::get({rows, groups}, expressed));
  if (scheme.asymmetric) {
    Type zpElement = scheme.floatZeroPoints
                         ? Type(Float32Type::get(context))
                         : Type(IntegerType::get(context, scheme.bits,
                                                 IntegerType::Unsigned));
    result.zeroPoint =
        getOrCreateWeight(rewriter, user, result.scale.getDefiningOp(),
                          nameOf(quant::WeightPart::ZeroPoint),
                          RankedTensorType::get({rows, groups}, zpElement));
  } else {
    result.zeroPoint = getNone(rewriter, user);
  }
  return result;
}

} // namespace llmc::lowering
