//===- DeviceRegistry.cpp - the devices a runtime can run on --------------===//

#include "plugins/DeviceRegistry.h"

#include "backends/common/cmodel/StreamDevice.h"

#include "llvm/ADT/StringExtras.h"

namespace llmc::plugins {

DeviceRegistry::DeviceRegistry() = default;
DeviceRegistry::~DeviceRegistry() = default;

void DeviceRegistry::add(llvm::StringRef chip, DeviceFactory factory) {
  for (const Entry &entry : entries)
    if (entry.chip == chip) {
      errors.push_back("a device for chip '" + chip.str() +
                       "' is registered twice");
      return;
    }
  entries.push_back({chip.str(), std::move(factory)});
}

llvm::Expected<std::unique_ptr<cmodel::StreamDevice>>
DeviceRegistry::createDevice(llvm::StringRef chip,
                             const cmodel::DeviceOptions &options) const {
  for (const Entry &entry : entries)
    if (entry.chip == chip)
      return entry.factory(options);
  std::vector<std::string> chips = getChips();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown chip '" + chip + "' (this build runs " +
          (chips.empty() ? std::string("none") : llvm::join(chips, ", ")) +
          ")");
}

std::vector<std::string> DeviceRegistry::getChips() const {
  std::vector<std::string> chips;
  for (const Entry &entry : entries)
    chips.push_back(entry.chip);
  return chips;
}

llvm::Error DeviceRegistry::takeRegistrationErrors() {
  if (errors.empty())
    return llvm::Error::success();
  std::string message = llvm::join(errors, "; ");
  errors.clear();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace llmc::plugins
