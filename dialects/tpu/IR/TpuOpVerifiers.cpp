//===- TpuOpVerifiers.cpp - what the shapes of tpu ops do not check -------===//
//
// Element types and attributes of the compute ops. Shapes are checked by the
// shape functions (TpuOps.cpp) before these verifiers run.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

using namespace mlir;
using namespace llmc::tpu;

static Type elementTypeOf(Value value) {
  return cast<TensorType>(value.getType()).getElementType();
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  Type input = elementTypeOf(getInput());
  Type right = elementTypeOf(getRight());
  // A float operand against an integer one has no kernel: the integer side
  // must be dequantized (tpu.Cast) or the float side quantized first.
  if (isa<FloatType>(input) != isa<FloatType>(right))
    return emitOpError("input and right must both be float or both be "
                       "integer or quantized, got ")
           << input << " and " << right;
  if (isa<quant::QuantizedType>(input) &&
      !isa<quant::UniformQuantizedType>(input))
    return emitOpError("a quantized input must be per-tensor, got ") << input;
  auto rightType = dyn_cast<RankedTensorType>(getRight().getType());
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(right);
  if (perAxis && rightType && rightType.getRank() >= 2) {
    int64_t rank = rightType.getRank();
    int64_t nAxis = getRightTranspose() ? rank - 2 : rank - 1;
    if (perAxis.getQuantizedDimension() != nAxis)
      return emitOpError("a per-axis right operand must be quantized along N "
                         "(dimension ")
             << nAxis << "), not dimension " << perAxis.getQuantizedDimension();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// A16MatMul
//===----------------------------------------------------------------------===//

/// The bits of one stored weight element.
static unsigned storageBits(Type element) {
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    return quantized.getStorageTypeIntegralWidth();
  return element.getIntOrFloatBitWidth();
}

/// True when every zero point of a quantized weight type is 0.
static bool isSymmetric(quant::QuantizedType type) {
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type))
    return llvm::all_of(perAxis.getZeroPoints(),
                        [](int64_t zp) { return zp == 0; });
  auto subChannel = cast<quant::UniformQuantizedSubChannelType>(type);
  return llvm::all_of(subChannel.getZeroPoints().getValues<APInt>(),
                      [](const APInt &zp) { return zp.isZero(); });
}

/// A quantized weight type must group the weight the way the attributes do:
/// the kernel reads `scale` and `zp`, the reference interpreter the type. A
/// `!quant.any` type leaves the parameters to `scale` and `zp` alone.
static LogicalResult verifyQuantizedWeight(Operation *op, Value weight,
                                           quant::QuantizedType type,
                                           Value scale, Value zp,
                                           int64_t group) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(weight.getType()).getShape();
  bool hasZp = !isa<NoneType>(zp.getType());
  if (auto any = dyn_cast<quant::AnyQuantizedType>(type)) {
    Type scaleType = elementTypeOf(scale);
    if (any.getExpressedType() && any.getExpressedType() != scaleType)
      return op->emitOpError("a !quant.any weight expresses ")
             << any.getExpressedType() << " but its scale is " << scaleType;
    if (!hasZp && !any.isSigned())
      return op->emitOpError("an unsigned !quant.any weight needs a zp");
    return success();
  }
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    if (perAxis.getQuantizedDimension() != 0)
      return op->emitOpError("a per-axis weight must be quantized along N "
                             "(dimension 0)");
    if (group != shape[1])
      return op->emitOpError("a per-axis weight needs per-channel "
                             "q_group_size (0 or K)");
  } else if (auto subChannel =
                 dyn_cast<quant::UniformQuantizedSubChannelType>(type)) {
    SmallVector<int64_t> blocks(shape);
    for (auto [axis, block] : subChannel.getBlockSizeInfo())
      blocks[axis] = block;
    if (blocks[0] != 1 || blocks[1] != group)
      return op->emitOpError("a sub-channel weight needs blocks {0:1, 1:")
             << group << "} to match q_group_size";
  } else {
    return op->emitOpError("a quantized weight must be per-axis "
                           "(per-channel), sub-channel (group-wise) or "
                           "!quant.any, got ")
           << type;
  }
  if (!hasZp && !isSymmetric(type))
    return op->emitOpError("has no zp but its weight type has nonzero zero "
                           "points");
  return success();
}

/// Checks one weight of a weight-only quantized op: `bits`-bit elements and,
/// when quantized, a type that agrees with the grouping. `name` is the
/// weight operand's name in messages.
static LogicalResult verifyWeightOnlyWeight(Operation *op, StringRef name,
                                            Value weight, Value scale,
                                            Value zp, int64_t bits,
                                            int64_t groupSize) {
  Type element = elementTypeOf(weight);
  if (storageBits(element) != bits)
    return op->emitOpError()
           << name << " elements are " << storageBits(element)
           << "-bit but weight_bits is " << bits;
  auto quantized = dyn_cast<quant::QuantizedType>(element);
  // The shape function reports a weight that is not [N, K]; it does not run
  // while an operand is unranked.
  auto weightType = dyn_cast<RankedTensorType>(weight.getType());
  if (!quantized || !weightType || weightType.getRank() != 2)
    return success();
  int64_t k = weightType.getDimSize(1);
  if (ShapedType::isDynamic(k))
    return op->emitOpError("a quantized weight needs a static K");
  return verifyQuantizedWeight(op, weight, quantized, scale, zp,
                               groupSize == 0 ? k : groupSize);
}

/// The activation and weight bits every weight-only quantized op shares.
static LogicalResult verifyWeightOnlyOp(Operation *op, Value input,
                                        Value output, int64_t bits) {
  if (bits != 4 && bits != 8)
    return op->emitOpError("weight_bits must be 4 or 8, got ") << bits;
  Type inputType = elementTypeOf(input);
  if (elementTypeOf(output) != inputType)
    return op->emitOpError("output element type must be the input's (")
           << inputType << "), got " << elementTypeOf(output);
  return success();
}

LogicalResult A16MatMulOp::verify() {
  auto bits = static_cast<int64_t>(getWeightBits());
  if (failed(verifyWeightOnlyOp(*this, getInput(), getOutput(), bits)))
    return failure();
  return verifyWeightOnlyWeight(*this, "weight", getWeight(), getScale(),
                                getZp(), bits,
                                static_cast<int64_t>(getQGroupSize()));
}

//===----------------------------------------------------------------------===//
// A16Gather
//===----------------------------------------------------------------------===//

LogicalResult A16GatherOp::verify() {
  auto bits = static_cast<int64_t>(getWeightBits());
  if (bits != 4 && bits != 8)
    return emitOpError("weight_bits must be 4 or 8, got ") << bits;
  auto table = dyn_cast<RankedTensorType>(getTable().getType());
  auto scale = dyn_cast<RankedTensorType>(getScale().getType());
  if (table && scale && table.getRank() == 2 && scale.getRank() == 2 &&
      !table.isDynamicDim(1)) {
    int64_t k = table.getDimSize(1);
    auto group = static_cast<int64_t>(getQGroupSize());
    int64_t groups = group == 0 ? 1 : (k % group == 0 ? k / group : 0);
    if (groups == 0)
      return emitOpError("q_group_size ") << group << " does not divide K = "
                                          << k;
    if (scale.getShape() != ArrayRef<int64_t>{table.getDimSize(0), groups})
      return emitOpError("scale must be [")
             << table.getDimSize(0) << ", " << groups << "], got "
             << scale;
  }
  return verifyWeightOnlyWeight(*this, "table", getTable(), getScale(),
                                getZp(), bits,
                                static_cast<int64_t>(getQGroupSize()));
}

//===----------------------------------------------------------------------===//
// A16MLP
//===----------------------------------------------------------------------===//

LogicalResult A16MLPOp::verify() {
  auto bits = static_cast<int64_t>(getWeightBits());
  if (failed(verifyWeightOnlyOp(*this, getInput(), getOutput(), bits)))
    return failure();
  auto groupSize = static_cast<int64_t>(getQGroupSize());
  if (failed(verifyWeightOnlyWeight(*this, "gate", getGate(), getGateScale(),
                                    getGateZp(), bits, groupSize)) ||
      failed(verifyWeightOnlyWeight(*this, "up", getUp(), getUpScale(),
                                    getUpZp(), bits, groupSize)) ||
      failed(verifyWeightOnlyWeight(*this, "down", getDown(), getDownScale(),
                                    getDownZp(), bits, groupSize)))
    return failure();
  bool gateZp = !isa<NoneType>(getGateZp().getType());
  if (gateZp != !isa<NoneType>(getUpZp().getType()) ||
      gateZp != !isa<NoneType>(getDownZp().getType()))
    return emitOpError("gate_zp, up_zp and down_zp must all be given "
                       "(asymmetric) or all be none (symmetric)");
  return success();
}

//===----------------------------------------------------------------------===//
// A8MatMul, A8MLP
//===----------------------------------------------------------------------===//

/// An 8-bit per-tensor quantized activation type expressing `expressed`.
static LogicalResult verifyActivationQuant(Operation *op, StringRef name,
                                           Type element, Type expressed) {
  auto uniform = dyn_cast<quant::UniformQuantizedType>(element);
  if (!uniform || uniform.getStorageTypeIntegralWidth() != 8)
    return op->emitOpError()
           << name << " must be quantized per tensor to 8 bits, got "
           << element;
  if (uniform.getExpressedType() != expressed)
    return op->emitOpError()
           << name << " must express the output type " << expressed
           << ", got " << uniform.getExpressedType();
  return success();
}

/// A symmetric 8-bit weight with f32 per-channel scales.
static LogicalResult verifyInt8Weight(Operation *op, StringRef name,
                                      Value weight, Value scale) {
  Type element = elementTypeOf(weight);
  auto quantized = dyn_cast<quant::QuantizedType>(element);
  bool isSigned = quantized ? quantized.isSigned()
                            : !cast<IntegerType>(element).isUnsigned();
  if (storageBits(element) != 8 || !isSigned)
    return op->emitOpError() << name << " must hold signed 8-bit integers, got "
                             << element;
  if (!elementTypeOf(scale).isF32())
    return op->emitOpError()
           << name << " scales must be f32, got " << elementTypeOf(scale);
  return success();
}

LogicalResult A8MatMulOp::verify() {
  if (failed(verifyActivationQuant(*this, "input", elementTypeOf(getInput()),
                                   elementTypeOf(getOutput()))))
    return failure();
  return verifyInt8Weight(*this, "weight", getWeight(), getScale());
}

LogicalResult A8MLPOp::verify() {
  Type output = elementTypeOf(getOutput());
  if (failed(verifyActivationQuant(*this, "input", elementTypeOf(getInput()),
                                   output)) ||
      failed(verifyActivationQuant(*this, "intermediate", getIntermediate(),
                                   output)))
    return failure();
  if (failed(verifyInt8Weight(*this, "gate", getGate(), getGateScale())) ||
      failed(verifyInt8Weight(*this, "up", getUp(), getUpScale())) ||
      failed(verifyInt8Weight(*this, "down", getDown(), getDownScale())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  Type input = elementTypeOf(getInput());
  Type output = elementTypeOf(getOutput());
  auto inputQuant = dyn_cast<quant::QuantizedType>(input);
  auto outputQuant = dyn_cast<quant::QuantizedType>(output);
  if (!inputQuant && !outputQuant)
    return success();
  // Quantizing and dequantizing map a float to its own quantized type, as
  // quant.qcast and quant.dcast do; a change of float width is its own Cast.
  Type inputReal = inputQuant ? inputQuant.getExpressedType() : input;
  Type outputReal = outputQuant ? outputQuant.getExpressedType() : output;
  if (inputReal != outputReal)
    return emitOpError("converts ")
           << input << " to " << output << ", whose expressed types differ ("
           << inputReal << " and " << outputReal << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  // The compiler packs the elements into the binary; resource blobs and
  // sparse forms are for weights, which stay top.Weight.
  if (!isa<DenseIntOrFPElementsAttr>(getValue()))
    return emitOpError("value must be a dense attribute of integers or floats");
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }
