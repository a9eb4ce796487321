//===- PackedLayer.h - one pre-quantized Linear layer ----------*- C++ -*-===//
//
// The packed tensors of one quantized Linear module of a GPTQ, AWQ, AutoRound
// or compressed-tensors checkpoint, checked when opened and unpacked into
// the [N, K] integers, scales and zero points a weight-only matmul reads, in
// the layout plugins::StoredQuantizedTensor describes. Unpacking reproduces
// the integers the quantizer produced, so (q - zp) * scale are the
// checkpoint's own dequantized weights.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_PACKEDLAYER_H
#define LLMC_FRONTENDS_HF_PACKEDLAYER_H

#include "frontends/hf/QuantizationConfig.h"
#include "frontends/hf/Safetensors.h"

#include <string>

namespace llmc::hf {

class PackedLayer {
public:
  /// The tensor of a module that marks it as packed (`qweight`,
  /// `weight_packed`).
  static llvm::StringRef getMarkerPart(PackingFormat format);
  /// Every tensor a packed module may consist of.
  static llvm::ArrayRef<llvm::StringRef> getPartNames(PackingFormat format);

  /// Checks the packed tensors of module `prefix` (`model.layers.0.mlp.up_proj`)
  /// in `source`: presence, element types and shapes consistent with
  /// `config`. Errors name the shard and the tensor.
  static llvm::Expected<PackedLayer>
  open(const PackedQuantizationConfig &config, const SafetensorsSource &source,
       llvm::StringRef prefix);

  /// The weight's shape [N, K] (output, input channels).
  int64_t getRows() const { return rows; }
  int64_t getCols() const { return cols; }
  plugins::StoredQuantization getQuantization() const { return quantization; }
  /// The full name of the module's marker tensor, for messages.
  std::string getMarkerName() const {
    return part(getMarkerPart(config.format));
  }

  /// The unpacked integers, scales and zero points. Zero points that the
  /// scheme cannot hold (a symmetric layer's that is not 2^(bits-1), a GPTQ
  /// v1 zero that overflows) are errors naming the tensor.
  ///
  /// An act-order layer (`desc_act`: a group index that does not put
  /// consecutive channels in each group) is served with one group per input
  /// channel, each channel carrying its group's scale and zero point: exact,
  /// at the cost of one scale per weight.
  llvm::Expected<plugins::StoredQuantizedTensor> unpack() const;

private:
  PackedLayer(const PackedQuantizationConfig &config,
              const SafetensorsSource &source, std::string prefix)
      : config(config), source(&source), prefix(std::move(prefix)) {}

  std::string part(llvm::StringRef name) const { return prefix + "." + name.str(); }
  llvm::Error fail(llvm::StringRef name, const llvm::Twine &problem) const;
  /// Checks that `name` exists with type I32 (or `type`) and `shape`.
  llvm::Error expect(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                     plugins::WeightType type = plugins::WeightType::I32) const;
  /// The words of I32 tensor `name`, as unsigned.
  std::vector<uint32_t> readWords(llvm::StringRef name) const;
  /// The integers and the parameters of the stored groups.
  llvm::Expected<plugins::StoredQuantizedTensor> unpackGroups() const;
  /// Reads the optional group index; keeps it only when it is not plain
  /// consecutive groups.
  llvm::Error readGroupIndex(llvm::StringRef name);

  PackedQuantizationConfig config;
  const SafetensorsSource *source;
  std::string prefix;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t groups = 1;
  /// The group of each input channel, for act-order layers only.
  std::vector<int32_t> actOrderGroups;
  plugins::StoredQuantization quantization;
};

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_PACKEDLAYER_H
