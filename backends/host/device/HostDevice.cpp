//===- HostDevice.cpp - host programs run natively on the CPU -------------===//

#include "backends/host/device/HostDevice.h"

#include "backends/common/cmodel/Operands.h"
#include "backends/common/cmodel/Trap.h"
#include "backends/host/device/HostCommands.h"
#include "backends/host/kernels/WorkerPool.h"

#include "support/Strings.h"

#include "absl/types/span.h"

#include <chrono>
#include <optional>

namespace llmc::host {

HostDevice::HostDevice(const plugins::ChipDescriptor &chip,
                       const cmodel::DeviceOptions &options)
    : chip(chip), pool(std::make_unique<WorkerPool>(options.threads)),
      profile(options.profile) {}

HostDevice::~HostDevice() = default;

void HostDevice::attachWeights(absl::Span<const uint8_t> coeff) {
  weights = cmodel::HugePageMemory::copyReadOnly(coeff);
  memory.attachReadOnly(cmd::REGION_COEFF, weights ? weights->bytes() : coeff);
}

/// `tensor` as a host pointer into `memory`, after checking that it lies
/// inside its region (and that the region is writable for an output).
static absl::StatusOr<TensorRef> resolve(cmodel::GlobalMemory &memory,
                                         const cmd::GlobalTensor &tensor,
                                         const std::string &what, bool write) {
  TensorRef ref;
  if (tensor.rows() == 0)
    return ref;
  absl::StatusOr<cmodel::GlobalGeometry> geometry =
      cmodel::GlobalGeometry::create(tensor, what);
  if (!geometry.ok())
    return geometry.status();
  LLMC_RETURN_IF_ERROR(memory.checkAccess(*geometry, write));
  ref.geometry = *geometry;
  // checkAccess proved the region holds the tensor; inputs are only read.
  ref.data = const_cast<uint8_t *>(memory.getData(geometry->region)) +
             geometry->offset;
  return ref;
}

/// The operands of `command`, resolved and checked against `memory`.
static absl::StatusOr<HostOperands>
resolveOperands(const cmd::HostCommand &command, cmodel::GlobalMemory &memory) {
  HostOperands operands;
  for (int index = 0; index < command.inputs_size(); ++index) {
    absl::StatusOr<TensorRef> ref = resolve(
        memory, command.inputs(index), "input " + std::to_string(index), false);
    if (!ref.ok())
      return ref.status();
    operands.inputs.push_back(std::move(*ref));
  }
  for (int index = 0; index < command.outputs_size(); ++index) {
    absl::StatusOr<TensorRef> ref =
        resolve(memory, command.outputs(index),
                "output " + std::to_string(index), true);
    if (!ref.ok())
      return ref.status();
    operands.outputs.push_back(std::move(*ref));
  }
  return operands;
}

static absl::Status runCommand(const cmd::Compute &compute,
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
      support::strCat(cmodel::getOpcodeName(lead.compute().opcode()), " ");
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

absl::StatusOr<cmodel::RunStats>
HostDevice::run(const cmd::CommandStream &stream) {
  if (stream.version() != 3)
    return cmodel::makeTrap(
        cmodel::TrapKind::BadStream,
        support::strCat("stream '", stream.name(), "' has version ",
                        stream.version(),
                        "; the host device runs host programs "
                        "(version 3)"));
  auto start = std::chrono::steady_clock::now();
  const auto &commands = stream.host_commands();
  auto fail = [&](absl::Status error, int at) {
    return cmodel::prefixTrap(
        std::move(error),
        support::strCat("stream '", stream.name(), "', command ", at, " (",
                        cmodel::getOpcodeName(commands[at].compute().opcode()),
                        ")"));
  };
  // A product that does not join the group before it starts the next one
  // with its operands already resolved.
  std::optional<HostOperands> resolved;
  auto resolve = [&](int at) -> absl::Status {
    if (resolved)
      return absl::OkStatus();
    absl::StatusOr<HostOperands> operands =
        resolveOperands(commands[at], memory);
    if (!operands.ok())
      return operands.status();
    resolved = std::move(*operands);
    return absl::OkStatus();
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
    if (absl::Status error = resolve(index); !error.ok())
      return fail(std::move(error), index);
    if (!isMatMul(commands[index])) {
      if (absl::Status error =
              runCommand(commands[index].compute(), *resolved, *pool);
          !error.ok())
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
      if (absl::Status error = resolve(index); !error.ok())
        return fail(std::move(error), index);
      absl::StatusOr<bool> added =
          group.tryAdd(commands[index].compute(), std::move(*resolved));
      if (!added.ok())
        return fail(added.status(), index);
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
