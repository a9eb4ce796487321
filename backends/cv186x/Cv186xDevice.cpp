//===- Cv186xDevice.cpp - the CV186X's device for the runtime -------------===//
//
// A binary compiled for the CV186X runs on its cmodel.
//
//===----------------------------------------------------------------------===//

#include "backends/cv186x/Cv186xDescriptor.h"
#include "backends/common/cmodel/CModel.h"
#include "plugins/DeviceRegistry.h"

namespace llmc::plugins {

void register_cv186x_device(DeviceRegistry &registry) {
  registry.add(cv186x::getDescriptor().id,
               [](const cmodel::DeviceOptions &options) {
                 return cmodel::createCModelDevice(cv186x::getDescriptor(),
                                                   options);
               });
}

} // namespace llmc::plugins
