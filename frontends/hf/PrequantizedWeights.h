//===- PrequantizedWeights.h - packed Linear weights as tensors -*- C++ -*-===//
//
// A WeightSource over the safetensors of a GPTQ, AWQ, AutoRound or
// compressed-tensors checkpoint. Each packed module `<m>` (found by its
// `<m>.qweight` or `<m>.weight_packed` tensor) is served as the tensor
// `<m>.weight` [N, K] that an unquantized checkpoint would hold, so the
// model's description names it as usual: its float32 values are the
// checkpoint's dequantized weights, (q - zp) * scale, computed on first use,
// and getStoredQuantized hands weight-only matmuls the integers and scales
// themselves, which they compile without requantizing. The packed parts are
// hidden; every other tensor passes through.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_PREQUANTIZEDWEIGHTS_H
#define LLMC_FRONTENDS_HF_PREQUANTIZEDWEIGHTS_H

#include "frontends/hf/PackedLayer.h"

#include "llvm/ADT/StringSet.h"

#include <map>
#include <mutex>

namespace llmc::hf {

class PrequantizedWeights : public plugins::WeightSource {
public:
  /// Opens every packed module of `base` (PackedLayer::open); an error names
  /// the first that does not match `config`, or says that `base` has none.
  static llvm::Expected<std::unique_ptr<PrequantizedWeights>>
  open(const PackedQuantizationConfig &config,
       std::unique_ptr<SafetensorsSource> base);

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return base->describe(); }
  std::optional<plugins::StoredQuantization>
  getStoredQuantization(llvm::StringRef name) const override;
  llvm::Expected<plugins::StoredQuantizedTensor>
  getStoredQuantized(llvm::StringRef name) const override;

  /// The shard that stores `name`, or for a served weight its packed
  /// integers; empty when there is no such tensor.
  llvm::StringRef getTensorFile(llvm::StringRef name) const;
  /// How many modules are served from packed tensors.
  size_t getNumPackedModules() const { return layers.size(); }

private:
  PrequantizedWeights(PackedQuantizationConfig config,
                      std::unique_ptr<SafetensorsSource> base)
      : config(std::move(config)), base(std::move(base)) {}

  const PackedLayer *findLayer(llvm::StringRef name) const;

  PackedQuantizationConfig config;
  std::unique_ptr<SafetensorsSource> base;
  /// By served weight name (`<m>.weight`).
  std::map<std::string, PackedLayer, std::less<>> layers;
  /// The packed parts, hidden from getTensorNames.
  llvm::StringSet<> hidden;
  mutable std::mutex dequantizedMutex;
  /// Dequantized weights by name; entries never move once inserted.
  mutable std::map<std::string, std::vector<float>, std::less<>> dequantized;
};

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_PREQUANTIZEDWEIGHTS_H
