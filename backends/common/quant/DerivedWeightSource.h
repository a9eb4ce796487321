//===- DerivedWeightSource.h - derived tensors served by name --*- C++ -*-===//
//
// A WeightSource over a checkpoint's source that also serves every derived
// tensor (DerivedWeightName.h), computed from its source tensor on first use
// and kept for the source's lifetime:
//
// - the stored parts of a quantized weight, as a binary holds them:
//     `.qweight`  8-bit: I8 [N, K] (symmetric) or U8 [N, K] (asymmetric);
//                 4-bit: U8 [N, ceil(K / 2)], two values per byte (packInt4)
//     `.scale`    F32, F16 or BF16 [N, K / G], as the derivation says
//     `.zp`       asymmetric only; U8 [N, K / G], or packed like a 4-bit
//                 `.qweight` for 4-bit weights
// - the logical tensors the reference interpreter reads, as F32 with the
//   source's shape: `<source>#w4_...` is the dequantized weight and
//   `<source>#f16` the source rounded to f16 and widened back.
//
// So one source feeds both the binary writer (the lowered module's names)
// and the top interpreter running the weights a quantized binary uses.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_QUANT_DERIVEDWEIGHTSOURCE_H
#define LLMC_BACKENDS_COMMON_QUANT_DERIVEDWEIGHTSOURCE_H

#include "backends/common/quant/DerivedWeightName.h"
#include "plugins/WeightSource.h"

#include "llvm/ADT/StringMap.h"

#include <mutex>

namespace llmc::quant {

class DerivedWeightSource : public plugins::WeightSource {
public:
  /// Derives from `base`, which must outlive this source.
  explicit DerivedWeightSource(const plugins::WeightSource &base);

  /// Lists the derived tensor `name` in getTensorNames (every derived name
  /// is served whether listed or not). Fails when `name` is not a derived
  /// name or its source cannot be derived that way.
  llvm::Error addDerivedName(llvm::StringRef name);

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override;
  /// Drops what was derived from source tensor `name` (quantized values,
  /// served bytes) and passes the release on to the base.
  void releaseTensor(llvm::StringRef name) const override;

private:
  llvm::Expected<plugins::TensorInfo>
  getDerivedInfo(const DerivedWeightName &name) const;
  /// Quantizes the source of `name` once per scheme (computed outside the
  /// lock; callers racing on one weight may both compute it).
  llvm::Expected<const QuantizedTensor *>
  getQuantized(const DerivedWeightName &name) const;
  llvm::Expected<std::vector<uint8_t>>
  computeBytes(const DerivedWeightName &name) const;

  const plugins::WeightSource &base;
  std::vector<std::string> listed;
  mutable std::mutex mutex;
  /// Keyed by `<source>#<derivation>`.
  mutable llvm::StringMap<QuantizedTensor> quantized;
  /// The bytes of every derived tensor served so far, keyed by name.
  mutable llvm::StringMap<std::vector<uint8_t>> served;
};

} // namespace llmc::quant

#endif // LLMC_BACKENDS_COMMON_QUANT_DERIVEDWEIGHTSOURCE_H
