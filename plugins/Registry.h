//===- Registry.h - the plugins linked into a tool -------------*- C++ -*-===//

#ifndef LLMC_PLUGINS_REGISTRY_H
#define LLMC_PLUGINS_REGISTRY_H

#include "plugins/Plugin.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmc::plugins {

/// Owns the registered plugins and finds them by id or by input.
class Registry : public Registrar {
public:
  void addFrontend(std::unique_ptr<FrontendPlugin> frontend) override;
  void addBackend(std::unique_ptr<BackendPlugin> backend) override;

  /// Reports what went wrong during registration: duplicate ids and invalid
  /// chip descriptors. Plugins that failed are not registered.
  llvm::Error takeRegistrationErrors();

  llvm::ArrayRef<std::unique_ptr<FrontendPlugin>> getFrontends() const {
    return frontends;
  }
  llvm::ArrayRef<std::unique_ptr<BackendPlugin>> getBackends() const {
    return backends;
  }

  /// The frontend that accepts `path`, or an error listing the formats tried.
  llvm::Expected<const FrontendPlugin &>
  findFrontendFor(llvm::StringRef path) const;
  /// The backend of chip `id` (case-insensitive), or an error listing the
  /// registered chips.
  llvm::Expected<const BackendPlugin &> findBackend(llvm::StringRef id) const;

  /// The `llmc --list-plugins` text.
  std::string describe() const;

private:
  std::vector<std::unique_ptr<FrontendPlugin>> frontends;
  std::vector<std::unique_ptr<BackendPlugin>> backends;
  std::vector<std::string> registrationErrors;
};

} // namespace llmc::plugins

#endif // LLMC_PLUGINS_REGISTRY_H
