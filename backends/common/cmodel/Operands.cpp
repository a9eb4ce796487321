//===- Operands.cpp - compute operands and their overlap ------------------===//

#include "backends/common/cmodel/Operands.h"

#include "backends/common/cmodel/Trap.h"

namespace llmc::cmodel {

llvm::StringRef getOpcodeName(cmd::Opcode opcode) {
  if (!cmd::Opcode_IsValid(opcode))
    return "INVALID";
  // The generated names are static strings.
  const std::string &name = cmd::Opcode_Name(opcode);
  return llvm::StringRef(name);
}

llvm::Expected<ComputeOperands>
createComputeOperands(const cmd::Compute &compute,
                      const plugins::ChipDescriptor &chip) {
  ComputeOperands operands;
  auto add = [&](const auto &tensors, auto &into,
                 llvm::StringRef kind) -> llvm::Error {
    for (int i = 0; i < tensors.size(); ++i) {
      const cmd::LocalTensor &tensor = tensors.Get(i);
      if (tensor.rows() == 0) {
        into.emplace_back();
        continue;
      }
      auto geometry = LocalGeometry::create(
          tensor, chip, (kind + " " + llvm::Twine(i)).str());
      if (!geometry)
        return geometry.takeError();
      into.push_back(std::move(*geometry));
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = add(compute.inputs(), operands.inputs, "input"))
    return std::move(error);
  if (llvm::Error error = add(compute.outputs(), operands.outputs, "output"))
    return std::move(error);
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

llvm::Error checkOperandOverlaps(const cmd::Compute &compute,
                                 const ComputeOperands &operands) {
  bool inPlace = isRowLocal(compute.opcode());
  for (size_t o = 0; o < operands.outputs.size(); ++o) {
    const LocalGeometry *output = operands.getOutput(o);
    if (!output)
      continue;
    auto overlapTrap = [&](const LocalGeometry &other, int64_t lane) {
      return makeTrap(TrapKind::Overlap, output->describe() + " overlaps " +
                                             other.describe() + " on lane " +
                                             llvm::Twine(lane));
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
  return llvm::Error::success();
}

} // namespace llmc::cmodel
