//===- ModelLoading.cpp - a checkpoint ready for the graph builder --------===//

#include "frontends/llm/ModelLoading.h"

#include "frontends/llm/RopeTables.h"

namespace llmc {

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
  model.weights = std::make_unique<plugins::OverlayWeightSource>(
      std::move(checkpoint->weights));
  if (llvm::Error error =
          llm::addRopeTables(model.spec, options.seqLength, *model.weights))
    return std::move(error);
  return std::move(model);
}

} // namespace llmc
