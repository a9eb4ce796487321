//===- Calibrator.cpp - activation ranges from the top interpreter --------===//

#include "tools/llmc/Calibrator.h"

#include "backends/common/lowering/Int8Reference.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "support/LlvmStatus.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/InterpreterSession.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

namespace llmc {

static llvm::Error calibrationError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The prompts of `text` (one per non-blank line) as token ids.
static llvm::Expected<std::vector<std::vector<int32_t>>>
tokenizePrompts(llvm::StringRef text, llvm::StringRef sourceName,
                const plugins::ModelSpec &spec, int64_t maxTokens) {
  if (spec.tokenizerJson.empty())
    return calibrationError("the checkpoint has no tokenizer to read the "
                            "calibration prompts with");
  llvm::Expected<std::unique_ptr<tokenizer::Tokenizer>> tokenizer =
      support::toExpected(
          tokenizer::Tokenizer::fromJson(spec.tokenizerJson, "tokenizer.json"));
  if (!tokenizer)
    return tokenizer.takeError();
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBuffer(text, sourceName);
  std::vector<std::vector<int32_t>> prompts;
  for (llvm::line_iterator line(*buffer, /*SkipBlanks=*/true);
       !line.is_at_end(); ++line) {
    std::vector<int32_t> ids = (*tokenizer)->encode(line->trim());
    if (ids.empty())
      continue;
    if (static_cast<int64_t>(ids.size()) > maxTokens)
      ids.resize(maxTokens);
    prompts.push_back(std::move(ids));
  }
  if (prompts.empty())
    return calibrationError(sourceName + ": no calibration prompts");
  return prompts;
}

llvm::Expected<std::vector<std::vector<int32_t>>>
readCalibrationPrompts(llvm::StringRef path, const plugins::ModelSpec &spec,
                       int64_t maxTokens) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return calibrationError("cannot read calibration prompts '" + path +
                            "': " + buffer.getError().message());
  return tokenizePrompts((*buffer)->getBuffer(), path, spec, maxTokens);
}

llvm::Expected<std::vector<std::vector<int32_t>>>
getDefaultCalibrationPrompts(const plugins::ModelSpec &spec,
                             int64_t maxTokens) {
  static const char kDefaultPrompts[] =
#include "tools/llmc/DefaultPrompts.inc"
      ;
  return tokenizePrompts(kDefaultPrompts, "the default calibration prompts",
                         spec, maxTokens);
}

namespace {

/// Feeds the prompts through the interpreter, handing every quantized
/// activation to `observe`.
class PromptRunner {
public:
  PromptRunner(const LoadedModel &model, const llm::BuildOptions &build,
               unsigned threads)
      : model(model), build(build), threads(threads) {}

  using Observe =
      std::function<void(llvm::StringRef name, llvm::ArrayRef<float> values)>;

  llvm::Error run(llvm::ArrayRef<int32_t> prompt, const Observe &observe) {
    // A prefill piece of exactly the prompt's length: no padding rows.
    llm::BuildOptions options = build;
    options.maxInputLength = static_cast<int64_t>(prompt.size());
    options.prefillLengths.clear();
    SessionOverrides overrides;
    overrides.preparePiece = [](llm::Piece &piece) {
      return lowering::decomposeMLPs(*piece.module);
    };
    overrides.observeOperands = [&](mlir::Operation &op,
                                    llvm::ArrayRef<const top::Tensor *> args) {
      std::string name = lowering::getQuantizedInputName(&op);
      if (!name.empty() && args[0])
        observe(name, args[0]->getF32());
    };
    llvm::Expected<std::unique_ptr<InterpreterSession>> session =
        InterpreterSession::create(model, options, threads,
                                   std::move(overrides));
    if (!session)
      return session.takeError();
    return support::toLlvmError((*session)->getSession().feed(prompt).status());
  }

private:
  const LoadedModel &model;
  const llm::BuildOptions &build;
  unsigned threads;
};

} // namespace

llvm::Expected<quant::CalibrationTable>
calibrate(const LoadedModel &model, const llm::BuildOptions &build,
          llvm::ArrayRef<std::vector<int32_t>> prompts,
          const CalibrationOptions &options) {
  // Tensors in the order the model first computes them.
  llvm::MapVector<std::string, quant::ActivationStatistics,
                  std::map<std::string, unsigned>>
      stats;
  PromptRunner runner(model, build, options.threads);
  auto runPass = [&](llvm::StringRef pass,
                     const PromptRunner::Observe &observe) -> llvm::Error {
    for (auto [index, prompt] : llvm::enumerate(prompts)) {
      if (llvm::Error error = runner.run(prompt, observe))
        return calibrationError("calibration prompt " +
                                llvm::Twine(index + 1) + ": " +
                                llvm::toString(std::move(error)));
      if (options.progress)
        options.progress(pass, static_cast<int64_t>(index + 1),
                         static_cast<int64_t>(prompts.size()));
    }
    return llvm::Error::success();
  };
  if (llvm::Error error =
          runPass("ranges", [&](llvm::StringRef name,
                                llvm::ArrayRef<float> values) {
            stats[name.str()].observeRange(values);
          }))
    return std::move(error);
  if (options.method != quant::CalibrationMethod::MinMax)
    if (llvm::Error error =
            runPass("histograms", [&](llvm::StringRef name,
                                      llvm::ArrayRef<float> values) {
              stats[name.str()].observeHistogram(values);
            }))
      return std::move(error);
  quant::CalibrationTable table;
  for (auto &[name, tensor] : stats)
    table.set(name, tensor.getRange(options.method, options.percentile));
  return table;
}

llvm::Expected<quant::CalibrationTable>
calibrateModel(const LoadedModel &model, const llm::BuildOptions &build,
               const CalibrationOptions &options,
               llvm::StringRef promptsPath) {
  llvm::Expected<std::vector<std::vector<int32_t>>> tokens =
      promptsPath.empty()
          ? getDefaultCalibrationPrompts(model.spec, build.maxInputLength)
          : readCalibrationPrompts(promptsPath, model.spec,
                                   build.maxInputLength);
  if (!tokens)
    return tokens.takeError();
  return calibrate(model, build, *tokens, options);
}

void printCalibrationProgress(llvm::StringRef pass, int64_t done,
                              int64_t total) {
  printProgressTenths(("calibrate " + pass).str(), done, total, "prompts");
}

} // namespace llmc
