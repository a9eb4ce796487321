//===- Bm1688Device.cpp - the BM1688's device for the runtime -------------===//
//
// A binary compiled for the BM1688 runs on its cmodel.
//
//===----------------------------------------------------------------------===//

#include "backends/bm1688/Bm1688Descriptor.h"
#include "backends/common/cmodel/CModel.h"
#include "plugins/DeviceRegistry.h"

namespace llmc::plugins {

void register_bm1688_device(DeviceRegistry &registry) {
  registry.add(bm1688::getDescriptor().id,
               [](const cmodel::DeviceOptions &options) {
                 return cmodel::createCModelDevice(bm1688::getDescriptor(),
                                                   options);
               });
}

} // namespace llmc::plugins
