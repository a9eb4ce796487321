//===- DeviceRegistry.cpp - the devices a runtime can run on --------------===//

#include "plugins/DeviceRegistry.h"

#include "backends/common/cmodel/StreamDevice.h"
#include "support/Strings.h"

namespace llmc::plugins {

DeviceRegistry::DeviceRegistry() = default;
DeviceRegistry::~DeviceRegistry() = default;

void DeviceRegistry::add(std::string_view chip, DeviceFactory factory) {
  for (const Entry &entry : entries)
    if (entry.chip == chip) {
      errors.push_back(support::strCat("a device for chip '", chip,
                                       "' is registered twice"));
      return;
    }
  entries.push_back({std::string(chip), std::move(factory)});
}

absl::StatusOr<std::unique_ptr<cmodel::StreamDevice>>
DeviceRegistry::createDevice(std::string_view chip,
                             const cmodel::DeviceOptions &options) const {
  for (const Entry &entry : entries)
    if (entry.chip == chip)
      return entry.factory(options);
  std::vector<std::string> chips = getChips();
  return absl::NotFoundError(support::strCat(
      "unknown chip '", chip, "' (this build runs ",
      chips.empty() ? std::string("none") : support::join(chips, ", "), ")"));
}

std::vector<std::string> DeviceRegistry::getChips() const {
  std::vector<std::string> chips;
  for (const Entry &entry : entries)
    chips.push_back(entry.chip);
  return chips;
}

absl::Status DeviceRegistry::takeRegistrationErrors() {
  if (errors.empty())
    return absl::OkStatus();
  std::string message = support::join(errors, "; ");
  errors.clear();
  return absl::AlreadyExistsError(message);
}

} // namespace llmc::plugins
