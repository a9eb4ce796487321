//===- LinkedPlugins.h - the plugins chosen at build time ------*- C++ -*-===//

#ifndef LLMC_PLUGINS_LINKEDPLUGINS_H
#define LLMC_PLUGINS_LINKEDPLUGINS_H

#include "plugins/Registry.h"

namespace llmc::plugins {

/// Calls register_<id> of every plugin chosen by the //plugins:enabled flag
/// of the build, in the flag's order.
void registerLinkedPlugins(Registrar &registrar);

/// A registry holding the linked plugins; fails on registration errors.
llvm::Expected<std::unique_ptr<Registry>> createLinkedPluginRegistry();

} // namespace llmc::plugins

#endif // LLMC_PLUGINS_LINKEDPLUGINS_H
