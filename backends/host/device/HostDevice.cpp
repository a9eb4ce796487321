//===- HostDevice.cpp - host programs run natively on the CPU -------------===//

#include "backends/host/device/HostDevice.h"

#include "backends/common/cmodel/Operands.h"
#include "backends/common/cmodel/Trap.h"
#include "backends/host/device/HostCommands.h"
#include "backends/host/kernels/WorkerPool.h"

#include <chrono>
#include <optional>

namespace llmc::host {

HostDevice::HostDevice(const plugins::ChipDescriptor &chip,
                       const cmodel::DeviceOptions &options)
    : chip(chip), pool(std::make_unique<WorkerPool>(options.threads)),
      profile(options.profile) {}

HostDevice::~HostDevice() = default;

void HostDevice::attachWeights(llvm::ArrayRef<uint8_t> coeff) {
  weights = cmodel::HugePageMemory::copyReadOnly(coeff);
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

/// The operands of `command`, resolved and checked against `memory`.
static llvm::Expected<HostOperands>
resolveOperands(const cmd::HostCommand &command, cmodel::GlobalMemory &memory) {
  HostOperands operands;
  for (auto [index, tensor] : llvm::enumerate(command.inputs())) {
    llvm::Expected<TensorRef> ref =
        resolve(memory, tensor, "input " + std::to_string(index), false);
    if (!ref)
      return ref.takeError();
    operands.inputs.push_back(std::move(*ref));
  }
  for (auto [index, tensor] : llvm::enumerate(command.outputs())) {
    llvm::Expected<TensorRef> ref =
        resolve(memory, tensor, "output " + std::to_string(index), true);
    if (!ref)
      return ref.takeError();
    operands.outputs.push_back(std::move(*ref));
  }
  return operands;
}

static llvm::Error runCommand(const cmd::Compute &compute,
                              const HostOperands &operands, WorkerPool &pool) {
  switch (compute.opcode()) {
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

static bool isMatMul(const cmd::HostCommand &command) {
  return command.compute().opcode() == cmd::MATMUL ||
         command.compute().opcode() == cmd::A16MATMUL;
}

/// The profile kind of commands [first, last), which run as one: the
/// opcode, the width of x and of each output.
static std::string
getProfileKind(const google::protobuf::RepeatedPtrField<cmd::HostCommand> &commands,
               int first, int last) {
  const cmd::HostCommand &lead = commands[first];
  std::string kind =
      cmodel::getOpcodeName(lead.compute().opcode()).str() + " ";
  if (lead.inputs_size())
    kind += std::to_string(lead.inputs(0).cols());
  kind += "->";
  for (int at = first; at < last; ++at) {
    if (at > first)
      kind += "+";
    if (commands[at].outputs_size())
      kind += std::to_string(commands[at].outputs(0).cols());
  }
  return kind;
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
  const auto &commands = stream.host_commands();
  auto fail = [&](llvm::Error error, int at) {
    return cmodel::prefixTrap(
        std::move(error),
        "stream '" + stream.name() + "', command " + llvm::Twine(at) + " (" +
            cmodel::getOpcodeName(commands[at].compute().opcode()) + ")");
  };
  // A product that does not join the group before it starts the next one
  // with its operands already resolved.
  std::optional<HostOperands> resolved;
  auto resolve = [&](int at) -> llvm::Error {
    if (resolved)
      return llvm::Error::success();
    llvm::Expected<HostOperands> operands =
        resolveOperands(commands[at], memory);
    if (!operands)
      return operands.takeError();
    resolved = std::move(*operands);
    return llvm::Error::success();
  };
  // Commands [first, last) took the time since `since`.
  auto record = [&](int first, int last,
                    std::chrono::steady_clock::time_point since) {
    auto now = std::chrono::steady_clock::now();
    cmodel::CommandProfile::Kind &kind =
        profile->kinds[getProfileKind(commands, first, last)];
    kind.seconds += std::chrono::duration<double>(now - since).count();
    kind.runs += last - first;
  };
  for (int index = 0; index < commands.size();) {
    const int first = index;
    auto since = profile ? std::chrono::steady_clock::now()
                         : std::chrono::steady_clock::time_point();
    if (llvm::Error error = resolve(index))
      return fail(std::move(error), index);
    if (!isMatMul(commands[index])) {
      if (llvm::Error error =
              runCommand(commands[index].compute(), *resolved, *pool))
        return fail(std::move(error), index);
      resolved.reset();
      ++index;
      if (profile)
        record(first, index, since);
      continue;
    }
    // Products that read one x run together (MatMulGroup).
    MatMulGroup group;
    for (; index < commands.size() && isMatMul(commands[index]); ++index) {
      if (llvm::Error error = resolve(index))
        return fail(std::move(error), index);
      llvm::Expected<bool> added =
          group.tryAdd(commands[index].compute(), std::move(*resolved));
      if (!added)
        return fail(added.takeError(), index);
      if (!*added)
        break;
      resolved.reset();
    }
    group.run(*pool);
    if (profile)
      record(first, index, since);
  }
  cmodel::RunStats stats;
  stats.computeCommands = stream.host_commands_size();
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return stats;
}

} // namespace llmc::host
