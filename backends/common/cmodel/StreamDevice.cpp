//===- StreamDevice.cpp - what runs compiled command streams --------------===//

#include "backends/common/cmodel/StreamDevice.h"

namespace llmc::cmodel {

StreamDevice::~StreamDevice() = default;

} // namespace llmc::cmodel
