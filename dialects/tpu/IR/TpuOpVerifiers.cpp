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
// Attributes shared with top
//===----------------------------------------------------------------------===//

static LogicalResult verifyEpsilon(Operation *op, double eps) {
  if (!(eps > 0.0))
    return op->emitOpError("eps must be positive, got ") << eps;
  return success();
}

LogicalResult RMSNormOp::verify() {
  return verifyEpsilon(*this, getEps().convertToDouble());
}

LogicalResult LayerNormOp::verify() {
  return verifyEpsilon(*this, getEps().convertToDouble());
}

LogicalResult FAttentionOp::verify() {
  if (!(getScale().convertToDouble() > 0.0))
    return emitOpError("scale must be positive");
  return success();
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
/// the kernel reads `scale` and `zp`, the reference interpreter the type.
static LogicalResult verifyQuantizedWeight(A16MatMulOp op,
                                           quant::QuantizedType type,
                                           int64_t group) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op.getWeight().getType()).getShape();
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    if (perAxis.getQuantizedDimension() != 0)
      return op.emitOpError("a per-axis weight must be quantized along N "
                            "(dimension 0)");
    if (group != shape[1])
      return op.emitOpError("a per-axis weight needs per-channel "
                            "q_group_size (0 or K)");
  } else if (auto subChannel =
                 dyn_cast<quant::UniformQuantizedSubChannelType>(type)) {
    SmallVector<int64_t> blocks(shape);
    for (auto [axis, block] : subChannel.getBlockSizeInfo())
      blocks[axis] = block;
    if (blocks[0] != 1 || blocks[1] != group)
      return op.emitOpError("a sub-channel weight needs blocks {0:1, 1:")
             << group << "} to match q_group_size";
  } else {
    return op.emitOpError("a quantized weight must be per-axis (per-channel) "
                          "or sub-channel (group-wise), got ")
           << type;
  }
  if (isa<NoneType>(op.getZp().getType()) && !isSymmetric(type))
    return op.emitOpError("has no zp but its weight type has nonzero zero "
                          "points");
  return success();
}

LogicalResult A16MatMulOp::verify() {
  auto bits = static_cast<int64_t>(getWeightBits());
  if (bits != 4 && bits != 8)
    return emitOpError("weight_bits must be 4 or 8, got ") << bits;
  Type weight = elementTypeOf(getWeight());
  if (storageBits(weight) != bits)
    return emitOpError("weight elements are ")
           << storageBits(weight) << "-bit but weight_bits is " << bits;
  Type input = elementTypeOf(getInput());
  if (elementTypeOf(getOutput()) != input)
    return emitOpError("output element type must be the input's (")
           << input << "), got " << elementTypeOf(getOutput());
  auto quantized = dyn_cast<quant::QuantizedType>(weight);
  // The shape function reports a weight that is not [N, K]; it does not run
  // while an operand is unranked.
  auto weightType = dyn_cast<RankedTensorType>(getWeight().getType());
  if (!quantized || !weightType || weightType.getRank() != 2)
    return success();
  int64_t k = weightType.getDimSize(1);
  if (ShapedType::isDynamic(k))
    return emitOpError("a quantized weight needs a static K");
  auto groupSize = static_cast<int64_t>(getQGroupSize());
  return verifyQuantizedWeight(*this, quantized,
                               groupSize == 0 ? k : groupSize);
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
