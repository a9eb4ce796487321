//===- HostCommands.cpp - operands of host commands -----------------------===//

#include "backends/host/device/HostCommands.h"

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/DType.h"
#include "backends/common/cmodel/Trap.h"

#include <algorithm>

namespace llmc::host {

void TensorRef::widenRow(int64_t r, int64_t count, float *out) const {
  if (rows() == 1 && cols() == 1 && count > 1) {
    cmodel::widenElements(dtype(), data, 0, 1, out);
    std::fill(out + 1, out + count, out[0]);
    return;
  }
  cmodel::widenElements(dtype(), broadcastRow(r), 0, count, out);
}

void TensorRef::narrowRow(int64_t r, const float *values) const {
  narrowElements(r, 0, cols(), values);
}

void TensorRef::narrowElements(int64_t r, int64_t first, int64_t count,
                               const float *values) const {
  cmodel::narrowElements(dtype(), values, count,
                         row(r) + cmodel::getDTypeBytes(dtype(), first));
}

/// An absent operand: what a command that leaves out optional trailing
/// operands reads in their place.
static const TensorRef kAbsent;

const TensorRef &HostOperands::in(size_t i) const {
  return i < inputs.size() ? inputs[i] : kAbsent;
}

const TensorRef &HostOperands::out(size_t i) const {
  return i < outputs.size() ? outputs[i] : kAbsent;
}

float *getBuffer(Buffer buffer, int64_t count) {
  static thread_local std::vector<float> buffers[int(Buffer::Count)];
  std::vector<float> &storage = buffers[int(buffer)];
  if (static_cast<int64_t>(storage.size()) < count)
    storage.resize(count);
  return storage.data();
}

absl::Status commandError(std::string_view message) {
  return cmodel::makeTrap(cmodel::TrapKind::BadOperand, message);
}

} // namespace llmc::host
