//===- EvalCommand.cpp - llmc eval: greedy generation on the interpreter --===//
//
//   llmc eval -m <checkpoint> --input-ids 1,300,301 [--input-ids ...]
//             --max-new-tokens 16 --logits-out F.npy --ids-out F.json
//
// Each --input-ids is one turn: the first goes through prefill, each later
// one through prefill_kv after the whole history (earlier prompts and every
// generated token). Exactly --max-new-tokens greedy tokens are generated per
// turn, so runs compare token for token with a reference.
//
// --quantize=<mode> (with --q-group-size, --asymmetric, --qtable) runs the
// same pieces on the weights a binary of that mode holds: quantized weights
// dequantized, float weights rounded to f16 or bf16 (computing in f32). It
// measures what quantizing the weights costs, without a chip. INT8 (with
// --calibration-table) also rounds every activation it quantizes to its
// 8-bit grid (lowering/Int8Reference.h): the numbers the chip computes on.
//
//===----------------------------------------------------------------------===//

#include "backends/common/compile/VisionInfo.h"
#include "backends/common/lowering/Int8Reference.h"
#include "backends/common/lowering/LoweredWeights.h"
#include "backends/common/quant/DerivedWeightSource.h"
#include "driver/QuantizedTables.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/GenerationOptions.h"
#include "tools/llmc/ImageOptions.h"
#include "tools/llmc/InterpreterSession.h"
#include "tools/llmc/PieceOptions.h"
#include "tools/llmc/QuantOptions.h"

#include "runtime/api/VisionManifest.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "support/LlvmStatus.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/WithColor.h"

#include <set>

namespace cl = llvm::cl;

namespace llmc {

// The options eval shares with `llmc run` (GenerationOptions.h,
// ImageOptions.h), on llvm::cl as the compiler's commands are.
static cl::list<std::string> inputIdsFlag(
    "input-ids",
    cl::desc("Comma-separated token ids of one turn (repeat for more turns)"),
    cl::sub(getEvalCommand()));
static cl::opt<int64_t> maxNewTokensFlag(
    "max-new-tokens",
    cl::desc("Tokens generated per turn (eval, run: 16; chat: the binary's "
             "default)"),
    cl::init(kDefaultMaxNewTokens), cl::sub(getEvalCommand()));
static cl::opt<std::string>
    logitsOutFlag("logits-out",
                  cl::desc("Write float32 [generated, vocab] logits as .npy"),
                  cl::sub(getEvalCommand()));
static cl::opt<std::string>
    idsOutFlag("ids-out", cl::desc("Write prompt and generated ids as JSON"),
               cl::sub(getEvalCommand()));
static cl::opt<unsigned>
    threadsFlag("threads", cl::desc("Threads per kernel (default: all cores)"),
                cl::init(0), cl::sub(getEvalCommand()));
static cl::alias threadsShort("j", cl::desc("Alias for --threads"),
                              cl::aliasopt(threadsFlag));
static cl::list<std::string>
    imagesFlag("image",
               cl::desc("An image the prompt's placeholders stand for (PNG or "
                        "JPEG; repeat for more, in prompt order)"),
               cl::sub(getEvalCommand()));
static cl::list<std::string> pixelValuesFlag(
    "pixel-values",
    cl::desc("Pixel values [tiles, 3, S, S] as .npy, in place of an image's "
             "preprocessing (after the --image files)"),
    cl::sub(getEvalCommand()));
static cl::opt<std::string> pixelValuesOutFlag(
    "pixel-values-out",
    cl::desc("Write the images' pixel values, f32 [tiles, 3, S, S], as .npy"),
    cl::sub(getEvalCommand()));
static cl::opt<std::string> visionEmbedsOutFlag(
    "vision-embeds-out",
    cl::desc("Write the images' embeddings, f32 [tiles, tokens, hidden], as "
             ".npy"),
    cl::sub(getEvalCommand()));

static GenerationOptions getGenerationOptions() {
  GenerationOptions options;
  options.inputIds.assign(inputIdsFlag.begin(), inputIdsFlag.end());
  options.maxNewTokens = maxNewTokensFlag;
  options.logitsOut = logitsOutFlag;
  options.idsOut = idsOutFlag;
  options.threads = threadsFlag;
  return options;
}

static ImageOptions getImageOptions() {
  ImageOptions options;
  options.images.assign(imagesFlag.begin(), imagesFlag.end());
  options.pixelValues.assign(pixelValuesFlag.begin(), pixelValuesFlag.end());
  options.pixelValuesOut = pixelValuesOutFlag;
  options.visionEmbedsOut = visionEmbedsOutFlag;
  return options;
}

static llvm::Error evalError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The image handling of a checkpoint's vision-language model, as its binary
/// would state it; none for a text model.
static llvm::Expected<std::optional<vision::VisionConfig>>
getVisionConfig(const plugins::ModelSpec &spec) {
  // As a binary of the model would state and read it.
  std::optional<binary::VisionInfo> info = compile::describeVision(spec);
  if (!info)
    return std::nullopt;
  absl::StatusOr<vision::VisionConfig> config =
      readVisionInfo(*info, spec.hiddenSize);
  if (!config.ok())
    return evalError(
        support::strCat(spec.source, ": ", config.status().message()));
  return std::optional<vision::VisionConfig>(std::move(*config));
}

/// The id of the placeholder token `config` names in `tokenizerJson`; an
/// error naming `source` when the tokenizer lacks it.
static llvm::Expected<int32_t>
getPlaceholderId(const vision::VisionConfig &config,
                 llvm::StringRef tokenizerJson, llvm::StringRef source) {
  llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> tokenizer =
      support::toExpected(
          tokenizer::Tokenizer::fromJson(tokenizerJson, "tokenizer.json"));
  if (!tokenizer)
    return evalError(source + ": " + llvm::toString(tokenizer.takeError()));
  std::optional<int32_t> id = (*tokenizer)->tokenToId(config.placeholder);
  if (!id)
    return evalError(source +
                     ": the tokenizer has no image placeholder "
                     "token " +
                     config.placeholder);
  return *id;
}

int runEvalCommand(const plugins::Registry &registry) {
  GenerationOptions generation = getGenerationOptions();
  ImageOptions imageOptions = getImageOptions();
  absl::StatusOr<int64_t> maxNewTokens = getMaxNewTokens(generation);
  if (!maxNewTokens.ok())
    return reportError(maxNewTokens.status());
  absl::StatusOr<std::vector<session::Turn>> turns = getInputTurns(generation);
  if (!turns.ok())
    return reportError(turns.status());
  if (turns->empty())
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(), "--input-ids: give at least one turn"));

  llvm::Expected<llm::BuildOptions> buildOptions = getBuildOptions();
  if (!buildOptions)
    return reportError(buildOptions.takeError());
  llm::BuildOptions options = std::move(*buildOptions);
  llvm::Expected<LoadedModel> model = loadSelectedModel(registry, options);
  if (!model)
    return reportError(model.takeError());
  SessionOverrides overrides;
  std::unique_ptr<quant::DerivedWeightSource> derivedWeights;
  if (isQuantizeSet()) {
    llvm::Expected<lowering::LoweringOptions> lowering = getLoweringOptions();
    if (!lowering)
      return reportError(lowering.takeError());
    derivedWeights =
        std::make_unique<quant::DerivedWeightSource>(*model->weights);
    overrides.weights = derivedWeights.get();
    mlir::MLIRContext scratch;
    llvm::Expected<llm::GraphBuilder> builder =
        llm::GraphBuilder::create(scratch, model->spec, options);
    if (!builder)
      return reportError(builder.takeError());
    llvm::Expected<std::vector<std::string>> linearTables =
        driver::getHeadLinearWeights(*builder);
    if (!linearTables)
      return reportError(linearTables.takeError());
    overrides.preparePiece = [options = *lowering, tables = *linearTables,
                              said = std::set<std::string>()](
                                 llm::Piece &piece) mutable -> llvm::Error {
      // Pieces without weights (the token heads) compute the same in every
      // mode.
      if (piece.weights.empty())
        return llvm::Error::success();
      // As convert compiles it: a tied embedding read in the LM head's form.
      driver::markQuantizedTables(*piece.module, tables);
      if (llvm::any_of(options.getUsedModes(), lowering::quantizesActivations))
        return lowering::buildInt8Reference(*piece.module, options);
      std::vector<std::string> warnings;
      llvm::Error error =
          lowering::retargetToLoweredWeights(*piece.module, options, &warnings);
      // Each once: the phases of a layer lower the same weights.
      for (const std::string &warning : warnings)
        if (said.insert(warning).second)
          llvm::WithColor::warning(llvm::errs(), "llmc") << warning << "\n";
      return error;
    };
  }
  llvm::Expected<std::unique_ptr<InterpreterSession>> interpreter =
      InterpreterSession::create(*model, options,
                                 getThreadCount(generation.threads),
                                 std::move(overrides));
  if (!interpreter)
    return reportError(interpreter.takeError());

  if (hasImages(imageOptions)) {
    llvm::Expected<std::optional<vision::VisionConfig>> config =
        getVisionConfig(model->spec);
    if (!config)
      return reportError(config.takeError());
    const std::optional<vision::VisionConfig> &vision = *config;
    llvm::Expected<int32_t> placeholder =
        vision ? getPlaceholderId(*vision, model->spec.tokenizerJson,
                                  model->spec.source)
               : 0;
    if (!placeholder)
      return reportError(placeholder.takeError());
    if (absl::Status status = placeImages(imageOptions, **interpreter, vision,
                                          *placeholder, *turns);
        !status.ok())
      return reportError(status);
  }
  session::Session &session = (*interpreter)->getSession();
  std::vector<float> allLogits;
  session::GenerationLimits limits;
  limits.maxNewTokens = *maxNewTokens;
  if (absl::Status status = session::generateTurns(
          session, *turns, limits,
          [&](absl::Span<const float> logits) {
            return session.pickGreedy(logits);
          },
          [&](const session::GeneratedToken &token) {
            allLogits.insert(allLogits.end(), token.logits.begin(),
                             token.logits.end());
            return true;
          });
      !status.ok())
    return reportError(explainCapacity(status, "raise --seq-length"));
  if (absl::Status status =
          writeGenerationOutputs(generation, *turns, allLogits,
                                 model->spec.vocabSize, /*printIds=*/true);
      !status.ok())
    return reportError(status);
  return 0;
}

} // namespace llmc
