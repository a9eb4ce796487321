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
#include "runtime/session/CacheCapacityError.h"
#include "runtime/tokenizer/Tokenizer.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/WithColor.h"

#include <set>

namespace llmc {

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
  llvm::Expected<vision::VisionConfig> config =
      readVisionInfo(*info, spec.hiddenSize);
  if (!config)
    return evalError(spec.source + ": " + llvm::toString(config.takeError()));
  return std::optional<vision::VisionConfig>(std::move(*config));
}

/// The id of the placeholder token `config` names in `tokenizerJson`; an
/// error naming `source` when the tokenizer lacks it.
static llvm::Expected<int32_t>
getPlaceholderId(const vision::VisionConfig &config,
                 llvm::StringRef tokenizerJson, llvm::StringRef source) {
  llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> tokenizer =
      tokenizer::Tokenizer::fromJson(tokenizerJson, "tokenizer.json");
  if (!tokenizer)
    return evalError(source + ": " + llvm::toString(tokenizer.takeError()));
  std::optional<int32_t> id = (*tokenizer)->tokenToId(config.placeholder);
  if (!id)
    return evalError(source + ": the tokenizer has no image placeholder "
                               "token " +
                      config.placeholder);
  return *id;
}

int runEvalCommand(const plugins::Registry &registry) {
  llvm::Expected<int64_t> maxNewTokens = getMaxNewTokens();
  if (!maxNewTokens)
    return reportError(maxNewTokens.takeError());
  llvm::Expected<std::vector<session::Turn>> turns = getInputTurns();
  if (!turns)
    return reportError(turns.takeError());
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
      llvm::Error error = lowering::retargetToLoweredWeights(
          *piece.module, options, &warnings);
      // Each once: the phases of a layer lower the same weights.
      for (const std::string &warning : warnings)
        if (said.insert(warning).second)
          llvm::WithColor::warning(llvm::errs(), "llmc") << warning << "\n";
      return error;
    };
  }
  llvm::Expected<std::unique_ptr<InterpreterSession>> interpreter =
      InterpreterSession::create(*model, options, getThreadCount(),
                                 std::move(overrides));
  if (!interpreter)
    return reportError(interpreter.takeError());

  if (hasImages()) {
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
    if (llvm::Error error =
            placeImages(**interpreter, vision, *placeholder, *turns))
      return reportError(std::move(error));
  }
  session::Session &session = (*interpreter)->getSession();
  std::vector<float> allLogits;
  session::GenerationLimits limits;
  limits.maxNewTokens = *maxNewTokens;
  if (llvm::Error error = session::toLlvmError(session::generateTurns(
          session, *turns, limits,
          [&](absl::Span<const float> logits) {
            return session.pickGreedy(logits);
          },
          [&](const session::GeneratedToken &token) {
            allLogits.insert(allLogits.end(), token.logits.begin(),
                             token.logits.end());
            return true;
          })))
    return reportError(explainCapacity(std::move(error), "raise --seq-length"));
  if (llvm::Error error = writeGenerationOutputs(
          *turns, allLogits, model->spec.vocabSize, /*printIds=*/true))
    return reportError(std::move(error));
  return 0;
}

} // namespace llmc
