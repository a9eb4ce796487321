//===- Plugin.cpp - the frontend and backend plugin interfaces ------------===//
//
// The interfaces' key functions live in //plugins:api, beside their
// declarations, so a plugin library that depends only on the API links
// without the registry.
//
//===----------------------------------------------------------------------===//

#include "plugins/Plugin.h"

namespace llmc::plugins {

FrontendPlugin::~FrontendPlugin() = default;
BackendPlugin::~BackendPlugin() = default;
Registrar::~Registrar() = default;

// The defaults need no MLIR: a chip without lowering links without it.
void BackendPlugin::populateLoweringPatterns(
    mlir::RewritePatternSet &, const lowering::LoweringOptions &) const {}

llvm::Error
BackendPlugin::buildLoweringPipeline(mlir::OpPassManager &,
                                     const lowering::LoweringOptions &) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "chip '" + getDescriptor().id +
                                     "' has no top -> tpu lowering");
}

llvm::Error BackendPlugin::generateStream(mlir::Operation *,
                                          const llvm::StringMap<uint64_t> &,
                                          cmd::CommandStream &) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "chip '" + getDescriptor().id +
                                     "' has no codegen");
}

} // namespace llmc::plugins
