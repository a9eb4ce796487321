//===- Generate.h - what a generation takes and gives back ------*- C++ -*-===//
//
// The options of one generated turn, the callback that streams its tokens,
// and its result: the ids, the text and where the time went, on the host and
// on the modelled chip.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_API_GENERATE_H
#define LLMC_RUNTIME_API_GENERATE_H

#include "runtime/sampling/Sampler.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc {

struct GenerateOptions {
  /// Tokens generated at most; 0 takes the binary's default. A turn also
  /// ends when the KV cache is full.
  int64_t maxNewTokens = 0;
  /// How tokens are chosen: none decodes greedily on the device (the
  /// greedy_head piece), parameters sample on the host.
  std::optional<sampling::SamplingParams> sampling;
  /// End the turn at one of the binary's stop tokens (its generation
  /// config's and its chat template's end-of-turn tokens).
  bool stopAtStopTokens = true;
  /// Return the logits each token was chosen from.
  bool keepLogits = false;
  /// Read special tokens written in a text prompt or a chat's messages
  /// ("<|im_end|>") as those tokens. Off, they are read as the text they
  /// are: people's words cannot inject control tokens. The chat template's
  /// own markers are special tokens either way.
  bool parseSpecialTokens = false;
};

/// Sees each generated token with the text it completes (possibly empty
/// while a UTF-8 character is incomplete; empty without a tokenizer);
/// returns false to end the turn with that token.
using TokenCallback = std::function<bool(int32_t id, std::string_view text)>;

/// Why a turn ended.
enum class FinishReason {
  /// It chose a stop token (the last generated id).
  StopToken,
  /// It generated GenerateOptions::maxNewTokens tokens.
  MaxTokens,
  /// The callback returned false.
  Callback,
  /// The KV cache cannot hold another token.
  CacheFull,
};

/// "stop token", "max tokens", "callback" or "cache full".
std::string_view stringifyFinishReason(FinishReason reason);

/// Where the time of one or more turns went. Host times are measured, chip
/// times are what the cmodel's time model predicts.
struct GenerateTimings {
  /// Tokens fed before the first generated token.
  int64_t promptTokens = 0;
  /// From the call to its first token, on the host; and the modelled time of
  /// the prompt up to that token on the chip.
  double firstTokenSeconds = 0;
  double promptModelledSeconds = 0;
  /// Tokens generated after the first, each a decode step, and their time.
  int64_t decodeTokens = 0;
  double decodeSeconds = 0;
  double decodeModelledSeconds = 0;

  /// Decode tokens per second on the host and on the modelled chip; 0
  /// without decode steps.
  double getHostTokensPerSecond() const;
  double getModelledTokensPerSecond() const;

  /// Adds a later turn: sums everything but the first token's time, which
  /// stays the first turn's.
  void add(const GenerateTimings &later);
};

struct GenerateResult {
  /// The ids fed for this turn: the previous turn's last token when it was
  /// fed, then the prompt.
  std::vector<int32_t> promptIds;
  /// The generated ids, the stop token included.
  std::vector<int32_t> ids;
  /// Their text, special tokens left out; empty without a tokenizer.
  std::string text;
  FinishReason finish = FinishReason::MaxTokens;
  GenerateTimings timings;
  /// [ids.size(), vocab] logits when GenerateOptions::keepLogits.
  std::vector<float> logits;
};

} // namespace llmc

#endif // LLMC_RUNTIME_API_GENERATE_H
