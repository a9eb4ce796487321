//===- PrequantizedWeights.cpp - packed Linear weights as tensors ---------===//

#include "frontends/hf/PrequantizedWeights.h"

using llmc::plugins::StoredQuantization;
using llmc::plugins::StoredQuantizedTensor;
using llmc::plugins::TensorInfo;
using llmc::plugins::WeightType;

namespace llmc::hf {

llvm::Expected<std::unique_ptr<PrequantizedWeights>>
PrequantizedWeights::open(const PackedQuantizationConfig &config,
                          std::unique_ptr<SafetensorsSource> base) {
  std::unique_ptr<PrequantizedWeights> weights(
      new PrequantizedWeights(config, std::move(base)));
  std::string marker = "." + PackedLayer::getMarkerPart(config.format).str();
  for (const std::string &name : weights->base->getTensorNames()) {
    llvm::StringRef module(name);
    if (!module.consume_back(marker))
      continue;
    llvm::Expected<PackedLayer> layer =
        PackedLayer::open(config, *weights->base, module);
    if (!layer)
      return layer.takeError();
    std::string served = module.str() + ".weight";
    if (!weights->base->getTensorFile(served).empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          weights->base->getTensorFile(served) + ": tensor '" + served +
              "' is stored both unquantized and packed");
    weights->layers.emplace(served, std::move(*layer));
    for (llvm::StringRef part : PackedLayer::getPartNames(config.format))
      weights->hidden.insert(module.str() + "." + part.str());
  }
  if (weights->layers.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        weights->base->describe() + ": config.json has a " + config.method +
            " quantization_config, but no tensor is named '*" + marker + "'");
  return weights;
}

const PackedLayer *PrequantizedWeights::findLayer(llvm::StringRef name) const {
  auto it = layers.find(name);
  return it == layers.end() ? nullptr : &it->second;
}

std::vector<std::string> PrequantizedWeights::getTensorNames() const {
  std::vector<std::string> names;
  for (const std::string &name : base->getTensorNames())
    if (!hidden.contains(name))
      names.push_back(name);
  for (const auto &entry : layers)
    names.push_back(entry.first);
  llvm::sort(names);
  return names;
}

llvm::Expected<TensorInfo>
PrequantizedWeights::getTensorInfo(llvm::StringRef name) const {
  if (const PackedLayer *layer = findLayer(name))
    return TensorInfo{WeightType::F32, {layer->getRows(), layer->getCols()}};
  return base->getTensorInfo(name);
}

llvm::Expected<llvm::ArrayRef<uint8_t>>
PrequantizedWeights::getTensorData(llvm::StringRef name) const {
  const PackedLayer *layer = findLayer(name);
  if (!layer)
    return base->getTensorData(name);
  std::lock_guard<std::mutex> lock(dequantizedMutex);
  auto it = dequantized.find(name);
  if (it == dequantized.end()) {
    llvm::Expected<StoredQuantizedTensor> stored = layer->unpack();
    if (!stored)
      return stored.takeError();
    const StoredQuantization &scheme = stored->quantization;
    int64_t groupSize = scheme.groupSize > 0 ? scheme.groupSize : stored->cols;
    int64_t groups = stored->cols / groupSize;
    std::vector<float> values(stored->rows * stored->cols);
    for (int64_t n = 0; n < stored->rows; ++n)
      for (int64_t k = 0; k < stored->cols; ++k) {
        int64_t group = n * groups + k / groupSize;
        uint8_t q = stored->values[n * stored->cols + k];
        float integer = scheme.asymmetric
                            ? static_cast<float>(q) - stored->zeroPoints[group]
                            : static_cast<float>(static_cast<int8_t>(q));
        values[n * stored->cols + k] = integer * stored->scales[group];
      }
    it = dequantized.emplace(name.str(), std::move(values)).first;
  }
  const std::vector<float> &values = it->second;
  return llvm::ArrayRef(reinterpret_cast<const uint8_t *>(values.data()),
                        values.size() * sizeof(float));
}

std::optional<StoredQuantization>
PrequantizedWeights::getStoredQuantization(llvm::StringRef name) const {
  if (const PackedLayer *layer = findLayer(name))
    return layer->getQuantization();
  return std::nullopt;
}

llvm::Expected<StoredQuantizedTensor>
PrequantizedWeights::getStoredQuantized(llvm::StringRef name) const {
  if (const PackedLayer *layer = findLayer(name))
    return layer->unpack();
  return WeightSource::getStoredQuantized(name);
}

llvm::StringRef PrequantizedWeights::getTensorFile(llvm::StringRef name) const {
  if (const PackedLayer *layer = findLayer(name))
    return base->getTensorFile(layer->getMarkerName());
  if (hidden.contains(name))
    return {};
  return base->getTensorFile(name);
}

} // namespace llmc::hf
