//===- Safetensors.h - memory-mapped safetensors weights -------*- C++ -*-===//
//
// A WeightSource over the safetensors files of a checkpoint: one file, or the
// shards that a `model.safetensors.index.json` lists. Every file is
// memory-mapped and its header validated when opened; tensor bytes are pages
// of the mapping, touched only when a caller reads them.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_SAFETENSORS_H
#define LLMC_FRONTENDS_HF_SAFETENSORS_H

#include "plugins/WeightSource.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace llmc::hf {

class SafetensorsSource : public plugins::WeightSource {
public:
  /// Opens one safetensors file.
  static llvm::Expected<std::unique_ptr<SafetensorsSource>>
  openFile(llvm::StringRef path);

  /// Opens a sharded checkpoint: the shards named by the `weight_map` of the
  /// index file at `indexPath`, relative to the index's directory. Exactly
  /// the tensors the index lists are exposed, each from the shard it names.
  static llvm::Expected<std::unique_ptr<SafetensorsSource>>
  openSharded(llvm::StringRef indexPath);

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return description; }
  /// Gives the tensor's whole mapped pages back to the system; they read
  /// back from the file if the tensor is asked for again.
  void releaseTensor(llvm::StringRef name) const override;

  /// The file that stores `name` (its shard), for messages; empty when the
  /// tensor does not exist.
  llvm::StringRef getTensorFile(llvm::StringRef name) const;

private:
  struct Tensor {
    plugins::TensorInfo info;
    /// Index into `files`.
    unsigned file = 0;
    /// A slice of that file's mapping.
    llvm::ArrayRef<uint8_t> data;
  };
  struct File {
    std::string path;
    std::unique_ptr<llvm::MemoryBuffer> buffer;
  };

  explicit SafetensorsSource(std::string description)
      : description(std::move(description)) {}

  /// Maps the file at `path`, keeps the mapping and returns the file's
  /// validated tensors (not yet added to `tensors`).
  llvm::Expected<llvm::StringMap<Tensor>> mapFile(llvm::StringRef path);

  std::string description;
  std::vector<File> files;
  llvm::StringMap<Tensor> tensors;
};

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_SAFETENSORS_H
