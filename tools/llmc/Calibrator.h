//===- Calibrator.h - activation ranges from the top interpreter -*- C++ -*-===//
//
// Runs a model's prefill on the reference interpreter over sample prompts
// and measures, per tensor, the activations INT8 quantizes: the input of
// every Linear layer and the input and intermediate of every gated MLP
// (MLPs run decomposed, lowering/Int8Reference.h). Each prompt runs alone
// through a prefill piece of exactly its length, so no padding rows enter
// the statistics. Prompts run in order and the statistics are integer
// counts and extremes, so the table does not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_CALIBRATOR_H
#define LLMC_TOOLS_LLMC_CALIBRATOR_H

#include "backends/common/quant/CalibrationStats.h"
#include "frontends/llm/ModelLoading.h"

#include <functional>

namespace llmc {

struct CalibrationOptions {
  quant::CalibrationMethod method = quant::CalibrationMethod::MinMax;
  /// The percentile method's p, in (0, 100].
  double percentile = 99.99;
  /// Threads each interpreter kernel uses.
  unsigned threads = 1;
  /// Reports each prompt run: the pass ("ranges", "histograms"), prompts
  /// done and the total.
  std::function<void(llvm::StringRef pass, int64_t done, int64_t total)>
      progress;
};

/// The prompts of the text file at `path`, one per non-blank line,
/// tokenized with `spec`'s tokenizer and cut to `maxTokens`.
llvm::Expected<std::vector<std::vector<int32_t>>>
readCalibrationPrompts(llvm::StringRef path, const plugins::ModelSpec &spec,
                       int64_t maxTokens);
/// The same for the prompts llmc ships (models/calibration/default.txt).
llvm::Expected<std::vector<std::vector<int32_t>>>
getDefaultCalibrationPrompts(const plugins::ModelSpec &spec,
                             int64_t maxTokens);

/// Calibrates `model` (pieces built with `build`, whose seqLength must be
/// the one the model was loaded with) on `prompts`.
llvm::Expected<quant::CalibrationTable>
calibrate(const LoadedModel &model, const llm::BuildOptions &build,
          llvm::ArrayRef<std::vector<int32_t>> prompts,
          const CalibrationOptions &options);

/// Calibrates `model` on the prompts of `promptsPath`, or the default set
/// when it is empty (prompts cut to the prefill length of `build`).
llvm::Expected<quant::CalibrationTable>
calibrateModel(const LoadedModel &model, const llm::BuildOptions &build,
               const CalibrationOptions &options, llvm::StringRef promptsPath);

/// A CalibrationOptions::progress printing a line per tenth of a pass on
/// stderr.
void printCalibrationProgress(llvm::StringRef pass, int64_t done,
                              int64_t total);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_CALIBRATOR_H
