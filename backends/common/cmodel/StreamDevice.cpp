//===- StreamDevice.cpp - what runs compiled command streams --------------===//

#include "backends/common/cmodel/StreamDevice.h"

namespace llmc::cmodel {

StreamDevice::~StreamDevice() = default;

void StreamDevice::attachWeights(llvm::ArrayRef<uint8_t> coeff) {
  global().attachReadOnly(cmd::REGION_COEFF, coeff);
}

} // namespace llmc::cmodel
