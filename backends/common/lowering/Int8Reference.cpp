//===- Int8Reference.cpp - top pieces computing as INT8 does --------------===//

#include "backends/common/lowering/Int8Reference.h"

#include "backends/common/lowering/LoweredWeights.h"
#include "backends/common/lowering/LoweringSupport.h"
#include "dialects/top/IR/TopOps.h"

using namespace mlir;

namespace llmc::lowering {

static llvm::Error referenceError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static NameLoc nameLoc(MLIRContext *context, StringRef name) {
  return NameLoc::get(StringAttr::get(context, name));
}

/// `input` x `weight`^T at `loc`.
static Value createLinear(OpBuilder &builder, Location loc, Value input,
                          Value weight, Value none) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(inputType.getShape());
  shape.back() = cast<RankedTensorType>(weight.getType()).getDimSize(0);
  return top::MatMulOp::create(builder, loc, inputType.clone(shape), input,
                               weight, none, /*left_transpose=*/false,
                               /*right_transpose=*/true);
}

/// `value` through the top op of `activation`.
static FailureOr<Value> activate(OpBuilder &builder, Location loc, Value value,
                                 top::Activation activation) {
  switch (activation) {
  case top::Activation::SiLU:
    return Value(top::SiLUOp::create(builder, loc, value.getType(), value));
  case top::Activation::GELU:
  case top::Activation::GELUTanh:
    return Value(top::GELUOp::create(
        builder, loc, value.getType(), value,
        activation == top::Activation::GELU ? top::GELUApproximation::None
                                            : top::GELUApproximation::Tanh));
  case top::Activation::ReLU:
    return failure();
  }
  return failure();
}

/// Replaces `mlp` by its Linear layers, the down projection located at
/// `downName`; appends them to `linears`.
static llvm::Error decompose(top::MLPOp mlp, StringRef downName,
                             SmallVectorImpl<top::MatMulOp> &linears) {
  OpBuilder builder(mlp);
  MLIRContext *context = mlp.getContext();
  std::string name = getLocationName(mlp);
  Location loc = nameLoc(context, name);
  Value none = getNone(builder, mlp);
  Value gate = createLinear(builder, loc, mlp.getInput(), mlp.getGate(), none);
  Value up = createLinear(builder, loc, mlp.getInput(), mlp.getUp(), none);
  FailureOr<Value> activated =
      activate(builder, loc, gate, mlp.getActivation());
  if (failed(activated))
    return referenceError("'" + name + "': top has no op for the MLP's " +
                          stringifyActivation(mlp.getActivation()) +
                          " activation to compute it unfused");
  Value hidden =
      top::MulOp::create(builder, loc, gate.getType(), *activated, up);
  // Named for its calibration entry first, and for the MLP it replaces.
  Value output = createLinear(
      builder,
      FusedLoc::get(context, {nameLoc(context, downName), loc}), hidden,
      mlp.getDown(), none);
  for (Value linear : {gate, up, output})
    linears.push_back(linear.getDefiningOp<top::MatMulOp>());
  mlp.replaceAllUsesWith(output);
  mlp.erase();
  return llvm::Error::success();
}

/// The quantizable MLPs of `module` (those `filter` accepts) and the names
/// of their intermediates, taken from the weights' current names.
template <typename Filter>
static SmallVector<std::pair<top::MLPOp, std::string>>
collectMLPs(ModuleOp module, Filter filter) {
  SmallVector<std::pair<top::MLPOp, std::string>> mlps;
  module.walk([&](top::MLPOp mlp) {
    if (isQuantizableMLP(mlp) && filter(mlp.getOperation()))
      mlps.emplace_back(mlp, getIntermediateName(
                                 mlp.getDown().getDefiningOp<top::WeightOp>()));
  });
  return mlps;
}

llvm::Error decomposeMLPs(ModuleOp module) {
  SmallVector<top::MatMulOp> linears;
  for (auto &[mlp, downName] :
       collectMLPs(module, [](Operation *) { return true; }))
    if (llvm::Error error = decompose(mlp, downName, linears))
      return error;
  return llvm::Error::success();
}

std::string getQuantizedInputName(Operation *op) {
  auto matmul = dyn_cast<top::MatMulOp>(op);
  return matmul && isQuantizableMatMul(matmul) ? getLocationName(op) : "";
}

/// `matmul`'s input rounded to the 8-bit grid of `params`.
static void insertFakeQuant(top::MatMulOp matmul,
                            const quant::ActivationQuant &params) {
  OpBuilder builder(matmul);
  Value input = matmul.getInput();
  Value rounded = top::FakeQuantOp::create(
      builder, matmul.getLoc(), input.getType(), input,
      builder.getF64FloatAttr(params.scale),
      builder.getI64IntegerAttr(params.zeroPoint),
      builder.getI64IntegerAttr(params.qmin()),
      builder.getI64IntegerAttr(params.qmax()));
  matmul.getInputMutable().assign(rounded);
}

llvm::Error buildInt8Reference(ModuleOp module,
                               const LoweringOptions &options) {
  ModeSelector selector(options);
  auto isInt8 = [&](Operation *op) {
    return quantizesActivations(selector.getMode(op));
  };
  // The modes come from the names the qtable matches, weight names among
  // them, and the intermediates are named after the down weights: decide
  // before retargeting renames the weights.
  auto mlps = collectMLPs(module, isInt8);
  SmallVector<top::MatMulOp> matmuls;
  module.walk([&](top::MatMulOp matmul) {
    if (isQuantizableMatMul(matmul) && isInt8(matmul))
      matmuls.push_back(matmul);
  });
  if (llvm::Error error = retargetToLoweredWeights(module, options))
    return error;
  for (auto &[mlp, downName] : mlps)
    if (llvm::Error error = decompose(mlp, downName, matmuls))
      return error;
  for (top::MatMulOp matmul : matmuls) {
    std::string name = getLocationName(matmul);
    const quant::TensorRange *range =
        options.calibration ? options.calibration->lookup(name) : nullptr;
    if (!range)
      return referenceError("INT8 needs the calibrated range of '" + name +
                            "', which the calibration table does not list");
    insertFakeQuant(matmul,
                    quant::getActivationQuant(*range, options.asymmetric));
  }
  return llvm::Error::success();
}

} // namespace llmc::lowering
