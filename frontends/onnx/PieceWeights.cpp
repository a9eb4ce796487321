//===- PieceWeights.cpp - the tensors of a model exported as pieces -------===//

#include "frontends/onnx/PieceWeights.h"

#include <cstring>

namespace llmc::onnx {

static llvm::Error weightsError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

size_t PieceWeights::addModel(std::unique_ptr<OnnxModel> model) {
  models.push_back(std::move(model));
  return models.size() - 1;
}

llvm::Error PieceWeights::addTensor(llvm::StringRef name, size_t model,
                                    const InitializerRef &source) {
  const OnnxModel &file = *models[model];
  llvm::Expected<plugins::TensorInfo> info = file.getTensorInfo(source.name);
  if (!info)
    return info.takeError();
  if (source.transposed) {
    if (info->shape.size() != 2)
      return weightsError(file.getPath() + ": initializer '" + source.name +
                          "' is a Linear weight but not a matrix");
    std::swap(info->shape[0], info->shape[1]);
  }
  if (!entries.try_emplace(name, Entry{&file, source, *info}).second)
    return weightsError(description + ": two initializers are '" + name + "'");
  return llvm::Error::success();
}

std::vector<std::string> PieceWeights::getTensorNames() const {
  std::vector<std::string> names;
  for (const auto &entry : entries)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

llvm::Expected<plugins::TensorInfo>
PieceWeights::getTensorInfo(llvm::StringRef name) const {
  auto found = entries.find(name);
  if (found == entries.end())
    return weightsError(description + ": no tensor '" + name + "'");
  return found->second.info;
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
PieceWeights::getTensorData(llvm::StringRef name) const {
  auto found = entries.find(name);
  if (found == entries.end())
    return weightsError(description + ": no tensor '" + name + "'");
  const Entry &entry = found->second;
  llvm::Expected<llvm::ArrayRef<uint8_t>> stored =
      entry.model->getTensorData(entry.source.name);
  if (!stored || !entry.source.transposed)
    return stored;
  std::lock_guard<std::mutex> lock(mutex);
  auto [cached, inserted] = transposed.try_emplace(name);
  if (inserted) {
    // Served [out, in] from [in, out] = [cols, rows] storage.
    int64_t rows = entry.info.shape[0], cols = entry.info.shape[1];
    int64_t size = plugins::getWeightTypeSize(entry.info.type);
    cached->second.resize(stored->size());
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t col = 0; col < cols; ++col)
        std::memcpy(&cached->second[(row * cols + col) * size],
                    &(*stored)[(col * rows + row) * size], size);
  }
  return llvm::ArrayRef<uint8_t>(cached->second);
}

} // namespace llmc::onnx
