//===- DeviceSampling.cpp - sampling on a binary's sample_head ------------===//

#include "runtime/api/DeviceSampling.h"

#include "runtime/device/BinaryRunner.h"
#include "support/Status.h"
#include "support/Strings.h"

#include <algorithm>

namespace llmc {

static constexpr std::string_view kSampleHead = "sample_head";

template <typename... Pieces>
static absl::Status headError(const Pieces &...message) {
  return absl::InvalidArgumentError(
      support::strCat(kSampleHead, ": ", message...));
}

absl::StatusOr<std::optional<DeviceSampling>>
DeviceSampling::find(device::BinaryRunner &device) {
  const binary::Piece *head = device.getPiece(kSampleHead);
  if (!head)
    return std::nullopt;
  // Inputs logits [1, V], recent_ids [1, W], penalty, temperature, top_p,
  // top_k [1, 1]; outputs probs and token_ids [1, K].
  static constexpr std::string_view kInputs[] = {
      "logits", "recent_ids", "penalty", "temperature", "top_p", "top_k"};
  if (head->inputs_size() != 6 || head->outputs_size() != 2)
    return headError("expected 6 inputs and 2 outputs");
  for (int index = 0; index < head->inputs_size(); ++index) {
    const binary::Tensor &input = head->inputs(index);
    if (input.role() != kInputs[index] || input.shape_size() != 2)
      return headError("input '", input.name(), "' is not ", kInputs[index],
                       " [1, n]");
  }
  for (const binary::Tensor &output : head->outputs())
    if (output.shape_size() != 2)
      return headError("output '", output.name(), "' is not [1, K]");
  return DeviceSampling(device, head->inputs(0).shape(1),
                        head->inputs(1).shape(1), head->outputs(0).shape(1));
}

bool DeviceSampling::serves(const sampling::SamplingParams &params) const {
  // Top-k 0 keeps every token: the head returns them all only when the
  // vocabulary is no larger than K.
  bool topK = params.topK > 0 ? params.topK <= candidates : vocab <= candidates;
  return !params.greedy && topK && params.penaltyWindow == window;
}

absl::StatusOr<int32_t>
DeviceSampling::sample(sampling::Sampler &sampler,
                       absl::Span<const float> logits,
                       absl::Span<const int32_t> recentIds) {
  if (static_cast<int64_t>(logits.size()) != vocab)
    return headError("given ", logits.size(), " logits for a vocabulary of ",
                     vocab);
  // Empty slots (-1) first, then the last W ids, oldest first.
  std::vector<int32_t> recent(window, -1);
  absl::Span<const int32_t> kept =
      recentIds.last(std::min(recentIds.size(), size_t(window)));
  std::copy(kept.begin(), kept.end(), recent.end() - kept.size());
  const sampling::SamplingParams &params = sampler.getParams();
  std::vector<top::Tensor> inputs;
  inputs.push_back(top::Tensor::fromF32(
      {1, vocab}, std::vector<float>(logits.begin(), logits.end())));
  inputs.push_back(top::Tensor::fromI32({1, window}, std::move(recent)));
  for (float scalar :
       {params.repetitionPenalty, params.temperature, params.topP})
    inputs.push_back(top::Tensor::fromF32({1, 1}, {scalar}));
  int64_t topK = params.topK > 0 ? params.topK : candidates;
  inputs.push_back(top::Tensor::fromI32({1, 1}, {static_cast<int32_t>(topK)}));
  LLMC_ASSIGN_OR_RETURN(std::vector<top::Tensor> outputs,
                        device->run(kSampleHead, inputs));
  const top::Tensor &probs = outputs[0], &ids = outputs[1];
  return sampler.drawFromCandidates(probs.getF32(), ids.getI32());
}

} // namespace llmc
