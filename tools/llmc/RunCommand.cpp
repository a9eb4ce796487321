//===- RunCommand.cpp - llmc run: a compiled binary on its chip's cmodel --===//
//
//   llmc run -m model.llmc --input-ids 1,300,301 [--input-ids ...]
//            --max-new-tokens 16 --logits-out F.npy --ids-out F.json
//   llmc run -m model.llmc -p "Once upon a time" [--temperature 0.7 ...]
//
// Runs the binary's pieces on the cmodel of the chip it was compiled for,
// scheduled as `llmc eval` schedules them on the interpreter
// (runtime/session, through the C++ API's Conversation): the first turn
// through prefill, later turns through prefill_kv after the history, each
// generated token through decode. Its --input-ids, --max-new-tokens,
// --logits-out and --ids-out mean what they mean for eval, so the two
// compare token for token: exactly --max-new-tokens tokens per turn.
//
// -p gives a turn as text instead, encoded with the binary's tokenizer; the
// generated text streams to stdout and a turn ends early at one of the
// binary's stop tokens. Decoding is greedy (the greedy_head piece) unless a
// sampling flag asks for the host sampler (SamplingOptions.h).
//
// A vision-language binary takes --image or --pixel-values with --input-ids
// (ImageOptions.h), or --image with -p: the first -p turn is then a user's
// chat message in the binary's chat template, its `<image>` markers (one in
// front when it has none) standing for the images. It prints how long the
// vision pieces took. At the end
// it prints, on stderr, the time to the first token, the host's
// decode throughput and the throughput the cmodel's time model predicts on
// the chip (the modelled seconds of the decode steps).
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/BinaryOptions.h"
#include "tools/llmc/CommandSupport.h"
#include "tools/llmc/GenerationOptions.h"
#include "tools/llmc/ImageOptions.h"
#include "tools/llmc/RuntimeCommands.h"
#include "tools/llmc/SamplingOptions.h"

#include "runtime/device/BinaryRunner.h"
#include "runtime/session/Session.h"
#include "support/Status.h"
#include "support/Strings.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>
#include <memory>

namespace llmc {

namespace {
struct RunOptions {
  BinaryOptions binary;
  GenerationOptions generation;
  ImageOptions images;
  SamplingOptions sampling;
  /// -p/--prompt: turns as text.
  std::vector<std::string> prompts;
};
} // namespace

/// `status` marked as the fault of -p.
static absl::Status atPrompt(const absl::Status &status) {
  return support::suffixStatus(status, " (-p)");
}

/// Runs `place` (which runs the vision pieces) and prints how long they
/// took on the device.
static absl::Status timeVision(Model &model,
                               const std::function<absl::Status()> &place) {
  device::BinaryRunner &device = model.getDevice();
  device::DeviceTotals before = device.getTotals();
  auto start = std::chrono::steady_clock::now();
  LLMC_RETURN_IF_ERROR(place());
  std::chrono::duration<double> host = std::chrono::steady_clock::now() - start;
  printVisionTimings(std::cerr, device.getTotals().runs - before.runs,
                     host.count(), device.getTotals().seconds - before.seconds,
                     model.getManifest().chip(), model.isTimeModelled());
  return absl::OkStatus();
}

/// The turns of --input-ids or --prompt (exactly one of them), the latter
/// encoded with the binary's tokenizer; the images go with the first -p
/// turn, rendered as a user's chat message, or fill the placeholders of the
/// --input-ids turns.
static absl::StatusOr<std::vector<session::Turn>>
getTurns(const RunOptions &options, Model &model) {
  LLMC_ASSIGN_OR_RETURN(std::vector<session::Turn> turns,
                        getInputTurns(options.generation));
  const std::vector<std::string> &prompts = options.prompts;
  bool allowSpecial = options.generation.allowSpecial;
  if (turns.empty() == prompts.empty())
    return absl::InvalidArgumentError(
        "give the turns either as --input-ids or as -p text");
  if (hasImages(options.images) && !turns.empty()) {
    LLMC_RETURN_IF_ERROR(timeVision(model, [&] {
      return placeImages(options.images, model.getDevice(),
                         model.getVisionConfig(),
                         model.getImagePlaceholderId().value_or(-1), turns);
    }));
    return turns;
  }
  for (const std::string &text : prompts) {
    if (hasImages(options.images) && turns.empty()) {
      LLMC_ASSIGN_OR_RETURN(std::vector<vision::Image> images,
                            readImagesForText(options.images));
      absl::StatusOr<ImagePrompt> prompt;
      LLMC_RETURN_IF_ERROR(atPrompt(timeVision(model, [&] {
        prompt = model.encodeImagePrompt(text, images, allowSpecial);
        return prompt.status();
      })));
      turns.push_back({std::move(prompt->ids), {}, std::move(prompt->placed)});
      continue;
    }
    absl::StatusOr<std::vector<int32_t>> ids =
        model.encodePrompt(text, allowSpecial);
    if (!ids.ok())
      return atPrompt(ids.status());
    turns.push_back({*std::move(ids), {}});
  }
  return turns;
}

static int runRun(const RunOptions &runOptions) {
  absl::StatusOr<int64_t> maxNewTokens = getMaxNewTokens(runOptions.generation);
  if (!maxNewTokens.ok())
    return reportError(maxNewTokens.status());
  absl::StatusOr<std::unique_ptr<Model>> model =
      loadBinaryModel(runOptions.binary.path, runOptions.generation.threads);
  if (!model.ok())
    return reportError(model.status());
  const binary::Manifest &manifest = (*model)->getManifest();
  absl::StatusOr<std::vector<session::Turn>> turns =
      getTurns(runOptions, **model);
  if (!turns.ok())
    return reportError(turns.status());
  GenerateOptions options;
  options.maxNewTokens = *maxNewTokens;
  absl::StatusOr<std::optional<sampling::SamplingParams>> samplingParams =
      getSamplingParams(runOptions.sampling, **model);
  if (!samplingParams.ok())
    return reportError(samplingParams.status());
  options.sampling = *samplingParams;
  // Text turns end at a stop token; id turns generate exactly
  // --max-new-tokens, as eval does, to compare with references.
  bool text = !runOptions.prompts.empty();
  options.stopAtStopTokens = text;
  options.keepLogits = true;

  std::unique_ptr<Conversation> conversation = (*model)->startConversation();
  auto print = [&](int32_t, std::string_view piece) {
    std::cout << piece << std::flush;
    return true;
  };
  std::vector<float> allLogits;
  GenerateTimings timings;
  for (size_t index = 0; index < turns->size(); ++index) {
    session::Turn &turn = (*turns)[index];
    if (text && index > 0)
      std::cout << "\n";
    absl::StatusOr<GenerateResult> result = conversation->send(
        turn.inputIds, options, text ? TokenCallback(print) : nullptr,
        PendingToken::Feed,
        turn.placed.positions.empty() ? nullptr : &turn.placed);
    if (result.ok() && result->finish == FinishReason::CacheFull)
      result = session::cacheCapacityError(conversation->getHistoryLength() + 1,
                                           conversation->getCapacity());
    if (!result.ok())
      return reportError(explainCapacity(result.status(),
                                         "convert with a larger --seq-length"));
    turn.generated = result->ids;
    allLogits.insert(allLogits.end(), result->logits.begin(),
                     result->logits.end());
    if (index == 0)
      timings = result->timings;
    else
      timings.add(result->timings);
  }
  if (text)
    std::cout << "\n";

  if (absl::Status status = writeGenerationOutputs(
          runOptions.generation, *turns, allLogits,
          (*model)->getDims().vocabSize, /*printIds=*/!text);
      !status.ok())
    return reportError(status);
  std::cout.flush();
  printTimings(std::cerr, timings, manifest.chip(), (*model)->isTimeModelled());
  return 0;
}

CommandAction addRunCommand(CLI::App &command) {
  auto options = std::make_shared<RunOptions>();
  addBinaryOptions(command, options->binary);
  command
      .add_option("-p,--prompt", options->prompts,
                  "A turn as text, encoded with the binary's tokenizer "
                  "(repeat for more turns)")
      ->allow_extra_args(false);
  addGenerationOptions(command, options->generation, /*withInputIds=*/true);
  addImageOptions(command, options->images);
  addSamplingOptions(command, options->sampling);
  return [options] { return runRun(*options); };
}

} // namespace llmc
