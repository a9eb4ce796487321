//===- HostDeviceRegistration.cpp - the host's device for the runtime -----===//
//
// A binary compiled for the host runs natively on this CPU.
//
//===----------------------------------------------------------------------===//

#include "backends/host/HostDescriptor.h"
#include "backends/host/device/HostDevice.h"
#include "plugins/DeviceRegistry.h"

namespace llmc::plugins {

void register_host_device(DeviceRegistry &registry) {
  registry.add(host::getDescriptor().id,
               [](const cmodel::DeviceOptions &options) {
                 return std::make_unique<host::HostDevice>(
                     host::getDescriptor(), options);
               });
}

} // namespace llmc::plugins
