//===- DeviceRun.cpp - a compiled piece on its chip's device -------------===//

#include "backends/common/compile/DeviceRun.h"

#include "backends/common/cmodel/StreamTiming.h"
#include "backends/common/compile/PieceCompiler.h"
#include "backends/common/compile/WeightPacking.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "dialects/tpu/IR/TpuTraits.h"
#include "plugins/Float16.h"
#include "support/LlvmStatus.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace llmc::compile {

std::vector<uint8_t> encode(const top::Tensor &tensor, Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  const auto *raw = reinterpret_cast<const uint8_t *>(tensor.getRawData());
  if (!element.isF16() && !element.isBF16())
    return std::vector<uint8_t>(raw, raw + tensor.getNumElements() * 4);
  std::vector<uint8_t> bytes(tensor.getNumElements() * 2);
  auto *out = reinterpret_cast<uint16_t *>(bytes.data());
  for (auto [i, value] : llvm::enumerate(tensor.getF32()))
    out[i] = element.isF16() ? floatToHalf(value) : floatToBFloat16(value);
  return bytes;
}

std::vector<float> decode(llvm::ArrayRef<uint8_t> bytes, Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  int64_t count = cast<ShapedType>(type).getNumElements();
  std::vector<float> values(count);
  if (element.isF32()) {
    std::memcpy(values.data(), bytes.data(), count * 4);
    return values;
  }
  const auto *in = reinterpret_cast<const uint16_t *>(bytes.data());
  for (int64_t i = 0; i < count; ++i)
    values[i] = element.isF16() ? halfToFloat(in[i]) : bfloat16ToFloat(in[i]);
  return values;
}

std::optional<top::Tensor> decodeTensor(llvm::ArrayRef<uint8_t> bytes,
                                        Type type) {
  auto shaped = cast<ShapedType>(type);
  Type element = shaped.getElementType();
  int64_t count = shaped.getNumElements();
  if (element.isF32() || element.isF16() || element.isBF16())
    return top::Tensor::fromF32(shaped.getShape(), decode(bytes, type));
  if (element.isInteger(32)) {
    std::vector<int32_t> values(count);
    std::memcpy(values.data(), bytes.data(), count * 4);
    return top::Tensor::fromI32(shaped.getShape(), std::move(values));
  }
  auto quantized = dyn_cast<mlir::quant::UniformQuantizedType>(element);
  if (!quantized || quantized.getStorageTypeIntegralWidth() != 8)
    return std::nullopt;
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t stored = quantized.isSigned()
                         ? static_cast<int64_t>(static_cast<int8_t>(bytes[i]))
                         : static_cast<int64_t>(bytes[i]);
    values[i] = static_cast<float>(
        (stored - quantized.getZeroPoint()) * quantized.getScale());
  }
  return top::Tensor::fromF32(shaped.getShape(), std::move(values));
}

double cosine(llvm::ArrayRef<float> a, llvm::ArrayRef<float> b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  if (na == 0 && nb == 0)
    return 1;
  return dot / std::sqrt(na * nb);
}

llvm::Expected<std::vector<uint8_t>>
packCoeff(ModuleOp module, const plugins::WeightSource &weights,
          codegen::WeightOffsets &offsets) {
  std::vector<uint8_t> coeff;
  for (const compile::WeightUse &use : compile::collectWeights(module)) {
    llvm::Expected<std::vector<uint8_t>> bytes =
        use.constant.empty()
            ? compile::packWeight(weights, use.name, use.type)
            : llvm::Expected<std::vector<uint8_t>>(use.constant);
    if (!bytes)
      return bytes.takeError();
    offsets[use.name] = coeff.size();
    coeff.insert(coeff.end(), bytes->begin(), bytes->end());
    coeff.resize(llvm::alignTo(coeff.size(), 64));
  }
  return coeff;
}

llvm::Expected<std::vector<std::vector<uint8_t>>>
runOnDevice(cmodel::StreamDevice &device, func::FuncOp function,
            const cmd::CommandStream &stream, llvm::ArrayRef<uint8_t> coeff,
            llvm::ArrayRef<top::Tensor> inputs) {
  auto attr = [&](llvm::StringRef name) {
    return function->getAttrOfType<IntegerAttr>(name).getInt();
  };
  device.attachWeights(coeff);
  device.global().allocate(cmd::REGION_ACTIVATION,
                           std::max<int64_t>(64, attr("tpu.activation_bytes")));
  device.global().allocate(cmd::REGION_IO, attr("tpu.io_bytes"));
  for (auto [index, input] : llvm::enumerate(inputs)) {
    auto mem = cast<tpu::MemAttr>(function.getArgAttr(index, "tpu.addr"));
    if (llvm::Error error = support::toLlvmError(device.global().write(
            cmd::REGION_IO, mem.getOffset(),
            encode(input, function.getArgumentTypes()[index]))))
      return std::move(error);
  }
  llvm::Expected<cmodel::RunStats> stats =
      support::toExpected(device.run(stream));
  if (!stats)
    return stats.takeError();
  // Codegen chooses tilings by this estimate: it must be the run's time.
  if (device.modelsTime()) {
    cmodel::TimeModel time(device.getChip());
    llvm::Expected<uint64_t> estimate = support::toExpected(
        cmodel::estimateCycles(stream, time, device.getChip()));
    if (!estimate)
      return estimate.takeError();
    if (*estimate != stats->totalCycles)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "stream '" + stream.name() + "': estimated " +
              llvm::Twine(*estimate) + " cycles, ran " +
              llvm::Twine(stats->totalCycles));
  }
  std::vector<std::vector<uint8_t>> outputs;
  for (auto [index, type] : llvm::enumerate(function.getResultTypes())) {
    auto mem = cast<tpu::MemAttr>(function.getResultAttr(index, "tpu.addr"));
    llvm::Expected<absl::Span<const uint8_t>> bytes =
        support::toExpected(device.global().read(
            cmd::REGION_IO, mem.getOffset(), *tpu::getTensorBytes(type)));
    if (!bytes)
      return bytes.takeError();
    outputs.emplace_back(bytes->begin(), bytes->end());
  }
  return outputs;
}

} // namespace llmc::compile
