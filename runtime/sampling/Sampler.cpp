//===- Sampler.cpp - host-side choice of the next token -------------------===//

#include "runtime/sampling/Sampler.h"

#include "support/Strings.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace llmc::sampling {

using support::strCat;

static absl::Status invalid(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

/// `value` as printf's %g shows it.
static std::string show(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

Sampler::Sampler(const SamplingParams &params)
    : params(params), generator(params.seed) {}

absl::Status Sampler::validate(const SamplingParams &params) {
  if (!params.greedy &&
      !(params.temperature > 0.0f && std::isfinite(params.temperature)))
    return invalid(strCat("sampling: the temperature must be positive and "
                          "finite (got ",
                          show(params.temperature),
                          "); use greedy decoding for temperature 0"));
  if (!(params.repetitionPenalty > 0.0f &&
        std::isfinite(params.repetitionPenalty)))
    return invalid(strCat("sampling: the repetition penalty must be positive "
                          "and finite (got ",
                          show(params.repetitionPenalty), ")"));
  if (params.topK < 0)
    return invalid(
        strCat("sampling: top-k must not be negative (got ", params.topK, ")"));
  if (params.penaltyWindow < 0)
    return invalid(
        strCat("sampling: the penalty window must not be negative (got ",
               params.penaltyWindow, ")"));
  return absl::OkStatus();
}

void Sampler::reseed(uint64_t seed) {
  params.seed = seed;
  generator.seed(seed);
}

double Sampler::nextUniform() {
  return static_cast<double>(generator() >> 11) * 0x1.0p-53;
}

absl::StatusOr<Candidates>
Sampler::filterCandidates(absl::Span<const float> logits,
                          absl::Span<const int32_t> recentIds) const {
  LLMC_RETURN_IF_ERROR(validate(params));
  LLMC_RETURN_IF_ERROR(checkLogits(logits));
  size_t window = std::min<size_t>(recentIds.size(), params.penaltyWindow);
  LLMC_ASSIGN_OR_RETURN(std::vector<float> penalized,
                        applyRepetitionPenalty(logits, recentIds.last(window),
                                               params.repetitionPenalty));
  if (params.greedy)
    return Candidates{{1.0f}, {argmaxFirst(penalized)}};
  return selectCandidates(penalized, params.topK, params.temperature,
                          params.topP);
}

absl::StatusOr<int32_t> Sampler::sample(absl::Span<const float> logits,
                                        absl::Span<const int32_t> recentIds) {
  LLMC_ASSIGN_OR_RETURN(Candidates candidates,
                        filterCandidates(logits, recentIds));
  if (params.greedy)
    return candidates.ids.front();
  return drawFromCandidates(candidates.probs, candidates.ids);
}

absl::StatusOr<int32_t>
Sampler::drawFromCandidates(absl::Span<const float> probs,
                            absl::Span<const int32_t> ids) {
  if (probs.size() != ids.size())
    return invalid(strCat("sampling: ", probs.size(), " probabilities for ",
                          ids.size(), " candidate ids"));
  if (probs.empty())
    return invalid("sampling: there are no candidates to draw from");
  double total = 0.0;
  for (size_t index = 0; index < probs.size(); ++index) {
    float prob = probs[index];
    if (!(prob >= 0.0f && std::isfinite(prob)))
      return invalid(strCat("sampling: candidate ", index, " has probability ",
                            show(prob)));
    if (ids[index] < 0)
      return invalid(strCat("sampling: candidate ", index,
                            " has the negative id ", ids[index]));
    total += prob;
  }
  if (total <= 0.0)
    return invalid("sampling: every candidate has probability 0");

  double target = nextUniform() * total;
  double running = 0.0;
  int32_t last = -1;
  for (size_t index = 0; index < probs.size(); ++index) {
    if (probs[index] == 0.0f)
      continue;
    running += probs[index];
    last = ids[index];
    if (target < running)
      return last;
  }
  // Rounding can leave the total a hair above the last running sum.
  return last;
}

} // namespace llmc::sampling
