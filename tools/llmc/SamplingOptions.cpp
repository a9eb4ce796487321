//===- SamplingOptions.cpp - how run and chat choose tokens ---------------===//

#include "tools/llmc/SamplingOptions.h"

#include "support/LlvmStatus.h"
#include "tools/llmc/Commands.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<float>
    temperature("temperature",
                cl::desc("Sample at this temperature (0: greedy)"),
                cl::sub(getRunCommand()), cl::sub(getChatCommand()));
static cl::opt<int64_t>
    topK("top-k", cl::desc("Sample from the K most likely tokens (0: all)"),
         cl::sub(getRunCommand()), cl::sub(getChatCommand()));
static cl::opt<float>
    topP("top-p",
         cl::desc("Sample from the smallest set of tokens whose probability "
                  "reaches P"),
         cl::sub(getRunCommand()), cl::sub(getChatCommand()));
static cl::opt<float> repetitionPenalty(
    "repetition-penalty",
    cl::desc("Hugging Face's repetition penalty over the recent tokens "
             "(sample_head's window, else 64; 1: off)"),
    cl::sub(getRunCommand()), cl::sub(getChatCommand()));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the sampler"),
                              cl::init(0), cl::sub(getRunCommand()),
                              cl::sub(getChatCommand()));

/// The flag's value when given, else `fallback`.
template <typename T, typename U>
static T valueOr(const cl::opt<T> &flag, U fallback) {
  return flag.getNumOccurrences() ? T(flag) : T(fallback);
}

llvm::Expected<std::optional<sampling::SamplingParams>>
getSamplingParams(const Model &model) {
  const binary::GenerationDefaults &defaults = model.getManifest().generation();
  if (!temperature.getNumOccurrences() && !topK.getNumOccurrences() &&
      !topP.getNumOccurrences() && !repetitionPenalty.getNumOccurrences() &&
      !seed.getNumOccurrences())
    return std::nullopt;
  sampling::SamplingParams params;
  params.temperature = valueOr(temperature, defaults.temperature());
  params.greedy = params.temperature == 0.0f;
  if (params.greedy)
    params.temperature = 1.0f;
  params.topK = valueOr(topK, defaults.top_k());
  // Unset defaults (0) mean the feature is off.
  params.topP = valueOr(topP, defaults.top_p() > 0 ? defaults.top_p() : 1.0);
  params.repetitionPenalty = valueOr(
      repetitionPenalty,
      defaults.repetition_penalty() > 0 ? defaults.repetition_penalty() : 1.0);
  params.seed = seed;
  if (const DeviceSampling *head = model.getDeviceSampling())
    params.penaltyWindow = head->getWindow();
  if (llvm::Error error =
          support::toLlvmError(sampling::Sampler::validate(params)))
    return std::move(error);
  return params;
}

} // namespace llmc
