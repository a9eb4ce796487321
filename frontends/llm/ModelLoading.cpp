//===- ModelLoading.cpp - a checkpoint ready for the graph builder --------===//

#include "frontends/llm/ModelLoading.h"

#include "frontends/llm/MiniCPMVision.h"
#include "frontends/llm/RopeTables.h"

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
