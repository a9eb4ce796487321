//===- SamplingOptions.h - how run and chat choose tokens -------*- C++ -*-===//
//
// --temperature, --top-k, --top-p, --repetition-penalty and --seed. Without
// any of them `llmc run` and `llmc chat` decode greedily with the binary's
// greedy_head;
// with one, runtime/sampling's Sampler chooses on the host, the flags not
// given taking the binary's generation defaults.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_SAMPLINGOPTIONS_H
#define LLMC_TOOLS_LLMC_SAMPLINGOPTIONS_H

#include "runtime/llmc.h"

#include <optional>

namespace CLI {
class App;
} // namespace CLI

namespace llmc {

/// The sampling flags given.
struct SamplingOptions {
  std::optional<float> temperature;
  std::optional<int64_t> topK;
  std::optional<float> topP;
  std::optional<float> repetitionPenalty;
  std::optional<uint64_t> seed;
};

/// Adds the sampling flags to `command`.
void addSamplingOptions(CLI::App &command, SamplingOptions &options);

/// The sampling parameters `options` select over `model`'s generation
/// defaults, validated; none when no sampling flag was given. The penalty
/// looks at as many recent tokens as the model's sample_head does.
absl::StatusOr<std::optional<sampling::SamplingParams>>
getSamplingParams(const SamplingOptions &options, const Model &model);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_SAMPLINGOPTIONS_H
