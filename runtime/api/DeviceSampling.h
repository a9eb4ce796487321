//===- DeviceSampling.h - sampling on a binary's sample_head ----*- C++ -*-===//
//
// A binary compiled with a `sample_head` piece filters the candidates on the
// device (repetition penalty, top-k, temperature, top-p; docs/pieces.md):
// the host only draws one of the K candidates it returns, with the
// sampler's own generator, so a seed gives the tokens host sampling gives.
// The head fixes K, the candidates it ranks, and the penalty window W when
// it is compiled, so it serves the parameters that ask for a top-k of at
// most K and that window; others sample on the host.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_DEVICESAMPLING_H
#define LLMC_RUNTIME_API_DEVICESAMPLING_H

#include "runtime/sampling/Sampler.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"

#include <optional>

namespace llmc {
namespace device {
class BinaryRunner;
} // namespace device

class DeviceSampling {
public:
  /// The binary's sample_head, or std::nullopt when it has none; an error
  /// when its inputs are not the ones docs/pieces.md lists.
  static absl::StatusOr<std::optional<DeviceSampling>>
  find(device::BinaryRunner &device);

  /// Whether the head computes what `params` ask for: drawing (not greedy)
  /// with a top-k of at most K (0, every token, when V <= K) and its
  /// penalty window.
  bool serves(const sampling::SamplingParams &params) const;

  /// Runs sample_head on `logits` [V] and the conversation's `recentIds`
  /// (oldest first; the last W are used, fewer are padded with empty
  /// slots), then draws one of its candidates with `sampler`.
  absl::StatusOr<int32_t> sample(sampling::Sampler &sampler,
                                 absl::Span<const float> logits,
                                 absl::Span<const int32_t> recentIds);

  int64_t getWindow() const { return window; }
  int64_t getCandidates() const { return candidates; }

private:
  DeviceSampling(device::BinaryRunner &device, int64_t vocab, int64_t window,
                 int64_t candidates)
      : device(&device), vocab(vocab), window(window), candidates(candidates) {}

  device::BinaryRunner *device;
  int64_t vocab;
  int64_t window;
  int64_t candidates;
};

} // namespace llmc

#endif // LLMC_RUNTIME_API_DEVICESAMPLING_H
