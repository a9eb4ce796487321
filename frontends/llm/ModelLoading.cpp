//===- ModelLoading.cpp - a checkpoint ready for the graph builder --------===//

#include "frontends/llm/ModelLoading.h"

#include "frontends/llm/MiniCPMVision.h"
#include "frontends/llm/RopeTables.h"

using llmc::plugins::TensorRole;

namespace llmc {

/// Every tensor of a role that the source stores quantized, so the graph
/// builder can mark its weights.
static void recordStoredQuantization(plugins::ModelSpec &spec,
                                     const plugins::WeightSource &weights) {
  for (const auto &[role, pattern] : spec.tensorNames) {
    for (int64_t layer = 0; layer < std::max<int64_t>(spec.numLayers, 1);
         ++layer) {
      std::string name = llvm::cantFail(spec.tensorName(role, layer));
      if (std::optional<plugins::StoredQuantization> stored =
              weights.getStoredQuantization(name))
        spec.storedQuantization.emplace(name, *stored);
    }
  }
}

/// Serves every RMSNorm weight w as normWeightOffset + w (Gemma's HF
/// checkpoints): the graph then has plain norms on every chip. The
/// offset-applied tensors are computed once, in float32 as transformers
/// adds the 1, under `llmc.norm_offset.<name>`.
static llvm::Error
applyNormWeightOffset(plugins::ModelSpec &spec,
                      plugins::OverlayWeightSource &weights) {
  if (spec.normWeightOffset == 0.0)
    return llvm::Error::success();
  constexpr llvm::StringLiteral kPrefix = "llmc.norm_offset.";
  auto offset = static_cast<float>(spec.normWeightOffset);
  for (TensorRole role :
       {TensorRole::AttentionNorm, TensorRole::MlpNorm, TensorRole::FinalNorm,
        TensorRole::QueryNorm, TensorRole::KeyNorm,
        TensorRole::PostAttentionNorm, TensorRole::PostMlpNorm}) {
    if (!spec.hasTensor(role))
      continue;
    bool perLayer = role != TensorRole::FinalNorm;
    llvm::SmallVector<int64_t> shape = plugins::getExpectedShape(spec, role);
    for (int64_t layer = 0; layer < (perLayer ? spec.numLayers : 1); ++layer) {
      std::string name = llvm::cantFail(spec.tensorName(role, layer));
      llvm::Expected<plugins::TensorInfo> info = weights.getTensorInfo(name);
      if (!info)
        return info.takeError();
      if (info->shape != shape)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            weights.describe() + ": tensor '" + name + "' is not [" +
                llvm::Twine(shape[0]) + "]");
      std::vector<float> values(shape[0]);
      if (llvm::Error error = weights.readAsF32(name, values))
        return error;
      for (float &value : values)
        value += offset;
      if (llvm::Error error = weights.addTensor((kPrefix + name).str(), shape,
                                                std::move(values)))
        return error;
      weights.releaseTensor(name);
    }
    spec.tensorNames[role] = (kPrefix + spec.tensorNames[role]).str();
  }
  spec.normWeightOffset = 0.0;
  return llvm::Error::success();
}

llvm::Expected<LoadedModel> loadModel(const plugins::Registry &registry,
                                      llvm::StringRef path,
                                      const llm::BuildOptions &options) {
  llvm::Expected<const plugins::FrontendPlugin &> frontend =
      registry.findFrontendFor(path);
  if (!frontend)
    return frontend.takeError();
  llvm::Expected<plugins::Checkpoint> checkpoint = frontend->load(path);
  if (!checkpoint)
    return checkpoint.takeError();
  LoadedModel model;
  model.spec = std::move(checkpoint->spec);
  recordStoredQuantization(model.spec, *checkpoint->weights);
  model.warnings = std::move(checkpoint->warnings);
  model.weights = std::make_unique<plugins::OverlayWeightSource>(
      std::move(checkpoint->weights));
  if (llvm::Error error = applyNormWeightOffset(model.spec, *model.weights))
    return std::move(error);
  if (llvm::Error error =
          llm::addRopeTables(model.spec, options.seqLength, *model.weights))
    return std::move(error);
  if (model.spec.miniCPMVision)
    if (llvm::Error error =
            llm::addResamplerProjections(model.spec, *model.weights))
      return std::move(error);
  return std::move(model);
}

} // namespace llmc
