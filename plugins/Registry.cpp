//===- Registry.cpp - the plugins linked into a tool ----------------------===//

#include "plugins/Registry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace llmc::plugins {

void Registry::addFrontend(std::unique_ptr<FrontendPlugin> frontend) {
  for (const auto &existing : frontends) {
    if (existing->getId() == frontend->getId()) {
      registrationErrors.push_back("frontend '" + frontend->getId().str() +
                                   "' is registered twice");
      return;
    }
  }
  frontends.push_back(std::move(frontend));
}

void Registry::addBackend(std::unique_ptr<BackendPlugin> backend) {
  const ChipDescriptor &chip = backend->getDescriptor();
  if (absl::Status invalid = chip.validate(); !invalid.ok()) {
    registrationErrors.push_back(std::string(invalid.message()));
    return;
  }
  for (const auto &existing : backends) {
    if (llvm::StringRef(existing->getDescriptor().id)
            .equals_insensitive(chip.id)) {
      registrationErrors.push_back("backend '" + chip.id +
                                   "' is registered twice");
      return;
    }
  }
  backends.push_back(std::move(backend));
}

llvm::Error Registry::takeRegistrationErrors() {
  if (registrationErrors.empty())
    return llvm::Error::success();
  std::string message =
      "plugin registration failed: " + llvm::join(registrationErrors, "; ");
  registrationErrors.clear();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<const FrontendPlugin &>
Registry::findFrontendFor(llvm::StringRef path) const {
  for (const auto &frontend : frontends)
    if (frontend->accepts(path))
      return *frontend;
  std::vector<std::string> ids;
  for (const auto &frontend : frontends)
    ids.push_back(frontend->getId().str());
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "%s: not a checkpoint any linked frontend reads (tried: %s)",
      path.str().c_str(),
      ids.empty() ? "none linked" : llvm::join(ids, ", ").c_str());
}

llvm::Expected<const BackendPlugin &>
Registry::findBackend(llvm::StringRef id) const {
  for (const auto &backend : backends)
    if (id.equals_insensitive(backend->getDescriptor().id))
      return *backend;
  std::vector<std::string> ids;
  for (const auto &backend : backends)
    ids.push_back(backend->getDescriptor().id);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(), "unknown chip '%s' (linked chips: %s)",
      id.str().c_str(),
      ids.empty() ? "none" : llvm::join(ids, ", ").c_str());
}

std::string Registry::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "frontends:\n";
  if (frontends.empty())
    os << "  (none linked)\n";
  for (const auto &frontend : frontends)
    os << "  " << llvm::left_justify(frontend->getId(), 10)
       << frontend->getSummary() << "\n";
  os << "backends:\n";
  if (backends.empty())
    os << "  (none linked)\n";
  for (const auto &backend : backends) {
    const ChipDescriptor &chip = backend->getDescriptor();
    os << "  " << llvm::left_justify(chip.id, 10) << chip.summary << "\n"
       << "            quant modes: " << llvm::join(chip.quantModes, ", ")
       << "\n";
  }
  return text;
}

} // namespace llmc::plugins
