//===- HostPlugin.cpp - registers the host CPU backend --------------------===//
//
// The host lowers with the common top -> tpu patterns, places values with
// the common address assignment and generates code with the common
// emitters, which write each op whole for a chip computing in global
// memory. Its descriptor has one core, so no piece is split into sections:
// the device spreads every command over the CPU's threads instead.
//
//===----------------------------------------------------------------------===//

#include "backends/host/HostDescriptor.h"
#include "backends/host/device/HostDevice.h"
#include "backends/common/lowering/CommonBackend.h"
#include "plugins/Plugin.h"

namespace llmc::plugins {
namespace {

class HostBackend : public lowering::CommonBackendPlugin {
public:
  const ChipDescriptor &getDescriptor() const override {
    return host::getDescriptor();
  }

  std::unique_ptr<cmodel::StreamDevice>
  createDevice(const cmodel::DeviceOptions &options) const override {
    return std::make_unique<host::HostDevice>(getDescriptor(), options);
  }
};

} // namespace

void register_host(Registrar &registrar) {
  registrar.addBackend(std::make_unique<HostBackend>());
}

} // namespace llmc::plugins
