//===- GenerateOptions.cpp - the C options as the C++ API's ---------------===//

#include "runtime/c/GenerateOptions.h"

namespace llmc {

GenerateOptions toGenerateOptions(const llmc_generate_options *options) {
  llmc_generate_options defaults;
  llmc_generate_options_init(&defaults);
  const llmc_generate_options &c = options ? *options : defaults;
  GenerateOptions result;
  result.maxNewTokens = c.max_new_tokens;
  result.stopAtStopTokens = c.stop_at_stop_tokens != 0;
  result.parseSpecialTokens = c.parse_special_tokens != 0;
  result.keepLogits = c.keep_logits != 0;
  if (c.temperature != 0.0f) {
    sampling::SamplingParams sampling;
    sampling.temperature = c.temperature;
    sampling.topK = c.top_k;
    sampling.topP = c.top_p;
    sampling.repetitionPenalty = c.repetition_penalty;
    sampling.seed = c.seed;
    result.sampling = sampling;
  }
  return result;
}

} // namespace llmc
