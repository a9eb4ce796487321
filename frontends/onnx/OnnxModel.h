//===- OnnxModel.h - an ONNX model file and its initializers ---*- C++ -*-===//
//
// Reads an ONNX ModelProto (the ONNX library's protobuf classes) and serves
// its initializers as a WeightSource: tensors stored inline (raw_data or the
// typed data fields) and tensors in external data files beside the model
// (ONNX's `location`/`offset`/`length`), which are memory-mapped. Everything
// is checked when the file is opened (types, sizes, external ranges), so
// later reads cannot fail on a malformed file; errors name the file and the
// tensor.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_ONNX_ONNXMODEL_H
#define LLMC_FRONTENDS_ONNX_ONNXMODEL_H

#include "plugins/WeightSource.h"

#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

namespace llmc::onnx {

class OnnxModel : public plugins::WeightSource {
public:
  /// Parses `path` and indexes its initializers.
  static llvm::Expected<std::unique_ptr<OnnxModel>> open(llvm::StringRef path);
  /// Parses a model held in memory; its identifier is the model's path (for
  /// messages, and external data files are found beside it).
  static llvm::Expected<std::unique_ptr<OnnxModel>>
  parse(llvm::MemoryBufferRef buffer);

  const ::onnx::ModelProto &getProto() const { return proto; }
  const ::onnx::GraphProto &getGraph() const { return proto.graph(); }
  /// The opset of the default (`ai.onnx`) domain.
  int64_t getOpsetVersion() const { return opsetVersion; }
  llvm::StringRef getPath() const { return path; }

  bool isInitializer(llvm::StringRef name) const { return tensors.count(name); }

  /// Serves `values` as a float32 tensor `name` of `shape` beside the
  /// file's initializers: a table the importer computed from the graph.
  /// Returns false when the name is taken.
  bool addComputedTensor(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<float> values);

  std::vector<std::string> getTensorNames() const override;
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override;
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override;
  std::string describe() const override { return path; }

private:
  struct Tensor {
    plugins::TensorInfo info;
    llvm::ArrayRef<uint8_t> bytes;
  };

  explicit OnnxModel(std::string path) : path(std::move(path)) {}
  llvm::Error indexInitializer(const ::onnx::TensorProto &tensor);
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getExternalBytes(const ::onnx::TensorProto &tensor, int64_t expected);

  std::string path;
  ::onnx::ModelProto proto;
  int64_t opsetVersion = 0;
  llvm::StringMap<Tensor> tensors;
  /// Bytes converted from the typed data fields (float_data, int64_data...).
  std::vector<std::vector<uint8_t>> converted;
  /// External data files by location.
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> externalFiles;
};

} // namespace llmc::onnx

#endif // LLMC_FRONTENDS_ONNX_ONNXMODEL_H
