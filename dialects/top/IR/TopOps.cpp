//===- TopOps.cpp - shape functions and verifiers of the top ops ----------===//

#include "dialects/top/IR/TopOps.h"

#include "dialects/common/IR/OpShapes.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace llmc;
using namespace llmc::top;

//===----------------------------------------------------------------------===//
// Shape functions
//===----------------------------------------------------------------------===//

LogicalResult InputOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult WeightOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(getOutput().getType().getShape()), shapes);
}

LogicalResult ConstantOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(getValue().getShapedType().getShape()), shapes);
}

LogicalResult MatMulOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferMatMulShape(shapeOf(getInput()), shapeOf(getRight()),
                                      optionalShapeOf(getBias()),
                                      getLeftTranspose(), getRightTranspose(),
                                      errorEmitter(*this)),
                     shapes);
}

LogicalResult RMSNormOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferNormShape(shapeOf(getInput()),
                                    optionalShapeOf(getWeight()), std::nullopt,
                                    errorEmitter(*this)),
                     shapes);
}

LogicalResult LayerNormOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferNormShape(shapeOf(getInput()),
                                    optionalShapeOf(getWeight()),
                                    optionalShapeOf(getBias()), errorEmitter(*this)),
                     shapes);
}

LogicalResult GatherOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferGatherShape(shapeOf(getTable()),
                                      shapeOf(getIndices()), getAxis(),
                                      errorEmitter(*this)),
                     shapes);
}

LogicalResult RopeOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferRopeShape(shapeOf(getInput()), shapeOf(getCos()),
                                    shapeOf(getSin()), errorEmitter(*this)),
                     shapes);
}

LogicalResult FAttentionOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferAttentionShape(shapeOf(getQ()), shapeOf(getK()),
                                         shapeOf(getV()),
                                         optionalShapeOf(getMask()),
                                         getQHead(), getKvHead(),
                                         getHeadDim(), errorEmitter(*this)),
                     shapes);
}

LogicalResult MLPOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferGatedMLPShape(shapeOf(getInput()), shapeOf(getGate()),
                                        shapeOf(getUp()), shapeOf(getDown()),
                                        errorEmitter(*this)),
                     shapes);
}

LogicalResult AddOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult MulOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult DivOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult MulConstOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult FakeQuantOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult SiLUOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult TanhOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult GELUOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
SigmoidOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
SqrtOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult
PowOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(Shape(shapeOf(getInput())), shapes);
}

LogicalResult SoftmaxOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (failed(normalizeAxis(getAxis(), input.size(), errorEmitter(*this))))
    return failure();
  return appendShape(Shape(input), shapes);
}

LogicalResult CumSumOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  ArrayRef<int64_t> input = shapeOf(getInput());
  if (failed(normalizeAxis(getAxis(), input.size(), errorEmitter(*this))))
    return failure();
  return appendShape(Shape(input), shapes);
}

LogicalResult
ReduceMeanOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferReduceAxesShape(shapeOf(getInput()), getAxes(),
                                          getKeepdims(), errorEmitter(*this)),
                     shapes);
}

LogicalResult ReshapeOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferReshapeShape(shapeOf(getInput()),
                                       getOutput().getType().getShape(),
                                       errorEmitter(*this)),
                     shapes);
}

LogicalResult
ExpandOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferExpandShape(shapeOf(getInput()),
                                      getOutput().getType().getShape(),
                                      errorEmitter(*this)),
                     shapes);
}

LogicalResult PermuteOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferPermuteShape(shapeOf(getInput()), getOrder(),
                                       errorEmitter(*this)),
                     shapes);
}

LogicalResult ConcatOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  SmallVector<ArrayRef<int64_t>> inputs;
  for (Value input : getInputs())
    inputs.push_back(shapeOf(input));
  return appendShape(inferConcatShape(inputs, getAxis(), errorEmitter(*this)), shapes);
}

LogicalResult SliceOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferSliceShape(shapeOf(getInput()), getStarts(),
                                     getEnds(), getSteps(), errorEmitter(*this)),
                     shapes);
}

LogicalResult ScatterElementsOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferScatterElementsShape(shapeOf(getData()),
                                               shapeOf(getIndices()),
                                               shapeOf(getUpdates()), getAxis(),
                                               errorEmitter(*this)),
                     shapes);
}

LogicalResult CompareOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferBroadcastShape(shapeOf(getLhs()), shapeOf(getRhs()),
                                         errorEmitter(*this)),
                     shapes);
}

LogicalResult WhereOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  ArrayRef<int64_t> operands[] = {shapeOf(getCond()), shapeOf(getX()),
                                  shapeOf(getY())};
  return appendShape(inferBroadcastShape(operands, errorEmitter(*this)), shapes);
}

LogicalResult ArgOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  return appendShape(inferReduceAxisShape(shapeOf(getInput()), getAxis(),
                                          getKeepdims(), errorEmitter(*this)),
                     shapes);
}

LogicalResult TopKOp::inferResultShapes(SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  FailureOr<Shape> shape =
      inferTopKShape(shapeOf(getInput()), getK(), getAxis(), errorEmitter(*this));
  if (failed(shape))
    return failure();
  shapes.push_back(*shape);
  shapes.push_back(*shape);
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers of what shapes do not cover
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  if (getName().empty())
    return emitOpError("needs the name of a tensor in the weight source");
  StoredQuantAttr stored = getStoredAttr();
  if (!stored)
    return success();
  auto type = getType();
  if (type.getRank() != 2)
    return emitOpError("stored quantized weight must be a matrix, not ")
           << type;
  int64_t k = type.getDimSize(1), group = stored.getGroupSize();
  if (group != 0 && k % group != 0)
    return emitOpError("stored group size ")
           << group << " does not divide the weight's K = " << k;
  return success();
}

LogicalResult
StoredQuantAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t bits, int64_t groupSize, bool asymmetric,
                        Type scaleType, bool floatZeroPoints) {
  if (bits != 4 && bits != 8)
    return emitError() << "stored weights have 4 or 8 bits, not " << bits;
  if (groupSize < 0)
    return emitError() << "group size must not be negative, got " << groupSize;
  if (!scaleType.isF32() && !scaleType.isF16() && !scaleType.isBF16())
    return emitError() << "scales are f32, f16 or bf16, not " << scaleType;
  if (floatZeroPoints && !asymmetric)
    return emitError() << "float zero points need an asymmetric weight";
  return success();
}

LogicalResult ConstantOp::verify() {
  // The interpreter and the backends read the elements directly; resource
  // blobs and sparse forms are for weights, which are top.Weight.
  if (!isa<DenseIntOrFPElementsAttr>(getValue()))
    return emitOpError("value must be a dense attribute of integers or floats");
  return success();
}

#define GET_OP_CLASSES
#include "dialects/top/IR/TopOps.cpp.inc"
