//===- Operands.cpp - compute operands and their overlap ------------------===//

#include "backends/common/cmodel/Operands.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

namespace llmc::cmodel {

std::string_view getOpcodeName(cmd::Opcode opcode) {
  if (!cmd::Opcode_IsValid(opcode))
    return "INVALID";
  // The generated names are static strings.
  const std::string &name = cmd::Opcode_Name(opcode);
  return std::string_view(name);
}

absl::StatusOr<ComputeOperands>
createComputeOperands(const cmd::Compute &compute,
                      const plugins::ChipDescriptor &chip) {
  ComputeOperands operands;
  auto add = [&](const auto &tensors, auto &into,
                 std::string_view kind) -> absl::Status {
    for (int i = 0; i < tensors.size(); ++i) {
      const cmd::LocalTensor &tensor = tensors.Get(i);
      if (tensor.rows() == 0) {
        into.emplace_back();
        continue;
      }
      auto geometry =
          LocalGeometry::create(tensor, chip, support::strCat(kind, " ", i));
      if (!geometry.ok())
        return geometry.status();
      into.push_back(std::move(*geometry));
    }
    return absl::OkStatus();
  };
  LLMC_RETURN_IF_ERROR(add(compute.inputs(), operands.inputs, "input"));
  LLMC_RETURN_IF_ERROR(add(compute.outputs(), operands.outputs, "output"));
  return operands;
}

/// Ops that compute each output row from the same row of their inputs,
/// through a temporary: an output may be exactly one of the inputs.
static bool isRowLocal(cmd::Opcode opcode) {
  switch (opcode) {
  case cmd::ADD:
  case cmd::MUL:
  case cmd::DIV:
  case cmd::COMPARE:
  case cmd::SELECT:
  case cmd::CUMSUM:
  case cmd::MUL_CONST:
  case cmd::SILU:
  case cmd::GELU:
  case cmd::RELU:
  case cmd::TANH:
  case cmd::RMSNORM:
  case cmd::LAYERNORM:
  case cmd::ROPE:
  case cmd::SOFTMAX:
  case cmd::CAST:
  case cmd::COPY:
    return true;
  default:
    return false;
  }
}

/// The same elements at the same bytes of the same lanes.
static bool isSameTensor(const LocalGeometry &a, const LocalGeometry &b) {
  return a.address == b.address && a.stride == b.stride &&
         a.laneBegin == b.laneBegin && a.laneEnd == b.laneEnd &&
         a.rows == b.rows && a.cols == b.cols && a.layout == b.layout &&
         a.perLane == b.perLane &&
         getDTypeBits(a.dtype) == getDTypeBits(b.dtype);
}

absl::Status checkOperandOverlaps(const cmd::Compute &compute,
                                  const ComputeOperands &operands) {
  bool inPlace = isRowLocal(compute.opcode());
  for (size_t o = 0; o < operands.outputs.size(); ++o) {
    const LocalGeometry *output = operands.getOutput(o);
    if (!output)
      continue;
    auto overlapTrap = [&](const LocalGeometry &other, int64_t lane) {
      return makeTrap(TrapKind::Overlap,
                      support::strCat(output->describe(), " overlaps ",
                                      other.describe(), " on lane ", lane));
    };
    for (size_t i = 0; i < operands.inputs.size(); ++i) {
      const LocalGeometry *input = operands.getInput(i);
      if (!input || (inPlace && isSameTensor(*output, *input)))
        continue;
      int64_t lane = findOverlappingLane(*output, *input);
      if (lane >= 0)
        return overlapTrap(*input, lane);
    }
    for (size_t p = 0; p < o; ++p) {
      const LocalGeometry *previous = operands.getOutput(p);
      int64_t lane = previous ? findOverlappingLane(*output, *previous) : -1;
      if (lane >= 0)
        return overlapTrap(*previous, lane);
    }
  }
  return absl::OkStatus();
}

} // namespace llmc::cmodel
