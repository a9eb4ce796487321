//===- StreamDevice.cpp - what runs compiled command streams --------------===//

#include "backends/common/cmodel/StreamDevice.h"

#include "absl/types/span.h"

namespace llmc::cmodel {

StreamDevice::~StreamDevice() = default;

void StreamDevice::attachWeights(absl::Span<const uint8_t> coeff) {
  global().attachReadOnly(cmd::REGION_COEFF, coeff);
}

} // namespace llmc::cmodel
