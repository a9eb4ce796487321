//===- Sampler.cpp - host-side choice of the next token -------------------===//

#include "runtime/sampling/Sampler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace llmc::sampling {

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// `value` as printf's %g shows it.
static std::string show(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

Sampler::Sampler(const SamplingParams &params)
    : params(params), generator(params.seed) {}

llvm::Error Sampler::validate(const SamplingParams &params) {
  if (!params.greedy &&
      !(params.temperature > 0.0f && std::isfinite(params.temperature)))
    return makeError("sampling: the temperature must be positive and finite "
                     "(got " +
                     show(params.temperature) +
                     "); use greedy decoding for temperature 0");
  if (!(params.repetitionPenalty > 0.0f &&
        std::isfinite(params.repetitionPenalty)))
    return makeError("sampling: the repetition penalty must be positive and "
                     "finite (got " +
                     show(params.repetitionPenalty) + ")");
  if (params.topK < 0)
    return makeError("sampling: top-k must not be negative (got " +
                     llvm::Twine(params.topK) + ")");
  if (params.penaltyWindow < 0)
    return makeError("sampling: the penalty window must not be negative (got " +
                     llvm::Twine(params.penaltyWindow) + ")");
  return llvm::Error::success();
}

void Sampler::reseed(uint64_t seed) {
  params.seed = seed;
  generator.seed(seed);
}

double Sampler::nextUniform() {
  return static_cast<double>(generator() >> 11) * 0x1.0p-53;
}

llvm::Expected<Candidates>
Sampler::filterCandidates(llvm::ArrayRef<float> logits,
                          llvm::ArrayRef<int32_t> recentIds) const {
  if (llvm::Error error = validate(params))
    return std::move(error);
  if (llvm::Error error = checkLogits(logits))
    return std::move(error);
  size_t window = std::min<size_t>(recentIds.size(), params.penaltyWindow);
  llvm::Expected<std::vector<float>> penalized = applyRepetitionPenalty(
      logits, recentIds.take_back(window), params.repetitionPenalty);
  if (!penalized)
    return penalized.takeError();
  if (params.greedy)
    return Candidates{{1.0f}, {argmaxFirst(*penalized)}};
  return selectCandidates(*penalized, params.topK, params.temperature,
                          params.topP);
}

llvm::Expected<int32_t> Sampler::sample(llvm::ArrayRef<float> logits,
                                        llvm::ArrayRef<int32_t> recentIds) {
  llvm::Expected<Candidates> candidates = filterCandidates(logits, recentIds);
  if (!candidates)
    return candidates.takeError();
  if (params.greedy)
    return candidates->ids.front();
  return drawFromCandidates(candidates->probs, candidates->ids);
}

llvm::Expected<int32_t>
Sampler::drawFromCandidates(llvm::ArrayRef<float> probs,
                            llvm::ArrayRef<int32_t> ids) {
  if (probs.size() != ids.size())
    return makeError("sampling: " + llvm::Twine(probs.size()) +
                     " probabilities for " + llvm::Twine(ids.size()) +
                     " candidate ids");
  if (probs.empty())
    return makeError("sampling: there are no candidates to draw from");
  double total = 0.0;
  for (auto [index, prob, id] : llvm::enumerate(probs, ids)) {
    if (!(prob >= 0.0f && std::isfinite(prob)))
      return makeError("sampling: candidate " + llvm::Twine(index) +
                       " has probability " + show(prob));
    if (id < 0)
      return makeError("sampling: candidate " + llvm::Twine(index) +
                       " has the negative id " + llvm::Twine(id));
    total += prob;
  }
  if (total <= 0.0)
    return makeError("sampling: every candidate has probability 0");

  double target = nextUniform() * total;
  double running = 0.0;
  int32_t last = -1;
  for (auto [prob, id] : llvm::zip_equal(probs, ids)) {
    if (prob == 0.0f)
      continue;
    running += prob;
    last = id;
    if (target < running)
      return id;
  }
  // Rounding can leave the total a hair above the last running sum.
  return last;
}

} // namespace llmc::sampling
