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

} // namespace llmc::plugins
