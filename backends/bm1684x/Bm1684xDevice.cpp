//===- Bm1684xDevice.cpp - the BM1684X's device for the runtime -----------===//
//
// A binary compiled for the BM1684X runs on its cmodel.
//
//===----------------------------------------------------------------------===//

#include "backends/bm1684x/Bm1684xDescriptor.h"
#include "backends/common/cmodel/CModel.h"
#include "plugins/DeviceRegistry.h"

namespace llmc::plugins {

void register_bm1684x_device(DeviceRegistry &registry) {
  registry.add(bm1684x::getDescriptor().id,
               [](const cmodel::DeviceOptions &options) {
                 return cmodel::createCModelDevice(bm1684x::getDescriptor(),
                                                   options);
               });
}

} // namespace llmc::plugins
