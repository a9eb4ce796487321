//===- TpuTraits.cpp - op traits shared by the tpu ops --------------------===//

#include "dialects/tpu/IR/TpuTraits.h"

#include "dialects/tpu/IR/TpuOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

using namespace mlir;

namespace llmc::tpu {

//===----------------------------------------------------------------------===//
// Quantized types against shapes
//===----------------------------------------------------------------------===//

// The quant dialect checks these only on its own cast ops; every tpu op
// checks them so a layout change (reshape, permute, slice) cannot leave a
// per-channel scale list describing the wrong dimension.

static LogicalResult
verifyPerAxis(quant::UniformQuantizedPerAxisType type, ArrayRef<int64_t> shape,
              function_ref<InFlightDiagnostic()> emitError) {
  int64_t axis = type.getQuantizedDimension();
  int64_t rank = shape.size();
  if (axis < 0 || axis >= rank)
    return emitError() << "is quantized along dimension " << axis
                       << " but has rank " << rank;
  int64_t scales = type.getScales().size();
  if (!ShapedType::isDynamic(shape[axis]) && shape[axis] != scales)
    return emitError() << "has " << scales << " scales for the " << shape[axis]
                       << " channels of dimension " << axis;
  return success();
}

static LogicalResult
verifySubChannel(quant::UniformQuantizedSubChannelType type,
                 ArrayRef<int64_t> shape,
                 function_ref<InFlightDiagnostic()> emitError) {
  int64_t rank = shape.size();
  SmallVector<int64_t> blocks(shape);
  for (auto [axis, block] : type.getBlockSizeInfo()) {
    if (axis < 0 || axis >= rank)
      return emitError() << "has a block size for dimension " << axis
                         << " but rank " << rank;
    blocks[axis] = block;
  }
  ArrayRef<int64_t> scaleShape = type.getScales().getType().getShape();
  if (static_cast<int64_t>(scaleShape.size()) != rank)
    return emitError() << "has a rank-" << scaleShape.size()
                       << " scale tensor for rank " << rank;
  for (int64_t axis = 0; axis < rank; ++axis) {
    if (ShapedType::isDynamic(shape[axis]))
      continue;
    if (shape[axis] % blocks[axis] != 0)
      return emitError() << "has block size " << blocks[axis]
                         << " that does not divide dimension " << axis
                         << " of size " << shape[axis];
    if (scaleShape[axis] != shape[axis] / blocks[axis])
      return emitError() << "has " << scaleShape[axis]
                         << " scales along dimension " << axis << " for "
                         << shape[axis] / blocks[axis] << " blocks";
  }
  return success();
}

LogicalResult
verifyQuantizedShape(Type type, function_ref<InFlightDiagnostic()> emitError) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  Type element = tensor.getElementType();
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(element))
    return verifyPerAxis(perAxis, tensor.getShape(), emitError);
  if (auto subChannel =
          dyn_cast<quant::UniformQuantizedSubChannelType>(element))
    return verifySubChannel(subChannel, tensor.getShape(), emitError);
  return success();
}

LogicalResult verifyQuantizedTypesMatchShapes(Operation *op) {
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (failed(verifyQuantizedShape(operand.getType(), [&] {
          return op->emitOpError("operand #") << index << " ";
        })))
      return failure();
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (failed(verifyQuantizedShape(result.getType(), [&] {
          return op->emitOpError("result #") << index << " ";
        })))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Chip annotations
//===----------------------------------------------------------------------===//

/// The bytes a value of `type` occupies, when its shape and element width
/// are known. An i1 mask takes a byte per element: the chip stores masks as
/// bytes, not bits.
std::optional<int64_t> getTensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  Type element = tensor.getElementType();
  int64_t bits;
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    bits = quantized.getStorageTypeIntegralWidth();
  else if (element.isIntOrFloat())
    bits = element.getIntOrFloatBitWidth();
  else
    return std::nullopt;
  if (bits == 1)
    bits = 8;
  return (tensor.getNumElements() * bits + 7) / 8;
}

LogicalResult verifyResultAddresses(Operation *op, Attribute addr,
                                    StringRef name) {
  auto ranges = dyn_cast<ArrayAttr>(addr);
  if (!ranges || !llvm::all_of(ranges, llvm::IsaPred<MemAttr>))
    return op->emitOpError("'") << name << "' must be an array of #tpu.mem";
  if (ranges.size() != op->getNumResults())
    return op->emitOpError("'")
           << name << "' has " << ranges.size() << " ranges for "
           << op->getNumResults() << " results";
  for (auto [index, range, result] :
       llvm::enumerate(ranges.getAsRange<MemAttr>(), op->getResults())) {
    std::optional<int64_t> bytes = getTensorBytes(result.getType());
    if (bytes && range.getSize() < *bytes)
      return op->emitOpError("'")
             << name << "' gives result #" << index << " " << range.getSize()
             << " bytes but it needs " << *bytes;
  }
  return success();
}

static LogicalResult verifyLayerGroup(Operation *op, LayerGroupAttr lg) {
  auto group = op->getParentOfType<GroupOp>();
  if (!group)
    return op->emitOpError("has a layer-group attribute outside a tpu.Group");
  auto groupId = static_cast<int64_t>(group.getGroupId());
  if (lg.getId() != groupId)
    return op->emitOpError("lg.id ")
           << lg.getId() << " differs from the group_id " << groupId
           << " of its tpu.Group";
  auto stages = static_cast<int64_t>(group.getStages());
  if (lg.getStage() >= stages)
    return op->emitOpError("lg.stage ") << lg.getStage() << " is not below the "
                                        << stages << " stages of its tpu.Group";
  return success();
}

static LogicalResult verifyCoreSplit(Operation *op, CoreSplitAttr split) {
  // Every compute op has a result; the split describes the first one.
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result)
    return success();
  if (split.getAxis() >= result.getRank())
    return op->emitOpError("core_split axis ")
           << split.getAxis() << " is out of range for rank "
           << result.getRank();
  int64_t size = result.getDimSize(split.getAxis());
  if (!ShapedType::isDynamic(size) && split.getCores() > size)
    return op->emitOpError("cannot split dimension ")
           << split.getAxis() << " of size " << size << " across "
           << split.getCores() << " cores";
  return success();
}

LogicalResult verifyChipAnnotations(Operation *op) {
  if (auto lg = op->getAttrOfType<LayerGroupAttr>("lg"))
    if (failed(verifyLayerGroup(op, lg)))
      return failure();
  if (Attribute addr = op->getAttr("addr"))
    if (failed(verifyResultAddresses(op, addr, "addr")))
      return failure();
  if (auto split = op->getAttrOfType<CoreSplitAttr>("core_split"))
    if (failed(verifyCoreSplit(op, split)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Element types up to quantization parameters
//===----------------------------------------------------------------------===//

static bool sameUpToQuantParams(Type lhs, Type rhs) {
  if (lhs == rhs)
    return true;
  auto lhsQuant = dyn_cast<quant::QuantizedType>(lhs);
  auto rhsQuant = dyn_cast<quant::QuantizedType>(rhs);
  return lhsQuant && rhsQuant &&
         lhsQuant.getStorageType() == rhsQuant.getStorageType() &&
         lhsQuant.isSigned() == rhsQuant.isSigned() &&
         lhsQuant.getExpressedType() == rhsQuant.getExpressedType();
}

LogicalResult verifySameElementTypeUpToQuantParams(Operation *op) {
  SmallVector<Type> elements;
  auto collect = [&](TypeRange types) {
    for (Type type : types)
      if (auto tensor = dyn_cast<TensorType>(type))
        elements.push_back(tensor.getElementType());
  };
  collect(op->getOperandTypes());
  collect(op->getResultTypes());
  for (Type element : elements)
    if (!sameUpToQuantParams(elements.front(), element))
      return op->emitOpError("element types ")
             << elements.front() << " and " << element
             << " differ in more than quantization parameters";
  return success();
}

} // namespace llmc::tpu
