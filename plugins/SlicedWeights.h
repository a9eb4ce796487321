//===- SlicedWeights.h - tensors made of another tensor's rows --*- C++ -*-===//
//
// Checkpoints that fuse projections (Phi-3's qkv_proj and gate_up_proj,
// InternLM2's wqkv grouped by key/value head) store as one tensor what the
// graph reads as several. A SlicedWeightSource serves each part as a tensor
// of its own, made of row ranges of the fused one, so the graph and the
// quantizers see ordinary [N, K] Linear weights.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PLUGINS_SLICEDWEIGHTS_H
#define LLMC_PLUGINS_SLICEDWEIGHTS_H

#include "plugins/WeightSource.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace llmc::plugins {

/// Tensor `name` is the rows [first, first + count) of each range of tensor
/// `source`, in order.
struct RowSlice {
  std::string name;
  std::string source;
  std::vector<std::pair<int64_t, int64_t>> rowRanges;

  int64_t getRows() const;
};

/// The name of part `part` of fused tensor `fused`: `fused:part`. No
/// checkpoint or derived name holds a colon.
std::string getSliceName(llvm::StringRef fused, llvm::StringRef part);

/// The tensor a checkpoint stores for `name` read through `weights`: the
/// fused tensor when `name` is a part of one, else `name` itself.
llvm::StringRef getStoredTensorName(const WeightSource &weights,
                                    llvm::StringRef name);

class SlicedWeightSource : public WeightSource {
public:
  /// Checks every slice against `base` (the source exists, the ranges lie in
  /// its rows, the name is new) and fails naming the tensor otherwise.
  static llvm::Expected<std::unique_ptr<SlicedWeightSource>>
  create(std::unique_ptr<WeightSource> base, std::vector<RowSlice> slices);

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<TensorInfo> getTensorInfo(llvm::StringRef name) const override;
  /// A slice's bytes are copied from its source on first use and kept until
  /// releaseTensor.
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return base->describe(); }
  std::optional<StoredQuantization>
  getStoredQuantization(llvm::StringRef name) const override;
  llvm::Expected<StoredQuantizedTensor>
  getStoredQuantized(llvm::StringRef name) const override;
  void releaseTensor(llvm::StringRef name) const override;

  const WeightSource &getBase() const { return *base; }
  /// The slice named `name`, null for a tensor of the base.
  const RowSlice *findSlice(llvm::StringRef name) const;

private:
  SlicedWeightSource(std::unique_ptr<WeightSource> base,
                     std::vector<RowSlice> slices);

  std::unique_ptr<WeightSource> base;
  std::vector<RowSlice> slices;
  llvm::StringMap<size_t> sliceIndex;
  /// Pieces compile in parallel: the copies are made under a lock, and a
  /// copy's bytes stay put until it is released.
  mutable std::mutex mutex;
  mutable llvm::StringMap<std::unique_ptr<std::vector<uint8_t>>> copies;
};

} // namespace llmc::plugins

#endif // LLMC_PLUGINS_SLICEDWEIGHTS_H
