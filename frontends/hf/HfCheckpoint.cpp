//===- HfCheckpoint.cpp - loads a Hugging Face checkpoint -----------------===//

#include "frontends/hf/HfCheckpoint.h"

#include "frontends/hf/HfConfig.h"
#include "frontends/hf/JsonFields.h"
#include "frontends/hf/PrequantizedWeights.h"
#include "frontends/llm/families/Family.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using llmc::plugins::ModelSpec;
using llmc::plugins::TensorInfo;
using llmc::plugins::TensorRole;
using llmc::plugins::WeightType;

namespace llmc::hf {
namespace {

std::string printShape(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t dim) { return std::to_string(dim); }),
                    ", ") +
         "]";
}

llvm::Expected<std::unique_ptr<SafetensorsSource>>
openWeights(llvm::StringRef directory) {
  llvm::SmallString<256> index(directory), single(directory);
  llvm::sys::path::append(index, "model.safetensors.index.json");
  llvm::sys::path::append(single, "model.safetensors");
  if (llvm::sys::fs::exists(index))
    return SafetensorsSource::openSharded(index);
  if (llvm::sys::fs::exists(single))
    return SafetensorsSource::openFile(single);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 directory + ": no model.safetensors or "
                                             "model.safetensors.index.json");
}

/// The graph builder reads tensors by role without re-checking them, so a
/// checkpoint that disagrees with its config is rejected here, where the
/// message can still name the file. `files` says which file holds a tensor
/// (of a part of a fused tensor: the fused one's).
template <typename Source>
llvm::Error checkTensors(const ModelSpec &spec, const Source &files,
                         const plugins::WeightSource &weights) {
  for (const auto &[role, pattern] : spec.tensorNames) {
    llvm::SmallVector<int64_t> expected =
        plugins::getExpectedShape(spec, role);
    bool perLayer = llvm::StringRef(pattern).contains("{layer}");
    for (int64_t layer = 0, e = perLayer ? spec.numLayers : 1; layer < e;
         ++layer) {
      std::string name = llvm::cantFail(spec.tensorName(role, layer));
      llvm::StringRef file =
          files.getTensorFile(plugins::getStoredTensorName(weights, name));
      auto fail = [&](llvm::StringRef where, const llvm::Twine &problem) {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       where + ": tensor '" + name + "' (" +
                                           plugins::stringifyTensorRole(role) +
                                           ") " + problem);
      };
      if (file.empty())
        return fail(spec.source, "is missing from the checkpoint");
      TensorInfo info = llvm::cantFail(weights.getTensorInfo(name));
      if (info.type != WeightType::F32 && info.type != WeightType::F16 &&
          info.type != WeightType::BF16)
        return fail(file, "has type " +
                              plugins::stringifyWeightType(info.type) +
                              ", expected f32, f16 or bf16");
      if (llvm::ArrayRef<int64_t>(info.shape) != llvm::ArrayRef(expected))
        return fail(file, "has shape " + printShape(info.shape) +
                              ", expected " + printShape(expected));
    }
  }
  return llvm::Error::success();
}

/// transformers 4.52 and later save a vision-language model's language
/// model under `model.language_model.` and its head as `lm_head.`, where
/// earlier versions and Google's Gemma 3 files write
/// `language_model.model.` and `language_model.lm_head.`: the names follow
/// whichever the checkpoint holds.
template <typename Source>
void followStoredLanguageModelNames(ModelSpec &spec, const Source &files) {
  constexpr llvm::StringLiteral kOld = "language_model.model.";
  constexpr llvm::StringLiteral kNew = "model.language_model.";
  std::string embedding =
      llvm::cantFail(spec.tensorName(TensorRole::TokenEmbedding));
  llvm::StringRef rest = embedding;
  if (!rest.consume_front(kOld) || !files.getTensorFile(embedding).empty() ||
      files.getTensorFile((kNew + rest).str()).empty())
    return;
  for (auto &[role, name] : spec.tensorNames) {
    llvm::StringRef pattern = name;
    if (pattern.consume_front(kOld))
      name = (kNew + pattern).str();
    else if (pattern.consume_front("language_model."))
      name = pattern.str();
  }
}

} // namespace

llvm::Expected<plugins::Checkpoint> loadCheckpoint(llvm::StringRef directory) {
  llvm::Expected<ModelSpec> spec = readModelSpec(directory);
  if (!spec)
    return spec.takeError();
  llvm::Expected<std::unique_ptr<SafetensorsSource>> weights =
      openWeights(directory);
  if (!weights)
    return weights.takeError();
  llvm::SmallString<256> configFile(directory);
  llvm::sys::path::append(configFile, "config.json");
  llvm::Expected<llvm::json::Object> config = readJsonObject(configFile);
  if (!config)
    return config.takeError();
  llvm::Expected<std::optional<PackedQuantizationConfig>> quantization =
      readQuantizationConfig(*config, configFile);
  if (!quantization)
    return quantization.takeError();

  // The family says which tensors the checkpoint fuses; its parts are
  // served as tensors of their own over the unpacked weights.
  auto getSlices = families::findFamily(spec->family)->getHfSlices;
  plugins::Checkpoint checkpoint;
  if (*quantization) {
    llvm::Expected<std::unique_ptr<PrequantizedWeights>> packed =
        PrequantizedWeights::open(**quantization, std::move(*weights));
    if (!packed)
      return packed.takeError();
    const PrequantizedWeights &files = **packed;
    followStoredLanguageModelNames(*spec, files);
    llvm::Expected<std::unique_ptr<plugins::WeightSource>> sliced =
        families::sliceFusedTensors(std::move(*packed), getSlices, *spec);
    if (!sliced)
      return sliced.takeError();
    if (llvm::Error error = checkTensors(*spec, files, **sliced))
      return std::move(error);
    checkpoint.weights = std::move(*sliced);
    spec->floatWeightsByChoice = true;
  } else {
    const SafetensorsSource &files = **weights;
    followStoredLanguageModelNames(*spec, files);
    llvm::Expected<std::unique_ptr<plugins::WeightSource>> sliced =
        families::sliceFusedTensors(std::move(*weights), getSlices, *spec);
    if (!sliced)
      return sliced.takeError();
    if (llvm::Error error = checkTensors(*spec, files, **sliced))
      return std::move(error);
    checkpoint.weights = std::move(*sliced);
  }
  checkpoint.spec = std::move(*spec);
  return checkpoint;
}

} // namespace llmc::hf
