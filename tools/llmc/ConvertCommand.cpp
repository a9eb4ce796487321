//===- ConvertCommand.cpp - llmc convert ----------------------------------===//
//
// `llmc convert -m <checkpoint> -c <chip> -q <mode> -o model.llmc`: compiles
// every piece of the checkpoint for the chip and writes one binary, with a
// progress line per stage on stderr and a summary at the end. INT8 without
// --calibration-table first calibrates on the default prompts. The output is
// written atomically: a failure or an interrupt leaves no file behind.
//
//===----------------------------------------------------------------------===//

#include "driver/ModelCompiler.h"
#include "backends/common/quant/DerivedWeightSource.h"
#include "frontends/llm/ModelLoading.h"
#include "tools/llmc/Calibrator.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/ConvertReport.h"
#include "tools/llmc/PieceOptions.h"
#include "tools/llmc/PieceSelection.h"
#include "tools/llmc/QuantOptions.h"

#include "llvm/Support/Parallel.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> chip("chip",
                                 cl::desc("The chip to compile for (bm1684x, "
                                          "...; see --list-plugins)"),
                                 cl::Required, cl::sub(getConvertCommand()));
static cl::alias chipShort("c", cl::desc("Alias for --chip"),
                           cl::aliasopt(chip));
static cl::opt<std::string> output("output", cl::desc("The binary to write"),
                                   cl::value_desc("model.llmc"), cl::Required,
                                   cl::sub(getConvertCommand()));
static cl::alias outputShort("o", cl::desc("Alias for --output"),
                             cl::aliasopt(output));
static cl::opt<int64_t>
    cores("cores",
          cl::desc("Cores to split weight-heavy ops across (default: all "
                   "the chip has)"),
          cl::init(0), cl::sub(getConvertCommand()));
static cl::opt<unsigned> threads(
    "threads",
    cl::desc("Pieces compiled, and weight rows quantized, at once (default: "
             "all cores)"),
    cl::init(0), cl::sub(getConvertCommand()));
static cl::alias threadsShort("j", cl::desc("Alias for --threads"),
                              cl::aliasopt(threads));
static cl::opt<bool> compileEveryLayer(
    "compile-every-layer",
    cl::desc("Generate each layer's streams instead of relocating an equal "
             "layer's (slower; the binary is the same)"),
    cl::sub(getConvertCommand()));
static cl::opt<bool>
    quiet("quiet", cl::desc("No progress, only errors and the summary"),
          cl::sub(getConvertCommand()));

/// One self-overwriting line per stage on a terminal, a line per stage
/// change otherwise.
class ProgressLine {
public:
  void update(const driver::ConvertProgress &progress) {
    bool terminal = llvm::sys::Process::StandardErrIsDisplayed();
    bool newStage = progress.stage != stage;
    if (newStage && !stage.empty() && terminal)
      llvm::errs() << "\n";
    stage = progress.stage.str();
    // Without a terminal: a line when a stage starts, at every tenth of it,
    // and when it ends.
    int64_t tenth = progress.total ? 10 * progress.done / progress.total : 0;
    if (!terminal && !newStage && tenth == lastTenth &&
        progress.done != progress.total)
      return;
    lastTenth = tenth;
    int width = 30;
    int filled = progress.total ? width * progress.done / progress.total : 0;
    llvm::errs() << (terminal ? "\r" : "") << llvm::format("%-10s", stage.c_str())
                 << " [" << std::string(filled, '#')
                 << std::string(width - filled, ' ') << "] " << progress.done
                 << "/" << progress.total << " " << progress.item
                 << (terminal ? "\x1b[K" : "\n");
  }
  void finish() {
    if (!stage.empty() && llvm::sys::Process::StandardErrIsDisplayed())
      llvm::errs() << "\n";
  }

private:
  std::string stage;
  int64_t lastTenth = -1;
};

int runConvertCommand(const plugins::Registry &registry) {
  auto start = std::chrono::steady_clock::now();
  if (!isQuantizeSet())
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "convert needs -q/--quantize (F32, F16, BF16, W8F16, W8BF16, W4F16, "
        "W4BF16, INT8)"));
  if (llvm::Error error = validateReportOptions())
    return reportError(std::move(error));
  llvm::Expected<const plugins::BackendPlugin &> backend =
      registry.findBackend(chip);
  if (!backend)
    return reportError(backend.takeError());
  driver::ConvertOptions options;
  llvm::Expected<llm::BuildOptions> build = getBuildOptions();
  if (!build)
    return reportError(build.takeError());
  options.build = std::move(*build);
  options.threads = threads;
  if (threads != 0)
    llvm::parallel::strategy = llvm::hardware_concurrency(threads);
  options.compileOncePerLayer = !compileEveryLayer;
  if (llvm::Error error = applyPieceSelection(options))
    return reportError(std::move(error));
  if (isReportRequested() && !options.pieces.empty())
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--report runs the whole model; it cannot follow --pieces"));
  llvm::Expected<LoadedModel> model =
      loadSelectedModel(registry, options.build);
  if (!model)
    return reportError(model.takeError());
  llvm::Expected<lowering::LoweringOptions> lowering =
      getLoweringOptions([&]() -> llvm::Expected<quant::CalibrationTable> {
        llvm::errs() << "no --calibration-table: calibrating INT8 "
                        "activations on llmc's default prompts\n";
        CalibrationOptions calibration;
        calibration.threads = llvm::hardware_concurrency().compute_thread_count();
        if (!quiet)
          calibration.progress = printCalibrationProgress;
        return calibrateModel(*model, options.build, calibration, "");
      },
      &backend->getDescriptor());
  if (!lowering)
    return reportError(lowering.takeError());
  options.lowering = *lowering;
  options.lowering.cores = cores;
  ProgressLine progress;
  if (!quiet)
    options.progress = [&](const driver::ConvertProgress &update) {
      progress.update(update);
    };
  quant::DerivedWeightSource weights(*model->weights);
  llvm::Expected<driver::ConvertReport> report = driver::convertModel(
      model->spec, weights, *backend, options, output);
  progress.finish();
  if (!report)
    return reportError(report.takeError());
  for (const std::string &warning : report->warnings)
    llvm::WithColor::warning(llvm::errs(), "llmc") << warning << "\n";
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  llvm::outs() << llvm::format(
      "%s: %lld pieces (%lld compiled, the rest relocated), %.1f MiB "
      "(weights %.1f MiB) for %s %s in %.1f s\n",
      output.c_str(), static_cast<long long>(report->pieces),
      static_cast<long long>(report->compiledPieces),
      report->fileBytes / 1048576.0, report->coeffBytes / 1048576.0,
      chip.c_str(),
      lowering::stringifyQuantMode(options.lowering.mode).str().c_str(),
      seconds);
  // Some pieces' times add up to no whole step.
  if (report->decodeSeconds > 0 && options.pieces.empty())
    llvm::outs() << llvm::format(
        "modelled on %s: decode %.3f ms/token (%.1f tokens/s), prefill of "
        "%lld tokens %.3f ms\n",
        chip.c_str(), report->decodeSeconds * 1e3, 1.0 / report->decodeSeconds,
        static_cast<long long>(options.build.maxInputLength),
        report->prefillSeconds * 1e3);
  if (isReportRequested())
    if (llvm::Error error = printConversionReport(
            *model, options.build, *backend,
            lowering::stringifyQuantMode(options.lowering.mode), output))
      return reportError(llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "wrote " + output + ", but its report failed: " +
              llvm::toString(std::move(error))));
  return 0;
}

} // namespace llmc
