//===- Sampler.h - host-side choice of the next token -----------*- C++ -*-===//
//
// Chooses the next token from a row of logits, or draws it from the
// candidates a compiled model's `sample_head` piece returns.
//
// Greedy decoding takes the first maximum of the logits after the repetition
// penalty. Sampling applies, in sample_head's order (see CandidateFilter.h):
// the repetition penalty of Hugging Face (for each distinct id among the last
// `penaltyWindow` recent ids, a positive logit is divided by the penalty and
// any other multiplied by it), top-k, the temperature, softmax, top-p (the
// smallest prefix of the sorted probabilities whose sum reaches top_p, at
// least one token) and renormalization; then one token is drawn. Ties in the
// ranking go to the lower id.
//
// Draws are reproducible across platforms and standard libraries: the
// generator is std::mt19937_64 seeded with `seed`, each draw takes one 64-bit
// output and turns its top 53 bits into a double u in [0, 1), and the token is
// the first candidate whose running probability exceeds u times the total.
// The same seed and the same inputs give the same tokens. Greedy steps use no
// random numbers.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SAMPLING_SAMPLER_H
#define LLMC_RUNTIME_SAMPLING_SAMPLER_H

#include "runtime/sampling/CandidateFilter.h"

#include "support/Status.h"

#include "absl/types/span.h"

#include <cstdint>
#include <random>

namespace llmc::sampling {

/// The candidates sample_head keeps when built with default options (K). Set
/// `topK` to it for host sampling that matches the device's.
inline constexpr int64_t kSampleHeadTopK = 50;

struct SamplingParams {
  /// Divides the logits; must be positive unless `greedy`.
  float temperature = 1.0f;
  /// Keeps the K most likely tokens; 0 keeps every token.
  int64_t topK = 0;
  /// Keeps the smallest prefix of the sorted probabilities whose sum reaches
  /// it; 1 or more keeps every candidate, 0 (or NaN) only the best.
  float topP = 1.0f;
  /// Hugging Face's repetition penalty; must be positive, 1 turns it off.
  float repetitionPenalty = 1.0f;
  /// How many of the most recent ids the penalty looks at (sample_head's W).
  int64_t penaltyWindow = 64;
  /// Seeds the generator.
  uint64_t seed = 0;
  /// Take the most likely token instead of drawing one.
  bool greedy = false;
};

class Sampler {
public:
  explicit Sampler(const SamplingParams &params);

  /// Checks the parameters: a positive, finite temperature (unless greedy), a
  /// positive, finite penalty, and a non-negative top-k and window.
  static absl::Status validate(const SamplingParams &params);

  /// The next token after `logits` [V]. `recentIds` holds the conversation's
  /// latest ids, oldest first (the last `penaltyWindow` count; negative ids
  /// are empty slots). Fails on invalid parameters, empty logits, NaN or +inf
  /// logits, or a recent id at or past V.
  absl::StatusOr<int32_t> sample(absl::Span<const float> logits,
                                 absl::Span<const int32_t> recentIds);

  /// The filtering part of `sample`, as sample_head computes it: the
  /// min(topK, V) best candidates (all V when topK is 0) with their
  /// probabilities, 0 for those top-p cuts. When `greedy`, the single best
  /// token with probability 1.
  absl::StatusOr<Candidates>
  filterCandidates(absl::Span<const float> logits,
                   absl::Span<const int32_t> recentIds) const;

  /// Draws one of `ids` with the probabilities `probs` (as sample_head's
  /// outputs give them; they need not sum to 1). Fails when the sizes
  /// differ, the lists are empty, a probability is negative or not finite,
  /// all are 0, or an id is negative.
  absl::StatusOr<int32_t> drawFromCandidates(absl::Span<const float> probs,
                                             absl::Span<const int32_t> ids);

  /// Restarts the generator as if constructed with `seed`.
  void reseed(uint64_t seed);

  const SamplingParams &getParams() const { return params; }

private:
  /// The next uniform double in [0, 1) from the top 53 bits of one output.
  double nextUniform();

  SamplingParams params;
  std::mt19937_64 generator;
};

} // namespace llmc::sampling

#endif // LLMC_RUNTIME_SAMPLING_SAMPLER_H
