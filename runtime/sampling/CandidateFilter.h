//===- CandidateFilter.h - the filtering steps of sampling ------*- C++ -*-===//
//
// The filtering steps of sampling, free of any random state. They follow the
// `sample_head` piece (frontends/llm/HeadBuilder.cpp, docs/pieces.md) step
// by step and in float32 where it computes in float32, so that a runtime
// that samples on the host and one that runs sample_head on the device see
// the same candidates:
//
//   1. Hugging Face's repetition penalty, once per distinct id of the window:
//      a positive logit is divided by the penalty, any other multiplied.
//      Negative ids are empty window slots.
//   2. The K largest penalized logits, ties broken by the lower id.
//   3. Division by the temperature (after top-k: a positive temperature
//      keeps the order).
//   4. Softmax, then top-p: a candidate stays when the candidates ranked
//      above it hold less than top_p, which keeps exactly the smallest prefix
//      that reaches top_p; the best candidate always stays (also for a top_p
//      of 0, negative or NaN).
//   5. Softmax over the kept candidates; the others get probability 0.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SAMPLING_CANDIDATEFILTER_H
#define LLMC_RUNTIME_SAMPLING_CANDIDATEFILTER_H

#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>
#include <vector>

namespace llmc::sampling {

/// Tokens a sampler may draw, most likely first, as sample_head returns
/// them: `probs[i]` is the probability of token `ids[i]`; candidates cut by
/// top-p are listed with probability 0.
struct Candidates {
  std::vector<float> probs;
  std::vector<int32_t> ids;
};

/// Checks that `logits` is non-empty and holds no NaN and no +inf.
absl::Status checkLogits(absl::Span<const float> logits);

/// `logits` with the repetition penalty applied to each distinct id of
/// `window`. Negative ids are skipped; an id at or past the vocabulary size
/// is an error.
absl::StatusOr<std::vector<float>>
applyRepetitionPenalty(absl::Span<const float> logits,
                       absl::Span<const int32_t> window, float penalty);

/// The index of the first maximum of `values` (non-empty, no NaN).
int32_t argmaxFirst(absl::Span<const float> values);

/// Steps 2 to 5 on already penalized logits: the min(topK, V) best
/// candidates (all V when `topK` is 0). `temperature` must be positive.
/// Fails when the scaled logits overflow or are all -inf.
absl::StatusOr<Candidates> selectCandidates(absl::Span<const float> penalized,
                                            int64_t topK, float temperature,
                                            float topP);

} // namespace llmc::sampling

#endif // LLMC_RUNTIME_SAMPLING_CANDIDATEFILTER_H
