//===- Conversation.cpp - turns of token ids on one KV cache --------------===//

#include "runtime/api/Conversation.h"

#include "runtime/api/Model.h"
#include "runtime/api/TimingRecorder.h"
#include "runtime/device/BinaryRunner.h"
#include "runtime/session/Generation.h"
#include "runtime/tokenizer/StreamingDetokenizer.h"
#include "support/Status.h"

#include "absl/algorithm/container.h"

#include <algorithm>

namespace llmc {

Conversation::Conversation(Model &model)
    : model(model), session(model.getDevice(), model.getDims()) {}

void Conversation::rewind(int64_t length) {
  session.truncate(length);
  pending.reset();
  sampler.reset();
}

void Conversation::reset() {
  session.reset();
  sampler.reset();
  pending.reset();
}

static bool sameParams(const sampling::SamplingParams &a,
                       const sampling::SamplingParams &b) {
  return a.temperature == b.temperature && a.topK == b.topK &&
         a.topP == b.topP && a.repetitionPenalty == b.repetitionPenalty &&
         a.penaltyWindow == b.penaltyWindow && a.seed == b.seed &&
         a.greedy == b.greedy;
}

absl::StatusOr<sampling::Sampler *>
Conversation::getSampler(const sampling::SamplingParams &params) {
  if (sampler && sameParams(sampler->getParams(), params))
    return &*sampler;
  LLMC_RETURN_IF_ERROR(sampling::Sampler::validate(params));
  sampler.emplace(params);
  return &*sampler;
}

absl::StatusOr<GenerateResult>
Conversation::send(absl::Span<const int32_t> ids,
                   const GenerateOptions &options,
                   const TokenCallback &callback, PendingToken policy,
                   const session::PlacedEmbeddings *placed) {
  GenerateResult result;
  std::optional<session::PlacedEmbeddings> shifted;
  if (pending && policy == PendingToken::Feed) {
    result.promptIds.push_back(*pending);
    // The pending token goes first: the placed rows move one on.
    if (placed) {
      shifted = *placed;
      for (int64_t &position : shifted->positions)
        ++position;
      placed = &*shifted;
    }
  }
  result.promptIds.insert(result.promptIds.end(), ids.begin(), ids.end());
  if (result.promptIds.empty())
    return absl::InvalidArgumentError(
        "nothing to send: the turn has no tokens");
  int64_t history = getHistoryLength();
  int64_t promptLength = static_cast<int64_t>(result.promptIds.size());
  if (history + promptLength > getCapacity())
    return session::cacheCapacityError(history + promptLength, getCapacity());
  int64_t wanted = options.maxNewTokens > 0 ? options.maxNewTokens
                                            : model.getDefaultMaxNewTokens();
  session::GenerationLimits limits;
  // n tokens feed n - 1 of them after the prompt.
  limits.maxNewTokens =
      std::min(wanted, getCapacity() - history - promptLength + 1);
  if (options.stopAtStopTokens)
    limits.stopTokens = model.getStopTokens();

  sampling::Sampler *chosen = nullptr;
  if (options.sampling) {
    LLMC_ASSIGN_OR_RETURN(chosen, getSampler(*options.sampling));
  }
  // The binary's sample_head filters the candidates when it computes what
  // the parameters ask for.
  DeviceSampling *head = model.getDeviceSampling();
  if (chosen && head && !head->serves(chosen->getParams()))
    head = nullptr;
  auto choose = [&](absl::Span<const float> logits) -> absl::StatusOr<int32_t> {
    if (!chosen)
      return session.pickGreedy(logits);
    if (head)
      return head->sample(*chosen, logits, session.getTokens());
    absl::Span<const int32_t> tokens = session.getTokens();
    return chosen->sample(
        logits, tokens.last(std::min(
                    tokens.size(),
                    static_cast<size_t>(chosen->getParams().penaltyWindow))));
  };

  std::optional<tokenizer::StreamingDetokenizer> detokenizer;
  if (const tokenizer::Tokenizer *tokenizer = model.getTokenizer())
    detokenizer.emplace(*tokenizer, /*skipSpecial=*/true);
  device::BinaryRunner &device = model.getDevice();
  TimingRecorder recorder(device.getTotals().seconds, promptLength);
  bool endedByCallback = false;
  auto sink = [&](const session::GeneratedToken &token) {
    recorder.record(token.step, device.getTotals().seconds);
    if (options.keepLogits)
      result.logits.insert(result.logits.end(), token.logits.begin(),
                           token.logits.end());
    bool last = token.step + 1 == limits.maxNewTokens ||
                absl::c_linear_search(limits.stopTokens, token.id);
    std::string text;
    if (detokenizer) {
      text = detokenizer->push(token.id);
      if (last)
        text += detokenizer->flush();
    }
    result.text += text;
    if (!callback || callback(token.id, text) || last)
      return true;
    endedByCallback = true;
    return false;
  };
  LLMC_RETURN_IF_ERROR(session::generateTurn(session, result.promptIds,
                                             /*turn=*/0, limits, choose, sink,
                                             result.ids, placed));

  pending = result.ids.back();
  if (endedByCallback && detokenizer)
    result.text += detokenizer->flush();
  if (absl::c_linear_search(limits.stopTokens, result.ids.back()))
    result.finish = FinishReason::StopToken;
  else if (endedByCallback)
    result.finish = FinishReason::Callback;
  else if (static_cast<int64_t>(result.ids.size()) == wanted)
    result.finish = FinishReason::MaxTokens;
  else
    result.finish = FinishReason::CacheFull;
  result.timings = recorder.getTimings();
  return result;
}

} // namespace llmc
