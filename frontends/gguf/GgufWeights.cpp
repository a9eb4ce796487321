//===- GgufWeights.cpp - the tensors of a GGUF file -----------------------===//

#include "frontends/gguf/GgufWeights.h"

#include "frontends/gguf/Dequantize.h"
#include "frontends/gguf/StoredBlocks.h"

#include "llvm/ADT/STLExtras.h"

#include <optional>

using llmc::plugins::TensorInfo;
using llmc::plugins::WeightType;

namespace llmc::gguf {
namespace {

/// The WeightType a tensor stored as `type` is served as as-is.
std::optional<WeightType> getServedType(GgmlType type) {
  switch (type) {
  case GgmlType::F32: return WeightType::F32;
  case GgmlType::F16: return WeightType::F16;
  case GgmlType::BF16: return WeightType::BF16;
  case GgmlType::I8: return WeightType::I8;
  case GgmlType::I16: return WeightType::I16;
  case GgmlType::I32: return WeightType::I32;
  case GgmlType::I64: return WeightType::I64;
  default: return std::nullopt;
  }
}

} // namespace

llvm::Expected<const TensorEntry &>
GgufWeights::find(llvm::StringRef name) const {
  const TensorEntry *tensor = file->findTensor(name);
  if (!tensor)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   file->getPath() + ": no tensor '" + name +
                                       "'");
  return *tensor;
}

std::vector<std::string> GgufWeights::getTensorNames() const {
  std::vector<std::string> names;
  for (const TensorEntry &tensor : file->getTensors())
    names.push_back(tensor.name);
  llvm::sort(names);
  return names;
}

llvm::Expected<TensorInfo>
GgufWeights::getTensorInfo(llvm::StringRef name) const {
  llvm::Expected<const TensorEntry &> tensor = find(name);
  if (!tensor)
    return tensor.takeError();
  TensorInfo info;
  info.shape = tensor->getShape();
  if (std::optional<WeightType> type = getServedType(tensor->type))
    info.type = *type;
  else if (isDequantizable(tensor->type))
    info.type = WeightType::F32;
  else
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        file->getPath() + ": tensor '" + name + "' has ggml type " +
            stringifyGgmlType(tensor->type) +
            ", which llmc does not read (it reads f32, f16, bf16, integer "
            "types, q4_0, q4_1, q5_0, q5_1, q8_0, q4_K, q5_K and q6_K)");
  return info;
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
GgufWeights::getTensorData(llvm::StringRef name) const {
  llvm::Expected<TensorInfo> info = getTensorInfo(name);
  if (!info)
    return info.takeError();
  const TensorEntry &tensor = *file->findTensor(name);
  if (getServedType(tensor.type))
    return file->getBytes(tensor);

  std::lock_guard<std::mutex> lock(dequantizedMutex);
  auto [it, inserted] = dequantized.try_emplace(name);
  std::vector<float> &values = it->second;
  if (inserted) {
    values.resize(tensor.numElements);
    dequantize(tensor.type, file->getBytes(tensor).data(),
               tensor.numElements, values.data());
  }
  return llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(values.data()),
                                 values.size() * sizeof(float));
}

std::optional<plugins::StoredQuantization>
GgufWeights::getStoredQuantization(llvm::StringRef name) const {
  const TensorEntry *tensor = file->findTensor(name);
  if (!tensor || tensor->getShape().size() != 2)
    return std::nullopt;
  return gguf::getStoredQuantization(tensor->type);
}

llvm::Expected<plugins::StoredQuantizedTensor>
GgufWeights::getStoredQuantized(llvm::StringRef name) const {
  if (!getStoredQuantization(name))
    return WeightSource::getStoredQuantized(name);
  const TensorEntry &tensor = *file->findTensor(name);
  llvm::SmallVector<int64_t> shape = tensor.getShape();
  return unpackBlocks(tensor.type, file->getBytes(tensor).data(), shape[0],
                      shape[1]);
}

} // namespace llmc::gguf
