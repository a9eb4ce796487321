//===- GlobalViews.cpp - where a piece's values live in global memory -----===//

#include "backends/common/codegen/GlobalViews.h"

#include "backends/common/cmodel/DType.h"
#include "backends/common/cmodel/StreamBuilder.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace llmc::codegen {

static llvm::Error viewError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<cmd::DType> getDType(Type element) {
  if (element.isF32())
    return cmd::DTYPE_F32;
  if (element.isF16())
    return cmd::DTYPE_F16;
  if (element.isBF16())
    return cmd::DTYPE_BF16;
  bool isSigned = true;
  unsigned width = 0;
  if (auto quantized = dyn_cast<quant::QuantizedType>(element)) {
    isSigned = quantized.isSigned();
    width = quantized.getStorageTypeIntegralWidth();
  } else if (auto integer = dyn_cast<IntegerType>(element)) {
    isSigned = !integer.isUnsigned();
    width = integer.getWidth();
    // Masks are stored a byte per element.
    if (width == 1) {
      isSigned = false;
      width = 8;
    }
  }
  if (width == 32 && isSigned)
    return cmd::DTYPE_I32;
  if (width == 8)
    return isSigned ? cmd::DTYPE_I8 : cmd::DTYPE_U8;
  if (width == 4)
    return isSigned ? cmd::DTYPE_I4 : cmd::DTYPE_U4;
  std::string name;
  llvm::raw_string_ostream os(name);
  element.print(os);
  return viewError("no command-stream type for element type " + name);
}

int64_t getNumElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

static tpu::MemAttr getMem(Attribute attr) {
  return dyn_cast_or_null<tpu::MemAttr>(attr);
}

static cmd::Region getRegion(tpu::MemRegion region) {
  switch (region) {
  case tpu::MemRegion::Coeff:
    return cmd::REGION_COEFF;
  case tpu::MemRegion::Activation:
    return cmd::REGION_ACTIVATION;
  case tpu::MemRegion::IO:
    return cmd::REGION_IO;
  }
  return cmd::REGION_INVALID;
}

std::vector<uint8_t> packConstant(DenseElementsAttr value) {
  Type element = value.getElementType();
  unsigned bits = element.getIntOrFloatBitWidth();
  unsigned bytes = (bits + 7) / 8;
  std::vector<uint8_t> packed;
  packed.reserve(value.getNumElements() * bytes);
  auto append = [&](const APInt &bitsOfElement) {
    APInt wide = bitsOfElement.zextOrTrunc(bytes * 8);
    for (unsigned b = 0; b < bytes; ++b)
      packed.push_back(
          static_cast<uint8_t>(wide.extractBitsAsZExtValue(8, 8 * b)));
  };
  if (isa<FloatType>(element)) {
    for (const APFloat &number : value.getValues<APFloat>())
      append(number.bitcastToAPInt());
  } else {
    for (const APInt &number : value.getValues<APInt>())
      append(number);
  }
  return packed;
}

std::string getConstantName(llvm::ArrayRef<uint8_t> packed) {
  return "constant." + llvm::utohexstr(llvm::xxh3_64bits(packed),
                                       /*LowerCase=*/true, /*Width=*/16);
}

llvm::Expected<std::pair<cmd::Region, uint64_t>>
ValuePlacement::getAddress(Value value) const {
  // A layer group's edges: its body's arguments are its inputs, its
  // results what its tpu.Yield names (tpu.Store results, which are placed).
  if (auto argument = dyn_cast<BlockArgument>(value))
    if (auto group = dyn_cast<tpu::GroupOp>(argument.getOwner()->getParentOp()))
      return getAddress(group.getInputs()[argument.getArgNumber()]);
  if (auto group = value.getDefiningOp<tpu::GroupOp>())
    return getAddress(group.getBody().front().getTerminator()->getOperand(
        cast<OpResult>(value).getResultNumber()));
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    auto function = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
    tpu::MemAttr mem =
        function
            ? getMem(function.getArgAttr(argument.getArgNumber(), "tpu.addr"))
            : nullptr;
    if (!mem && standIns)
      return std::make_pair(cmd::REGION_IO, uint64_t{0});
    if (!mem)
      return viewError("argument #" + llvm::Twine(argument.getArgNumber()) +
                       " has no tpu.addr: run tpu-address-assign first");
    return std::make_pair(getRegion(mem.getRegion()),
                          static_cast<uint64_t>(mem.getOffset()));
  }
  Operation *op = value.getDefiningOp();
  if (auto weight = dyn_cast<top::WeightOp>(op)) {
    auto it = weights.find(weight.getName());
    if (it == weights.end() && standIns)
      return std::make_pair(cmd::REGION_COEFF, uint64_t{0});
    if (it == weights.end())
      return viewError("weight '" + weight.getName() +
                       "' is not in the binary's weight layout");
    return std::make_pair(cmd::REGION_COEFF, it->second);
  }
  if (auto constant = dyn_cast<tpu::ConstantOp>(op)) {
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!value)
      return viewError("a constant's elements are not dense");
    std::string name = getConstantName(packConstant(value));
    auto it = weights.find(name);
    if (it == weights.end() && standIns)
      return std::make_pair(cmd::REGION_COEFF, uint64_t{0});
    if (it == weights.end())
      return viewError("constant '" + name +
                       "' is not in the binary's weight layout");
    return std::make_pair(cmd::REGION_COEFF, it->second);
  }
  if (isa<top::InputOp, tpu::ReshapeOp, tpu::LoadOp>(op))
    return getAddress(op->getOperand(0));
  auto ranges = op->getAttrOfType<ArrayAttr>("addr");
  if (!ranges && standIns)
    return std::make_pair(cmd::REGION_ACTIVATION, uint64_t{0});
  if (!ranges)
    return viewError("'" + op->getName().getStringRef() +
                     "' has no addr: run tpu-address-assign first");
  auto mem =
      cast<tpu::MemAttr>(ranges[cast<OpResult>(value).getResultNumber()]);
  return std::make_pair(getRegion(mem.getRegion()),
                        static_cast<uint64_t>(mem.getOffset()));
}

llvm::Expected<std::pair<cmd::Region, uint64_t>>
ValuePlacement::getScratch(Operation *op) const {
  auto mem = op->getAttrOfType<tpu::MemAttr>("scratch");
  if (!mem && standIns)
    return std::make_pair(cmd::REGION_ACTIVATION, uint64_t{0});
  if (!mem)
    return viewError("has no scratch: run tpu-address-assign first");
  return std::make_pair(getRegion(mem.getRegion()),
                        static_cast<uint64_t>(mem.getOffset()));
}

llvm::Expected<cmd::GlobalTensor> ValuePlacement::view(Value value,
                                                       int64_t cols) const {
  auto type = cast<ShapedType>(value.getType());
  llvm::Expected<cmd::DType> dtype = getDType(type.getElementType());
  if (!dtype)
    return dtype.takeError();
  llvm::Expected<std::pair<cmd::Region, uint64_t>> address = getAddress(value);
  if (!address)
    return address.takeError();
  int64_t elements = type.getNumElements();
  if (cols <= 0 || elements % cols)
    return viewError("cannot view " + llvm::Twine(elements) +
                     " elements as rows of " + llvm::Twine(cols));
  return cmodel::globalTensor(address->first, address->second, elements / cols,
                              cols, *dtype);
}

llvm::Expected<cmd::GlobalTensor> ValuePlacement::view(Value value) const {
  auto type = cast<ShapedType>(value.getType());
  return view(value, type.getRank() ? type.getShape().back() : 1);
}

uint64_t getRowStride(const cmd::GlobalTensor &tensor) {
  if (tensor.row_stride_bytes())
    return tensor.row_stride_bytes();
  return cmodel::getDTypeBytes(tensor.dtype(), tensor.cols());
}

cmd::GlobalTensor sliceRows(const cmd::GlobalTensor &tensor, int64_t begin,
                            int64_t count) {
  cmd::GlobalTensor slice = tensor;
  uint64_t stride = getRowStride(tensor);
  slice.set_offset(tensor.offset() + begin * stride);
  slice.set_rows(count);
  slice.set_row_stride_bytes(count > 1 ? stride : 0);
  if (count > 1 && stride == static_cast<uint64_t>(cmodel::getDTypeBytes(
                                 tensor.dtype(), tensor.cols())))
    slice.set_row_stride_bytes(0);
  return slice;
}

cmd::GlobalTensor sliceCols(const cmd::GlobalTensor &tensor, int64_t begin,
                            int64_t count) {
  cmd::GlobalTensor slice = tensor;
  uint64_t stride = getRowStride(tensor);
  slice.set_offset(tensor.offset() +
                   begin * cmodel::getDTypeBits(tensor.dtype()) / 8);
  slice.set_cols(count);
  bool packed = stride == static_cast<uint64_t>(
                              cmodel::getDTypeBytes(tensor.dtype(), count)) ||
                tensor.rows() == 1;
  slice.set_row_stride_bytes(packed ? 0 : stride);
  return slice;
}

cmd::GlobalTensor reflow(const cmd::GlobalTensor &tensor, int64_t newCols) {
  cmd::GlobalTensor flat = tensor;
  flat.set_rows(tensor.rows() * tensor.cols() / newCols);
  flat.set_cols(newCols);
  flat.set_row_stride_bytes(0);
  return flat;
}

} // namespace llmc::codegen
