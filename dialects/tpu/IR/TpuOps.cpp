//===- TpuOps.cpp - shape functions of the tpu ops ------------------------===//
//
// Each tpu op has the shape rule of its top counterpart, from the shared
// ShapeFunctions; only the weight-only quantized matmul, which top does not
// have, adds its own rule on top of the matmul one.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpu/IR/TpuOps.h"

#include "dialects/common/IR/OpShapes.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace llmc;
using namespace llmc::tpu;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Checks that a group-wise parameter (`scale` or `zp`) is [n, groups].
static LogicalResult checkGroupParams(StringRef what, ArrayRef<int64_t> shape,
                                      int64_t n, int64_t groups,
                                      EmitErrorFn emitError) {
  if (shape.size() == 2 && dimsCompatible(shape[0], n) &&
      dimsCompatible(shape[1], groups))
    return success();
  return emitError() << what << " must be [N, K / group] = [" << formatDim(n)
                     << ", " << formatDim(groups) << "]";
}

/// Checks the group-wise parameters of a weight-only quantized weight
/// [N, K] in groups of `groupSize` (K when 0): `scale` and `zp` are
/// [N, K / G]. `prefix` names the weight's operands (`gate_`) in messages.
static LogicalResult checkQuantizedWeight(StringRef prefix,
                                          ArrayRef<int64_t> weight,
                                          ArrayRef<int64_t> scale,
                                          OptionalShape zp, int64_t groupSize,
                                          EmitErrorFn emitError) {
  if (weight.size() != 2)
    return emitError() << prefix << "weight must be [N, K], got rank "
                       << weight.size();
  if (groupSize < 0)
    return emitError()
           << "q_group_size must be positive, or 0 for per-channel; got "
           << groupSize;
  int64_t n = weight[0], k = weight[1];
  int64_t groups = 1;
  if (groupSize != 0) {
    if (ShapedType::isDynamic(k)) {
      groups = ShapedType::kDynamic;
    } else if (k % groupSize != 0) {
      return emitError() << "q_group_size " << groupSize
                         << " does not divide K = " << k
                         << (prefix.empty() ? "" : " of ")
                         << prefix.drop_back();
    } else {
      groups = k / groupSize;
    }
  }
  std::string scaleName = (prefix + "scale").str();
  std::string zpName = (prefix + "zp").str();
  if (failed(checkGroupParams(scaleName, scale, n, groups, emitError)) ||
      (zp && failed(checkGroupParams(zpName, *zp, n, groups, emitError))))
    return failure();
  return success();
}

/// The weight-only quantized matmul: a right-transposed matmul of `input`
/// [..., M, K] by `weight` [N, K], whose `scale` and `zp` are [N, K / G] with
/// G = `groupSize`, or K when `groupSize` is 0.
static FailureOr<Shape>
inferGroupQuantMatMulShape(ArrayRef<int64_t> input, ArrayRef<int64_t> weight,
                           ArrayRef<int64_t> scale, OptionalShape zp,
                           OptionalShape bias, int64_t groupSize,
                           EmitErrorFn emitError) {
  if (failed(checkQuantizedWeight("", weight, scale, zp, groupSize,
                                  emitError)))
    return failure();
  return inferMatMulShape(input, weight, bias, /*leftTranspose=*/false,
                          /*rightTranspose=*/true, emitError);
}

//===----------------------------------------------------------------------===//
// Shape functions
//===----------------------------------------------------------------------===//

LogicalResult
MatMulOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferMatMulShape(shapeOf(getInput()), shapeOf(getRight()),
                                      optionalShapeOf(getBias()),
                                      getLeftTranspose(), getRightTranspose(),
                                      errorEmitter(*this)),
                     shapes);
}

LogicalResult
A16MatMulOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(
      inferGroupQuantMatMulShape(
          shapeOf(getInput()), shapeOf(getWeight()), shapeOf(getScale()),
          optionalShapeOf(getZp()), optionalShapeOf(getBias()),
          static_cast<int64_t>(getQGroupSize()), errorEmitter(*this)),
      shapes);
}

LogicalResult
A8MatMulOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(
      inferGroupQuantMatMulShape(shapeOf(getInput()), shapeOf(getWeight()),
                                 shapeOf(getScale()), std::nullopt,
                                 optionalShapeOf(getBias()), /*groupSize=*/0,
                                 errorEmitter(*this)),
      shapes);
}

LogicalResult
RMSNormOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferNormShape(shapeOf(getInput()),
                                    optionalShapeOf(getWeight()), std::nullopt,
                                    errorEmitter(*this)),
                     shapes);
}

LogicalResult
LayerNormOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(
      inferNormShape(shapeOf(getInput()), optionalShapeOf(getWeight()),
                     optionalShapeOf(getBias()), errorEmitter(*this)),
      shapes);
}

LogicalResult
GatherOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferGatherShape(shapeOf(getTable()),
                                      shapeOf(getIndices()), getAxis(),
                                      errorEmitter(*this)),
                     shapes);
}

LogicalResult
A16GatherOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferGatherShape(shapeOf(getTable()),
                                      shapeOf(getIndices()), /*axis=*/0,
                                      errorEmitter(*this)),
                     shapes);
}

LogicalResult
RopeOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferRopeShape(shapeOf(getInput()), shapeOf(getCos()),
                                    shapeOf(getSin()), errorEmitter(*this)),
                     shapes);
}

LogicalResult
FAttentionOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(
      inferAttentionShape(shapeOf(getQ()), shapeOf(getK()), shapeOf(getV()),
                          optionalShapeOf(getMask()), getQHead(), getKvHead(),
                          getHeadDim(), errorEmitter(*this)),
      shapes);
}

LogicalResult
MLPOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferGatedMLPShape(shapeOf(getInput()), shapeOf(getGate()),
                                        shapeOf(getUp()), shapeOf(getDown()),
                                        errorEmitter(*this)),
                     shapes);
}

LogicalResult
A16MLPOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  auto groupSize = static_cast<int64_t>(getQGroupSize());
  auto emitError = errorEmitter(*this);
  if (failed(checkQuantizedWeight("gate_", shapeOf(getGate()),
                                  shapeOf(getGateScale()),
                                  optionalShapeOf(getGateZp()), groupSize,
                                  emitError)) ||
      failed(checkQuantizedWeight("up_", shapeOf(getUp()),
                                  shapeOf(getUpScale()),
                                  optionalShapeOf(getUpZp()), groupSize,
                                  emitError)) ||
      failed(checkQuantizedWeight("down_", shapeOf(getDown()),
                                  shapeOf(getDownScale()),
                                  optionalShapeOf(getDownZp()), groupSize,
                                  emitError)))
    return failure();
  return appendShape(inferGatedMLPShape(shapeOf(getInput()), shapeOf(getGate()),
                                        shapeOf(getUp()), shapeOf(getDown()),
                                        emitError),
                     shapes);
}

LogicalResult
A8MLPOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  auto emitError = errorEmitter(*this);
  if (failed(checkQuantizedWeight("gate_", shapeOf(getGate()),
                                  shapeOf(getGateScale()), std::nullopt, 0,
                                  emitError)) ||
      failed(checkQuantizedWeight("up_", shapeOf(getUp()),
                                  shapeOf(getUpScale()), std::nullopt, 0,
                                  emitError)) ||
      failed(checkQuantizedWeight("down_", shapeOf(getDown()),
                                  shapeOf(getDownScale()), std::nullopt, 0,
                                  emitError)))
    return failure();
  return appendShape(inferGatedMLPShape(shapeOf(getInput()), shapeOf(getGate()),
                                        shapeOf(getUp()), shapeOf(getDown()),
                                        emitError),
                     shapes);
}

LogicalResult
AddOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult
MulOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult
MulConstOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
DivOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult
SiLUOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
GELUOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
TanhOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
SoftmaxOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (failed(normalizeAxis(getAxis(), input.size(), errorEmitter(*this))))
    return failure();
  return appendShape(Shape(input), shapes);
}

LogicalResult
CumSumOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (failed(normalizeAxis(getAxis(), input.size(), errorEmitter(*this))))
    return failure();
  return appendShape(Shape(input), shapes);
}

LogicalResult
CastOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
ReshapeOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferReshapeShape(shapeOf(getInput()),
                                       getOutput().getType().getShape(),
                                       errorEmitter(*this)),
                     shapes);
}

LogicalResult
PermuteOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(
      inferPermuteShape(shapeOf(getInput()), getOrder(), errorEmitter(*this)),
      shapes);
}

LogicalResult
ConcatOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  SmallVector<ArrayRef<int64_t>> inputs;
  for (Value input : getInputs())
    inputs.push_back(shapeOf(input));
  return appendShape(inferConcatShape(inputs, getAxis(), errorEmitter(*this)),
                     shapes);
}

LogicalResult
SliceOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferSliceShape(shapeOf(getInput()), getStarts(),
                                     getEnds(), getSteps(),
                                     errorEmitter(*this)),
                     shapes);
}

LogicalResult ScatterElementsOp::inferResultShapes(
    SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferScatterElementsShape(
                         shapeOf(getData()), shapeOf(getIndices()),
                         shapeOf(getUpdates()), getAxis(), errorEmitter(*this)),
                     shapes);
}

LogicalResult
CompareOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult
WhereOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  ArrayRef<int64_t> operands[] = {shapeOf(getCond()), shapeOf(getX()),
                                  shapeOf(getY())};
  return appendShape(inferBroadcastShape(operands, errorEmitter(*this)),
                     shapes);
}

LogicalResult
ArgOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferReduceAxisShape(shapeOf(getInput()), getAxis(),
                                          getKeepdims(), errorEmitter(*this)),
                     shapes);
}

LogicalResult
TopKOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  FailureOr<Shape> shape = inferTopKShape(shapeOf(getInput()), getK(),
                                          getAxis(), errorEmitter(*this));
  if (failed(shape))
    return failure();
  shapes.push_back(*shape);
  shapes.push_back(*shape);
  return success();
}

LogicalResult
LoadOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
StoreOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

#define GET_OP_CLASSES
#include "dialects/tpu/IR/TpuOps.cpp.inc"
