//===- Operands.h - the validated operands of a compute command -*- C++ -*-===//
//
// A compute command's inputs and outputs, each checked against the chip
// (Geometry.h), then against its opcode's rules (checkComputeRules). The
// kernels and the time model rely on both checks having passed.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_OPERANDS_H
#define LLMC_BACKENDS_COMMON_CMODEL_OPERANDS_H

#include "backends/common/cmodel/Geometry.h"

#include "support/Status.h"

#include <optional>
#include <string_view>
#include <vector>

namespace llmc::cmodel {

struct ComputeOperands {
  /// Absent optional operands (rows = 0) are nullopt.
  std::vector<std::optional<LocalGeometry>> inputs;
  std::vector<std::optional<LocalGeometry>> outputs;

  const LocalGeometry *getInput(size_t i) const {
    return i < inputs.size() && inputs[i] ? &*inputs[i] : nullptr;
  }
  const LocalGeometry *getOutput(size_t i) const {
    return i < outputs.size() && outputs[i] ? &*outputs[i] : nullptr;
  }
  /// The output whose blocks say what each lane computes: the first present.
  const LocalGeometry *getPrimaryOutput() const {
    for (const auto &output : outputs)
      if (output)
        return &*output;
    return nullptr;
  }
};

/// The opcode's name (`MATMUL`).
std::string_view getOpcodeName(cmd::Opcode opcode);

/// Checks every operand of `compute` against the chip.
absl::StatusOr<ComputeOperands>
createComputeOperands(const cmd::Compute &compute,
                      const plugins::ChipDescriptor &chip);

/// Checks `compute`'s operand counts, types, shapes and attributes, that
/// every lane holds what its part of the output needs, and that outputs do
/// not overlap inputs (except an exact in-place operand of a row-local op).
absl::Status checkComputeRules(const cmd::Compute &compute,
                               const ComputeOperands &operands);

/// The overlap part of checkComputeRules.
absl::Status checkOperandOverlaps(const cmd::Compute &compute,
                                  const ComputeOperands &operands);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_OPERANDS_H
