//===- ModelLoading.h - a checkpoint ready for the graph builder -*- C++ -*-===//

#ifndef LLMC_FRONTENDS_LLM_MODELLOADING_H
#define LLMC_FRONTENDS_LLM_MODELLOADING_H

#include "frontends/llm/GraphBuilder.h"
#include "plugins/Registry.h"

namespace llmc {

/// A checkpoint read by its frontend, with the tensors llmc generates for it
/// (rotary tables) layered over the checkpoint's own.
struct LoadedModel {
  plugins::ModelSpec spec;
  std::unique_ptr<plugins::OverlayWeightSource> weights;
  /// What the frontend warns about (see plugins::Checkpoint).
  std::vector<std::string> warnings;
};

/// Finds the frontend that reads `path`, loads the checkpoint and adds the
/// generated tensors the pieces built with `options` read. The spec lists
/// the weights the source stores quantized.
llvm::Expected<LoadedModel> loadModel(const plugins::Registry &registry,
                                      llvm::StringRef path,
                                      const llm::BuildOptions &options);

} // namespace llmc

#endif // LLMC_FRONTENDS_LLM_MODELLOADING_H
