//===- RopeTables.h - the rotary cos/sin tables a model needs --*- C++ -*-===//
//
// Rotary angles depend only on the position, rope_theta and rope_scaling, so
// llmc computes them once into [S, rotary_dim] tables that block pieces
// gather by position id. The tables are weights llmc generates itself.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_ROPETABLES_H
#define LLMC_FRONTENDS_LLM_ROPETABLES_H

#include "plugins/ModelSpec.h"
#include "plugins/WeightSource.h"

#include <vector>

namespace llmc::llm {

inline constexpr llvm::StringLiteral kRopeCosName = "llmc.rope.cos";
inline constexpr llvm::StringLiteral kRopeSinName = "llmc.rope.sin";
/// The tables of the sliding layers when they rotate with their own base
/// (ModelSpec::slidingRopeTheta).
inline constexpr llvm::StringLiteral kSlidingRopeCosName =
    "llmc.rope_sliding.cos";
inline constexpr llvm::StringLiteral kSlidingRopeSinName =
    "llmc.rope_sliding.sin";

struct RopeTableNames {
  llvm::StringLiteral cos, sin;
};

/// The tables `layer` gathers its angles from.
RopeTableNames getRopeTableNames(const plugins::ModelSpec &spec,
                                 int64_t layer);

/// The inverse frequency of each rotated channel pair, after rope_scaling
/// (Hugging Face's `_compute_*_parameters`), for a context of `positions`.
std::vector<double> computeInverseFrequencies(const plugins::ModelSpec &spec,
                                              int64_t positions);

/// Adds the cos and sin tables for positions [0, positions) to `weights`,
/// laid out for the model's channel pairing: the model's, and the sliding
/// layers' when they have their own base.
llvm::Error addRopeTables(const plugins::ModelSpec &spec, int64_t positions,
                          plugins::OverlayWeightSource &weights);

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_ROPETABLES_H
