//===- LocalAccesses.cpp - the local bytes a command reads and writes -----===//

#include "backends/common/cmodel/LocalAccesses.h"

namespace llmc::cmodel {

bool readsOutput(const cmd::Compute &compute, size_t i) {
  switch (compute.opcode()) {
  case cmd::MATMUL:
  case cmd::A16MATMUL:
  case cmd::I8MATMUL:
    return compute.accumulate();
  case cmd::ATTENTION:
    return compute.resume() && i >= 1;
  default:
    return false;
  }
}

LocalAccesses getLocalAccesses(const cmd::Command &command,
                               const plugins::ChipDescriptor &chip) {
  LocalAccesses accesses;
  auto add = [&](const cmd::LocalTensor &tensor, bool write, bool read) {
    if (tensor.rows() == 0)
      return;
    absl::StatusOr<LocalGeometry> geometry =
        LocalGeometry::create(tensor, chip, "tensor");
    if (!geometry.ok())
      return;
    if (read)
      accesses.reads.push_back(*geometry);
    if (write)
      accesses.writes.push_back(*geometry);
  };
  if (command.has_dma()) {
    bool store = command.dma().kind() == cmd::Dma::STORE ||
                 command.dma().kind() == cmd::Dma::SCATTER;
    add(command.dma().local(), !store, store);
  } else if (command.has_compute()) {
    const cmd::Compute &compute = command.compute();
    for (const cmd::LocalTensor &input : compute.inputs())
      add(input, false, true);
    for (int i = 0; i < compute.outputs_size(); ++i)
      add(compute.outputs(i), true, readsOutput(compute, i));
  }
  return accesses;
}

} // namespace llmc::cmodel
