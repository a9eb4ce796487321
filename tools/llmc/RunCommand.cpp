//===- RunCommand.cpp - llmc run: a compiled binary on its chip's cmodel --===//
//
//   llmc run -m model.llmc --input-ids 1,300,301 [--input-ids ...]
//            --max-new-tokens 16 --logits-out F.npy --ids-out F.json
//   llmc run -m model.llmc -p "Once upon a time" [--temperature 0.7 ...]
//
// Runs the binary's pieces on the cmodel of the chip it was compiled for,
// scheduled as `llmc eval` schedules them on the interpreter
// (runtime/session): the first turn through prefill, later turns through
// prefill_kv after the history, each generated token through decode. Its
// --input-ids, --max-new-tokens, --logits-out and --ids-out mean what they
// mean for eval, so the two compare token for token: exactly
// --max-new-tokens tokens per turn.
//
// -p gives a turn as text instead, encoded with the binary's tokenizer; the
// generated text streams to stdout and a turn ends early at one of the
// binary's stop tokens. Decoding is greedy (the greedy_head piece) unless a
// sampling flag asks for the host sampler (SamplingOptions.h).
//
// At the end it prints, on stderr, the time to the first token, the host's
// decode throughput and the throughput the cmodel's time model predicts on
// the chip (the modelled seconds of the decode steps).
//
//===----------------------------------------------------------------------===//

#include "runtime/device/BinaryRunner.h"
#include "runtime/tokenizer/StreamingDetokenizer.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/GenerationOptions.h"
#include "tools/llmc/SamplingOptions.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> binaryPath("model",
                                       cl::desc("The compiled model to run"),
                                       cl::value_desc("model.llmc"),
                                       cl::Required, cl::sub(getRunCommand()));
static cl::alias binaryPathShort("m", cl::desc("Alias for --model"),
                                 cl::aliasopt(binaryPath));
static cl::list<std::string>
    prompts("prompt",
            cl::desc("A turn as text, encoded with the binary's tokenizer "
                     "(repeat for more turns)"),
            cl::sub(getRunCommand()));
static cl::alias promptsShort("p", cl::desc("Alias for --prompt"),
                              cl::aliasopt(prompts));

static llvm::Error runError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
using Clock = std::chrono::steady_clock;

/// Where the time of a generation went, on the host and on the modelled
/// chip: prompt processing up to each turn's first token, then decode.
struct GenerationTimes {
  Clock::time_point start = Clock::now(), last = start;
  double firstTokenSeconds = -1;
  int64_t promptTokens = 0;
  double promptModelled = 0;
  int64_t decodeTokens = 0;
  double decodeSeconds = 0, decodeModelled = 0;
  double lastModelled = 0;

  /// Accounts the work since the previous token to `token`.
  void record(const session::GeneratedToken &token, double modelled) {
    Clock::time_point now = Clock::now();
    double seconds = std::chrono::duration<double>(now - last).count();
    if (firstTokenSeconds < 0)
      firstTokenSeconds = std::chrono::duration<double>(now - start).count();
    if (token.step == 0) {
      promptModelled += modelled - lastModelled;
    } else {
      ++decodeTokens;
      decodeSeconds += seconds;
      decodeModelled += modelled - lastModelled;
    }
    last = now;
    lastModelled = modelled;
  }

  void print(llvm::raw_ostream &os, llvm::StringRef chip) const {
    os << llvm::format("prompt: %lld tokens, first token after %.1f ms "
                       "(modelled on %s: %.3f ms)\n",
                       static_cast<long long>(promptTokens),
                       firstTokenSeconds * 1e3, chip.str().c_str(),
                       promptModelled * 1e3);
    if (decodeTokens == 0) {
      os << "decode: no decode steps (--max-new-tokens 1)\n";
      return;
    }
    os << llvm::format("decode: %lld tokens, %.1f tokens/s on the host, "
                       "%.1f tokens/s modelled on %s\n",
                       static_cast<long long>(decodeTokens),
                       decodeTokens / decodeSeconds,
                       decodeTokens / decodeModelled, chip.str().c_str());
  }
};
} // namespace

/// The turns of --input-ids or --prompt (exactly one of them), the latter
/// encoded with the binary's tokenizer, which `tokenizer` receives.
static llvm::Expected<std::vector<session::Turn>>
getTurns(const binary::LoadedBinary &binary,
         std::unique_ptr<tokenizer::Tokenizer> &tokenizer) {
  llvm::Expected<std::vector<session::Turn>> turns = getInputTurns();
  if (!turns)
    return turns.takeError();
  if (turns->empty() == prompts.empty())
    return runError("give the turns either as --input-ids or as -p text");
  if (prompts.empty())
    return turns;
  if (binary.tokenizerJson().empty())
    return runError(binary.name() + " holds no tokenizer, so -p cannot be "
                                    "encoded: give --input-ids");
  llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> loaded =
      tokenizer::Tokenizer::fromJson(binary.tokenizerJson(), binary.name());
  if (!loaded)
    return loaded.takeError();
  tokenizer = std::move(*loaded);
  for (const std::string &text : prompts) {
    std::vector<int32_t> ids =
        tokenizer->encode(text, /*addSpecialTokens=*/true);
    if (ids.empty())
      return runError("-p '" + text + "' encodes to no tokens");
    turns->push_back({std::move(ids), {}});
  }
  return turns;
}

int runRunCommand(const plugins::Registry &registry) {
  llvm::Expected<int64_t> maxNewTokens = getMaxNewTokens();
  if (!maxNewTokens)
    return reportError(maxNewTokens.takeError());
  llvm::Expected<std::unique_ptr<binary::LoadedBinary>> binary =
      binary::LoadedBinary::open(binaryPath);
  if (!binary)
    return reportError(binary.takeError());
  const binary::Manifest &manifest = (*binary)->manifest();
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  llvm::Expected<std::vector<session::Turn>> turns =
      getTurns(**binary, tokenizer);
  if (!turns)
    return reportError(turns.takeError());
  llvm::Expected<std::optional<sampling::SamplingParams>> samplingParams =
      getSamplingParams(manifest.generation());
  if (!samplingParams)
    return reportError(samplingParams.takeError());

  llvm::Expected<const plugins::BackendPlugin &> backend =
      registry.findBackend(manifest.chip());
  if (!backend)
    return reportError(runError((*binary)->name() + ": " +
                                llvm::toString(backend.takeError())));
  cmodel::CModelOptions deviceOptions;
  deviceOptions.threads = getThreadCount();
  llvm::Expected<std::unique_ptr<device::BinaryRunner>> runner =
      device::BinaryRunner::create(**binary, backend->getDescriptor(),
                                   deviceOptions);
  if (!runner)
    return reportError(runner.takeError());
  session::Session session(**runner, (*runner)->getModelDims());

  std::optional<sampling::Sampler> sampler;
  if (*samplingParams)
    sampler.emplace(**samplingParams);
  auto choose = [&](llvm::ArrayRef<float> logits) -> llvm::Expected<int32_t> {
    if (!sampler)
      return session.pickGreedy(logits);
    llvm::ArrayRef<int32_t> recent = session.getTokens().take_back(
        static_cast<size_t>(sampler->getParams().penaltyWindow));
    return sampler->sample(logits, recent);
  };

  std::optional<tokenizer::StreamingDetokenizer> detokenizer;
  if (tokenizer)
    detokenizer.emplace(*tokenizer, /*skipSpecial=*/true);
  std::vector<int32_t> stopTokens;
  session::GenerationLimits limits;
  limits.maxNewTokens = *maxNewTokens;
  // Text turns end at a stop token; id turns generate exactly
  // --max-new-tokens, as eval does, to compare with references.
  if (tokenizer) {
    stopTokens.assign(manifest.generation().stop_token_ids().begin(),
                      manifest.generation().stop_token_ids().end());
    limits.stopTokens = stopTokens;
  }
  int64_t vocab = session.getDims().vocabSize;
  std::vector<float> allLogits;
  GenerationTimes times;
  for (const session::Turn &turn : *turns)
    times.promptTokens += static_cast<int64_t>(turn.inputIds.size());
  auto sink = [&](const session::GeneratedToken &token) {
    times.record(token, (*runner)->getTotals().seconds);
    allLogits.insert(allLogits.end(), token.logits.begin(), token.logits.end());
    if (!detokenizer)
      return;
    if (token.turn > 0 && token.step == 0)
      llvm::outs() << "\n";
    llvm::outs() << detokenizer->push(token.id);
    if (token.step + 1 == limits.maxNewTokens ||
        llvm::is_contained(stopTokens, token.id))
      llvm::outs() << detokenizer->flush();
    llvm::outs().flush();
  };
  if (llvm::Error error =
          session::generateTurns(session, *turns, limits, choose, sink))
    return reportError(explainCapacity(std::move(error),
                                       "convert with a larger --seq-length"));
  if (detokenizer)
    llvm::outs() << "\n";

  if (llvm::Error error = writeGenerationOutputs(*turns, allLogits, vocab,
                                                 /*printIds=*/!tokenizer))
    return reportError(std::move(error));
  llvm::outs().flush();
  times.print(llvm::errs(), manifest.chip());
  return 0;
}

} // namespace llmc
