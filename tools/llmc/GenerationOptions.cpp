//===- GenerationOptions.cpp - options and outputs of generating commands -===//

#include "tools/llmc/GenerationOptions.h"

#include "dialects/top/Interpreter/NpyFile.h"
#include "runtime/session/Session.h"
#include "support/Strings.h"
#include "tools/llmc/CommandSupport.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <sched.h>
#include <thread>

namespace llmc {

void addGenerationOptions(CLI::App &command, GenerationOptions &options,
                          bool withInputIds) {
  if (withInputIds)
    command
        .add_option("--input-ids", options.inputIds,
                    "Comma-separated token ids of one turn (repeat for more "
                    "turns)")
        ->allow_extra_args(false);
  command.add_option("--max-new-tokens", options.maxNewTokens,
                     "Tokens generated per turn (eval, run: 16; chat: the "
                     "binary's default)");
  if (withInputIds)
    command.add_option("--logits-out", options.logitsOut,
                       "Write float32 [generated, vocab] logits as .npy");
  command.add_option("--ids-out", options.idsOut,
                     "Write prompt and generated ids as JSON");
  command.add_option("-j,--threads", options.threads,
                     "Threads per kernel (default: all cores)");
  command.add_flag("--allow-special", options.allowSpecial,
                   "Read special tokens typed in -p text or chat turns "
                   "(\"<|im_end|>\") as those tokens; by default they are "
                   "text");
}

static absl::StatusOr<std::vector<int32_t>> parseIds(std::string_view text) {
  std::vector<int32_t> ids;
  for (std::string_view field : support::split(text, ',')) {
    if (field.empty())
      continue;
    std::optional<int32_t> id =
        support::parseInteger<int32_t>(support::trim(field));
    if (!id || *id < 0)
      return absl::InvalidArgumentError(
          support::strCat("--input-ids: '", field, "' is not a token id"));
    ids.push_back(*id);
  }
  if (ids.empty())
    return absl::InvalidArgumentError("--input-ids: a turn has no tokens");
  return ids;
}

absl::StatusOr<std::vector<session::Turn>>
getInputTurns(const GenerationOptions &options) {
  std::vector<session::Turn> turns;
  for (const std::string &text : options.inputIds) {
    LLMC_ASSIGN_OR_RETURN(std::vector<int32_t> ids, parseIds(text));
    turns.push_back({std::move(ids), {}});
  }
  return turns;
}

absl::StatusOr<int64_t> getMaxNewTokens(const GenerationOptions &options) {
  int64_t maxNewTokens = options.maxNewTokens.value_or(kDefaultMaxNewTokens);
  if (maxNewTokens < 1)
    return absl::InvalidArgumentError("--max-new-tokens must be positive");
  return maxNewTokens;
}

unsigned getThreadCount(unsigned threads) {
  if (threads)
    return threads;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
      CPU_COUNT(&allowed) > 0)
    return CPU_COUNT(&allowed);
  return std::max(1u, std::thread::hardware_concurrency());
}

absl::Status explainCapacity(const absl::Status &error,
                             std::string_view remedy) {
  if (!session::getCacheCapacity(error))
    return error;
  return support::suffixStatus(error, support::strCat(" (", remedy, ")"));
}

nlohmann::json turnsToJson(absl::Span<const session::Turn> turns) {
  nlohmann::json prompt = nlohmann::json::array();
  nlohmann::json generated = nlohmann::json::array();
  nlohmann::json turnList = nlohmann::json::array();
  for (const session::Turn &turn : turns) {
    for (int32_t id : turn.inputIds)
      prompt.push_back(id);
    for (int32_t id : turn.generated)
      generated.push_back(id);
    turnList.push_back(
        {{"input_ids", turn.inputIds}, {"generated", turn.generated}});
  }
  return {{"prompt", std::move(prompt)},
          {"generated", std::move(generated)},
          {"turns", std::move(turnList)}};
}

absl::Status writeGenerationOutputs(const GenerationOptions &options,
                                    absl::Span<const session::Turn> turns,
                                    absl::Span<const float> logits,
                                    int64_t vocab, bool printIds) {
  if (!options.logitsOut.empty()) {
    int64_t rows = static_cast<int64_t>(logits.size()) / vocab;
    top::Tensor tensor = top::Tensor::fromF32(
        {rows, vocab}, std::vector<float>(logits.begin(), logits.end()));
    LLMC_RETURN_IF_ERROR(
        writeFileAtomically(options.logitsOut, top::serializeNpy(tensor)));
  }
  std::string ids = turnsToJson(turns).dump() + "\n";
  if (!options.idsOut.empty())
    return writeFileAtomically(options.idsOut, ids);
  if (printIds)
    std::cout << ids;
  return absl::OkStatus();
}

} // namespace llmc
