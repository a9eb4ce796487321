//===- GgufCheckpoint.cpp - loads a GGUF checkpoint -----------------------===//

#include "frontends/gguf/GgufCheckpoint.h"

#include "frontends/gguf/GgufSpec.h"
#include "frontends/gguf/GgufWeights.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

using llmc::plugins::ModelSpec;
using llmc::plugins::TensorInfo;
using llmc::plugins::TensorRole;
using llmc::plugins::WeightType;

namespace llmc::gguf {
namespace {

std::string printShape(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t dim) { return std::to_string(dim); }),
                    ", ") +
         "]";
}

/// The graph builder reads tensors by role without re-checking them, so a
/// file whose tensors disagree with its metadata is rejected here, where the
/// message can still name the file.
llvm::Error checkTensors(const ModelSpec &spec, const GgufWeights &weights) {
  for (const auto &[role, pattern] : spec.tensorNames) {
    llvm::SmallVector<int64_t> expected = plugins::getExpectedShape(spec, role);
    bool perLayer = llvm::StringRef(pattern).contains("{layer}");
    for (int64_t layer = 0, e = perLayer ? spec.numLayers : 1; layer < e;
         ++layer) {
      std::string name = llvm::cantFail(spec.tensorName(role, layer));
      auto fail = [&](const llvm::Twine &problem) {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       spec.source + ": tensor '" + name +
                                           "' (" +
                                           plugins::stringifyTensorRole(role) +
                                           ") " + problem);
      };
      if (!weights.getFile().findTensor(name))
        return fail("is missing from the file");
      llvm::Expected<TensorInfo> info = weights.getTensorInfo(name);
      if (!info)
        return info.takeError();
      if (info->type != WeightType::F32 && info->type != WeightType::F16 &&
          info->type != WeightType::BF16)
        return fail("has type " + plugins::stringifyWeightType(info->type) +
                    ", expected a floating-point or quantized type");
      if (llvm::ArrayRef<int64_t>(info->shape) != llvm::ArrayRef(expected))
        return fail("has shape " + printShape(info->shape) + ", expected " +
                    printShape(expected));
    }
  }
  return llvm::Error::success();
}

} // namespace

bool isGgufFile(llvm::StringRef path) {
  if (!llvm::sys::fs::is_regular_file(path))
    return false;
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file) {
    llvm::consumeError(file.takeError());
    return false;
  }
  char magic[4];
  llvm::Expected<size_t> read =
      llvm::sys::fs::readNativeFile(*file, llvm::MutableArrayRef(magic));
  llvm::sys::fs::closeFile(*file);
  if (!read) {
    llvm::consumeError(read.takeError());
    return false;
  }
  return *read == 4 && llvm::StringRef(magic, 4) == "GGUF";
}

llvm::Expected<plugins::Checkpoint> loadCheckpoint(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<GgufFile>> file = GgufFile::open(path);
  if (!file)
    return file.takeError();
  llvm::Expected<ModelSpec> spec = readModelSpec(**file);
  if (!spec)
    return spec.takeError();
  auto weights = std::make_unique<GgufWeights>(std::move(*file));
  if (llvm::Error error = checkTensors(*spec, *weights))
    return std::move(error);
  plugins::Checkpoint checkpoint;
  checkpoint.spec = std::move(*spec);
  checkpoint.weights = std::move(weights);
  return checkpoint;
}

} // namespace llmc::gguf
