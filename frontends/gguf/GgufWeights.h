//===- GgufWeights.h - the tensors of a GGUF file --------------*- C++ -*-===//
//
// A WeightSource over a GgufFile. Shapes are row-major like every other
// frontend's (ggml's ne reversed). F32, F16, BF16 and integer tensors are
// served as stored, from the mapping. Block-quantized tensors (Q8_0, Q4_0,
// Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K) are served as float32, dequantized
// exactly as ggml does on first use and kept; Q8_0 and Q4_0 matrices are
// also served as stored quantized weights, which weight-only quantized
// matmuls with group 32 read without requantization.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_GGUFWEIGHTS_H
#define LLMC_FRONTENDS_GGUF_GGUFWEIGHTS_H

#include "frontends/gguf/GgufFile.h"
#include "plugins/WeightSource.h"

#include <mutex>

namespace llmc::gguf {

class GgufWeights : public plugins::WeightSource {
public:
  explicit GgufWeights(std::unique_ptr<GgufFile> file)
      : file(std::move(file)) {}

  std::vector<std::string> getTensorNames() const override;
  /// An error naming the tensor for ggml types llmc cannot read (f64, the
  /// IQ and ternary types, q2_K, q3_K, ...).
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override;
  /// Quantized tensors: their dequantized float32 values, computed once
  /// (thread-safe) and kept for the source's lifetime.
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return file->getPath().str(); }
  /// Q8_0 and Q4_0 matrices (StoredBlocks.h).
  std::optional<plugins::StoredQuantization>
  getStoredQuantization(llvm::StringRef name) const override;
  llvm::Expected<plugins::StoredQuantizedTensor>
  getStoredQuantized(llvm::StringRef name) const override;

  const GgufFile &getFile() const { return *file; }

private:
  llvm::Expected<const TensorEntry &> find(llvm::StringRef name) const;

  std::unique_ptr<GgufFile> file;
  mutable std::mutex dequantizedMutex;
  /// Dequantized tensors by name; entries never move once inserted.
  mutable llvm::StringMap<std::vector<float>> dequantized;
};

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_GGUFWEIGHTS_H
