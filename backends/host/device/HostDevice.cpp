//===- HostDevice.cpp - host programs run natively on the CPU -------------===//

#include "backends/host/device/HostDevice.h"

#include "backends/common/cmodel/Operands.h"
#include "backends/common/cmodel/Trap.h"
#include "backends/host/device/HostCommands.h"
#include "backends/host/device/HugePageCopy.h"
#include "backends/host/kernels/WorkerPool.h"

#include <chrono>

namespace llmc::host {

HostDevice::HostDevice(const plugins::ChipDescriptor &chip,
                       const cmodel::DeviceOptions &options)
    : chip(chip), pool(std::make_unique<WorkerPool>(options.threads)) {}

HostDevice::~HostDevice() = default;

void HostDevice::attachWeights(llvm::ArrayRef<uint8_t> coeff) {
  weights = HugePageCopy::create(coeff);
  memory.attachReadOnly(cmd::REGION_COEFF, weights ? weights->bytes() : coeff);
}

/// `tensor` as a host pointer into `memory`, after checking that it lies
/// inside its region (and that the region is writable for an output).
static llvm::Expected<TensorRef> resolve(cmodel::GlobalMemory &memory,
                                         const cmd::GlobalTensor &tensor,
                                         const std::string &what, bool write) {
  TensorRef ref;
  if (tensor.rows() == 0)
    return ref;
  llvm::Expected<cmodel::GlobalGeometry> geometry =
      cmodel::GlobalGeometry::create(tensor, what);
  if (!geometry)
    return geometry.takeError();
  if (llvm::Error error = memory.checkAccess(*geometry, write))
    return std::move(error);
  ref.geometry = *geometry;
  // checkAccess proved the region holds the tensor; inputs are only read.
  ref.data = const_cast<uint8_t *>(memory.getData(geometry->region)) +
             geometry->offset;
  return ref;
}

static llvm::Error runCommand(const cmd::HostCommand &command,
                              cmodel::GlobalMemory &memory, WorkerPool &pool) {
  HostOperands operands;
  for (auto [index, tensor] : llvm::enumerate(command.inputs())) {
    llvm::Expected<TensorRef> ref =
        resolve(memory, tensor, "input " + std::to_string(index), false);
    if (!ref)
      return ref.takeError();
    operands.inputs.push_back(*ref);
  }
  for (auto [index, tensor] : llvm::enumerate(command.outputs())) {
    llvm::Expected<TensorRef> ref =
        resolve(memory, tensor, "output " + std::to_string(index), true);
    if (!ref)
      return ref.takeError();
    operands.outputs.push_back(*ref);
  }
  const cmd::Compute &compute = command.compute();
  switch (compute.opcode()) {
  case cmd::MATMUL:
  case cmd::A16MATMUL:
  case cmd::GATED_MATMUL:
  case cmd::ATTENTION:
    return runLinear(compute, operands, pool);
  case cmd::COPY:
  case cmd::GATHER:
  case cmd::SCATTER:
  case cmd::ARGMAX:
  case cmd::TOPK:
    return runDataMovement(compute, operands);
  default:
    return runRowwise(compute, operands, pool);
  }
}

llvm::Expected<cmodel::RunStats>
HostDevice::run(const cmd::CommandStream &stream) {
  if (stream.version() != 3)
    return cmodel::makeTrap(cmodel::TrapKind::BadStream,
                            "stream '" + stream.name() + "' has version " +
                                llvm::Twine(stream.version()) +
                                "; the host device runs host programs "
                                "(version 3)");
  auto start = std::chrono::steady_clock::now();
  for (auto [index, command] : llvm::enumerate(stream.host_commands()))
    if (llvm::Error error = runCommand(command, memory, *pool))
      return cmodel::prefixTrap(
          std::move(error),
          "stream '" + stream.name() + "', command " + llvm::Twine(index) +
              " (" + cmodel::getOpcodeName(command.compute().opcode()) + ")");
  cmodel::RunStats stats;
  stats.computeCommands = stream.host_commands_size();
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return stats;
}

} // namespace llmc::host
