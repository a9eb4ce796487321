//===- WeightSource.cpp - named tensors of a model, read on demand --------===//

#include "plugins/WeightSource.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

namespace llmc::plugins {

llvm::StringRef stringifyWeightType(WeightType type) {
  switch (type) {
  case WeightType::F32: return "f32";
  case WeightType::F16: return "f16";
  case WeightType::BF16: return "bf16";
  case WeightType::I8: return "i8";
  case WeightType::I16: return "i16";
  case WeightType::I32: return "i32";
  case WeightType::I64: return "i64";
  case WeightType::U8: return "u8";
  }
  llvm_unreachable("unknown weight type");
}

int64_t getWeightTypeSize(WeightType type) {
  switch (type) {
  case WeightType::I8:
  case WeightType::U8: return 1;
  case WeightType::F16:
  case WeightType::BF16:
  case WeightType::I16: return 2;
  case WeightType::F32:
  case WeightType::I32: return 4;
  case WeightType::I64: return 8;
  }
  llvm_unreachable("unknown weight type");
}

int64_t TensorInfo::getNumElements() const {
  // A zero dimension first: the product of the others may not fit int64
  // (a file's shape such as [2^40, 2^40, 0] holds no bytes to bound them).
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

WeightSource::~WeightSource() = default;

std::optional<StoredQuantization>
WeightSource::getStoredQuantization(llvm::StringRef) const {
  return std::nullopt;
}

llvm::Expected<StoredQuantizedTensor>
WeightSource::getStoredQuantized(llvm::StringRef name) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 describe() + ": tensor '" + name +
                                     "' is not stored quantized");
}

template <typename T>
static void convertIntegers(const uint8_t *data, int64_t count, float *out) {
  for (int64_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, data + i * sizeof(T), sizeof(T));
    out[i] = static_cast<float>(value);
  }
}

void convertToF32(WeightType type, const uint8_t *data, int64_t count,
                  float *out) {
  switch (type) {
  case WeightType::F32:
    std::memcpy(out, data, count * sizeof(float));
    return;
  case WeightType::F16:
  case WeightType::BF16:
    for (int64_t i = 0; i < count; ++i) {
      uint16_t bits;
      std::memcpy(&bits, data + 2 * i, 2);
      out[i] = type == WeightType::F16 ? halfToFloat(bits)
                                       : bfloat16ToFloat(bits);
    }
    return;
  case WeightType::I8: return convertIntegers<int8_t>(data, count, out);
  case WeightType::U8: return convertIntegers<uint8_t>(data, count, out);
  case WeightType::I16: return convertIntegers<int16_t>(data, count, out);
  case WeightType::I32: return convertIntegers<int32_t>(data, count, out);
  case WeightType::I64: return convertIntegers<int64_t>(data, count, out);
  }
}

void WeightSource::releaseTensor(llvm::StringRef) const {}

llvm::Error WeightSource::readAsF32(llvm::StringRef name,
                                    llvm::MutableArrayRef<float> out) const {
  llvm::Expected<TensorInfo> info = getTensorInfo(name);
  if (!info)
    return info.takeError();
  if (info->getNumElements() != static_cast<int64_t>(out.size()))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: tensor '%s' has %lld elements, %zu were expected",
        describe().c_str(), name.str().c_str(),
        static_cast<long long>(info->getNumElements()), out.size());
  llvm::Expected<llvm::ArrayRef<uint8_t>> data = getTensorData(name);
  if (!data)
    return data.takeError();
  convertToF32(info->type, data->data(), info->getNumElements(), out.data());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// EmptyWeightSource
//===----------------------------------------------------------------------===//

llvm::Expected<TensorInfo>
EmptyWeightSource::getTensorInfo(llvm::StringRef name) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "no tensor '%s'", name.str().c_str());
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
EmptyWeightSource::getTensorData(llvm::StringRef name) const {
  return getTensorInfo(name).takeError();
}

//===----------------------------------------------------------------------===//
// OverlayWeightSource
//===----------------------------------------------------------------------===//

OverlayWeightSource::OverlayWeightSource(std::unique_ptr<WeightSource> base)
    : base(std::move(base)) {}

llvm::Error OverlayWeightSource::addTensor(llvm::StringRef name,
                                           llvm::ArrayRef<int64_t> shape,
                                           std::vector<float> values) {
  OwnedTensor tensor;
  tensor.info.type = WeightType::F32;
  tensor.info.shape.assign(shape.begin(), shape.end());
  if (tensor.info.getNumElements() != static_cast<int64_t>(values.size()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "generated tensor '%s' has %zu values for "
                                   "its shape",
                                   name.str().c_str(), values.size());
  if (llvm::Expected<TensorInfo> existing = base->getTensorInfo(name))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "generated tensor '%s' would shadow the "
                                   "checkpoint's tensor of that name",
                                   name.str().c_str());
  else
    llvm::consumeError(existing.takeError());
  tensor.values = std::move(values);
  if (!own.try_emplace(name, std::move(tensor)).second)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "generated tensor '%s' is added twice",
                                   name.str().c_str());
  return llvm::Error::success();
}

std::vector<std::string> OverlayWeightSource::getTensorNames() const {
  // addTensor keeps generated names distinct from the base's.
  std::vector<std::string> names = base->getTensorNames();
  for (const auto &entry : own)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

llvm::Expected<TensorInfo>
OverlayWeightSource::getTensorInfo(llvm::StringRef name) const {
  auto it = own.find(name);
  if (it != own.end())
    return it->second.info;
  return base->getTensorInfo(name);
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
OverlayWeightSource::getTensorData(llvm::StringRef name) const {
  auto it = own.find(name);
  if (it != own.end())
    return llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(it->second.values.data()),
        it->second.values.size() * sizeof(float));
  return base->getTensorData(name);
}

std::string OverlayWeightSource::describe() const { return base->describe(); }

void OverlayWeightSource::releaseTensor(llvm::StringRef name) const {
  // Own tensors are small tables; the base holds the checkpoint.
  if (!own.count(name))
    base->releaseTensor(name);
}

std::optional<StoredQuantization>
OverlayWeightSource::getStoredQuantization(llvm::StringRef name) const {
  return own.count(name) ? std::nullopt : base->getStoredQuantization(name);
}

llvm::Expected<StoredQuantizedTensor>
OverlayWeightSource::getStoredQuantized(llvm::StringRef name) const {
  if (own.count(name))
    return WeightSource::getStoredQuantized(name);
  return base->getStoredQuantized(name);
}

} // namespace llmc::plugins
