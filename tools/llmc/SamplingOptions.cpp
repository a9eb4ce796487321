//===- SamplingOptions.cpp - how run and chat choose tokens ---------------===//

#include "tools/llmc/SamplingOptions.h"

#include "support/Status.h"

#include <CLI/CLI.hpp>

namespace llmc {

void addSamplingOptions(CLI::App &command, SamplingOptions &options) {
  command.add_option("--temperature", options.temperature,
                     "Sample at this temperature (0: greedy)");
  command.add_option("--top-k", options.topK,
                     "Sample from the K most likely tokens (0: all)");
  command.add_option("--top-p", options.topP,
                     "Sample from the smallest set of tokens whose "
                     "probability reaches P");
  command.add_option("--repetition-penalty", options.repetitionPenalty,
                     "Hugging Face's repetition penalty over the recent "
                     "tokens (sample_head's window, else 64; 1: off)");
  command.add_option("--seed", options.seed, "Seed of the sampler");
}

absl::StatusOr<std::optional<sampling::SamplingParams>>
getSamplingParams(const SamplingOptions &options, const Model &model) {
  const binary::GenerationDefaults &defaults = model.getManifest().generation();
  if (!options.temperature && !options.topK && !options.topP &&
      !options.repetitionPenalty && !options.seed)
    return std::nullopt;
  sampling::SamplingParams params;
  params.temperature = options.temperature.value_or(defaults.temperature());
  params.greedy = params.temperature == 0.0f;
  if (params.greedy)
    params.temperature = 1.0f;
  params.topK = options.topK.value_or(defaults.top_k());
  // Unset defaults (0) mean the feature is off.
  params.topP =
      options.topP.value_or(defaults.top_p() > 0 ? defaults.top_p() : 1.0f);
  params.repetitionPenalty = options.repetitionPenalty.value_or(
      defaults.repetition_penalty() > 0 ? defaults.repetition_penalty() : 1.0f);
  params.seed = options.seed.value_or(0);
  if (const DeviceSampling *head = model.getDeviceSampling())
    params.penaltyWindow = head->getWindow();
  LLMC_RETURN_IF_ERROR(sampling::Sampler::validate(params));
  return params;
}

} // namespace llmc
