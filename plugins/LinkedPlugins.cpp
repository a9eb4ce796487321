//===- LinkedPlugins.cpp - calls register_<id> of the chosen plugins ------===//
//
// LinkedPlugins.inc is generated from the //plugins:enabled flag: one
// LLMC_PLUGIN(id) line per plugin, in the flag's order.
//
//===----------------------------------------------------------------------===//

#include "plugins/LinkedPlugins.h"

namespace llmc::plugins {

#define LLMC_PLUGIN(id) void register_##id(Registrar &registrar);
#include "plugins/LinkedPlugins.inc"
#undef LLMC_PLUGIN

void registerLinkedPlugins(Registrar &registrar) {
#define LLMC_PLUGIN(id) register_##id(registrar);
#include "plugins/LinkedPlugins.inc"
#undef LLMC_PLUGIN
}

llvm::Expected<std::unique_ptr<Registry>> createLinkedPluginRegistry() {
  auto registry = std::make_unique<Registry>();
  registerLinkedPlugins(*registry);
  if (llvm::Error error = registry->takeRegistrationErrors())
    return std::move(error);
  return std::move(registry);
}

} // namespace llmc::plugins
