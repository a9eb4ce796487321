//===- CandidateFilter.cpp - penalty, top-k, temperature and top-p --------===//

#include "runtime/sampling/CandidateFilter.h"

#include "support/Strings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace llmc::sampling {

using support::strCat;

/// Softmax as the reference interpreter computes it: a float maximum, the
/// sum in double, each probability rounded to float.
static std::vector<float> softmax(absl::Span<const float> values) {
  float maximum = -std::numeric_limits<float>::infinity();
  for (float value : values)
    maximum = std::max(maximum, value);
  double sum = 0.0;
  for (float value : values)
    sum += std::exp(double(value) - maximum);
  std::vector<float> probs(values.size());
  for (size_t index = 0; index < values.size(); ++index)
    probs[index] =
        static_cast<float>(std::exp(double(values[index]) - maximum) / sum);
  return probs;
}

absl::Status checkLogits(absl::Span<const float> logits) {
  if (logits.empty())
    return absl::InvalidArgumentError("sampling: the logits are empty");
  for (size_t index = 0; index < logits.size(); ++index) {
    if (std::isnan(logits[index]))
      return absl::InvalidArgumentError(
          strCat("sampling: logit ", index, " is NaN"));
    if (logits[index] == std::numeric_limits<float>::infinity())
      return absl::InvalidArgumentError(
          strCat("sampling: logit ", index, " is +inf"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>>
applyRepetitionPenalty(absl::Span<const float> logits,
                       absl::Span<const int32_t> window, float penalty) {
  std::vector<float> penalized(logits.begin(), logits.end());
  std::vector<bool> done(logits.size(), false);
  for (int32_t id : window) {
    if (id < 0)
      continue;
    if (static_cast<size_t>(id) >= logits.size())
      return absl::InvalidArgumentError(strCat("sampling: recent token id ", id,
                                               " is outside the vocabulary of ",
                                               logits.size()));
    if (done[id])
      continue;
    done[id] = true;
    float logit = logits[id];
    penalized[id] = logit > 0.0f ? logit / penalty : logit * penalty;
  }
  return penalized;
}

int32_t argmaxFirst(absl::Span<const float> values) {
  return static_cast<int32_t>(std::max_element(values.begin(), values.end()) -
                              values.begin());
}

absl::StatusOr<Candidates> selectCandidates(absl::Span<const float> penalized,
                                            int64_t topK, float temperature,
                                            float topP) {
  int64_t vocab = static_cast<int64_t>(penalized.size());
  int64_t k = topK == 0 ? vocab : std::min(topK, vocab);
  std::vector<int32_t> order(vocab);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int32_t a, int32_t b) {
                      if (penalized[a] != penalized[b])
                        return penalized[a] > penalized[b];
                      return a < b;
                    });
  order.resize(k);

  std::vector<float> scaled(k);
  for (int64_t i = 0; i < k; ++i)
    scaled[i] = penalized[order[i]] / temperature;
  if (std::isinf(scaled[0]))
    return absl::InvalidArgumentError(
        scaled[0] > 0 ? "sampling: the best logit overflows to +inf after the "
                        "repetition penalty and the temperature"
                      : "sampling: every logit is -inf");

  // Top-p on the running sum before each candidate, accumulated in double
  // and compared in float as sample_head's exclusive CumSum does.
  std::vector<float> probs = softmax(scaled);
  double before = 0.0;
  for (int64_t i = 0; i < k; ++i) {
    bool keep = i == 0 || static_cast<float>(before) < topP;
    before += probs[i];
    if (!keep)
      scaled[i] = -std::numeric_limits<float>::infinity();
  }
  return Candidates{softmax(scaled), std::move(order)};
}

} // namespace llmc::sampling
