//===- GgufCheckpoint.cpp - loads a GGUF checkpoint -----------------------===//

#include "frontends/gguf/GgufCheckpoint.h"

#include "frontends/gguf/Dequantize.h"
#include "frontends/gguf/GgufSpec.h"
#include "frontends/gguf/GgufWeights.h"
#include "frontends/llm/families/Family.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <map>
#include <set>

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
llvm::Error checkTensors(const ModelSpec &spec, const GgufWeights &file,
                         const plugins::WeightSource &weights) {
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
      if (!file.getFile().findTensor(
              plugins::getStoredTensorName(weights, name)))
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

/// Says which of the model's tensors are block-quantized in a type that does
/// not compile as stored (q4_1, q5_*, the k-quants): they are dequantized, so
/// a weight-only mode requantizes them with its own scheme.
std::optional<std::string>
describeConvertedTensors(const ModelSpec &spec, const GgufWeights &file,
                         const plugins::WeightSource &weights) {
  std::map<std::string, int64_t> countByType;
  std::set<std::string> seen;
  for (const auto &[role, pattern] : spec.tensorNames)
    for (int64_t layer = 0; layer < spec.numLayers; ++layer) {
      std::string roleName = llvm::cantFail(spec.tensorName(role, layer));
      llvm::StringRef name = plugins::getStoredTensorName(weights, roleName);
      const TensorEntry *tensor = file.getFile().findTensor(name);
      if (!seen.insert(name.str()).second || !isDequantizable(tensor->type) ||
          file.getStoredQuantization(name))
        continue;
      ++countByType[stringifyGgmlType(tensor->type).str()];
    }
  if (countByType.empty())
    return std::nullopt;
  std::string types = llvm::join(
      llvm::map_range(countByType,
                      [](const auto &entry) {
                        return std::to_string(entry.second) + " " + entry.first;
                      }),
      ", ");
  return spec.source + ": " + types +
         " tensor(s) are dequantized to f32 (only q8_0, q4_0 and q4_1 compile "
         "as "
         "stored); weight-only modes requantize them with their own scheme";
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
  const GgufWeights &stored = *weights;
  // The family says which tensors the file fuses (phi3's attn_qkv); their
  // parts are served as tensors of their own.
  llvm::Expected<std::unique_ptr<plugins::WeightSource>> sliced =
      families::sliceFusedTensors(
          std::move(weights),
          families::findFamily(spec->family)->getGgufSlices, *spec);
  if (!sliced)
    return sliced.takeError();
  if (llvm::Error error = checkTensors(*spec, stored, **sliced))
    return std::move(error);
  plugins::Checkpoint checkpoint;
  if (std::optional<std::string> warning =
          describeConvertedTensors(*spec, stored, **sliced))
    checkpoint.warnings.push_back(std::move(*warning));
  checkpoint.spec = std::move(*spec);
  checkpoint.weights = std::move(*sliced);
  return checkpoint;
}

} // namespace llmc::gguf
