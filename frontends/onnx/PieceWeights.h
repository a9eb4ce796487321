//===- PieceWeights.h - the tensors of a model exported as pieces -*- C++
//-*-===//
//
// A WeightSource over the ONNX files of one model: each tensor llmc reads is
// an initializer of one file, named after its role in the Hugging Face
// scheme (`model.layers.3.mlp.up_proj.weight`), because initializer names
// are only unique within a file and exporters generate them
// (`onnx::MatMul_244`). Linear weights that a file stores [in, out] for
// ONNX's MatMul are served [out, in], transposed once on first read.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_ONNX_PIECEWEIGHTS_H
#define LLMC_FRONTENDS_ONNX_PIECEWEIGHTS_H

#include "frontends/onnx/OnnxModel.h"
#include "frontends/onnx/PieceAnalysis.h"

#include <mutex>

namespace llmc::onnx {

class PieceWeights : public plugins::WeightSource {
public:
  explicit PieceWeights(std::string description)
      : description(std::move(description)) {}

  /// Takes a file; returns its index for addTensor.
  size_t addModel(std::unique_ptr<OnnxModel> model);
  /// Serves initializer `source` of file `model` as `name`; fails when the
  /// initializer is missing, a transposed one is not a matrix, or `name`
  /// is taken.
  llvm::Error addTensor(llvm::StringRef name, size_t model,
                        const InitializerRef &source);

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return description; }

private:
  struct Entry {
    const OnnxModel *model;
    InitializerRef source;
    plugins::TensorInfo info;
  };

  std::string description;
  std::vector<std::unique_ptr<OnnxModel>> models;
  llvm::StringMap<Entry> entries;
  mutable std::mutex mutex;
  /// Transposed tensors by name; entries never move once inserted.
  mutable llvm::StringMap<std::vector<uint8_t>> transposed;
};

} // namespace llmc::onnx

#endif // LLMC_FRONTENDS_ONNX_PIECEWEIGHTS_H
