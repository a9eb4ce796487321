//===- CalibrateCommand.cpp - llmc calibrate ------------------------------===//
//
//   llmc calibrate -m <checkpoint> [--prompts F] [--method minmax|percentile|kl]
//                  [--percentile 99.99] -o table.txt
//
// Runs the checkpoint's prefill on the reference interpreter over sample
// prompts (F: one per line; by default the set llmc ships) and writes the
// activation ranges `llmc convert -q INT8 --calibration-table` quantizes
// with (the format: backends/common/quant/CalibrationTable.h).
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/Calibrator.h"
#include "tools/llmc/Commands.h"
#include "tools/llmc/PieceOptions.h"

#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string>
    prompts("prompts",
            cl::desc("Calibration prompts, one per line (default: the set "
                     "llmc ships)"),
            cl::value_desc("path"), cl::sub(getCalibrateCommand()));
static cl::opt<std::string>
    method("method", cl::desc("Range statistic: minmax, percentile or kl"),
           cl::init("minmax"), cl::sub(getCalibrateCommand()));
static cl::opt<double>
    percentile("percentile",
               cl::desc("The percentile method's p (default 99.99)"),
               cl::init(99.99), cl::sub(getCalibrateCommand()));
static cl::opt<std::string> output("output",
                                   cl::desc("The calibration table to write"),
                                   cl::value_desc("table.txt"), cl::Required,
                                   cl::sub(getCalibrateCommand()));
static cl::alias outputShort("o", cl::desc("Alias for --output"),
                             cl::aliasopt(output));
static cl::opt<unsigned>
    threads("threads", cl::desc("Threads per kernel (default: all cores)"),
            cl::init(0), cl::sub(getCalibrateCommand()));
static cl::alias threadsShort("j", cl::desc("Alias for --threads"),
                              cl::aliasopt(threads));

int runCalibrateCommand(const plugins::Registry &registry) {
  CalibrationOptions options;
  llvm::Expected<quant::CalibrationMethod> parsed =
      quant::parseCalibrationMethod(method);
  if (!parsed)
    return reportError(parsed.takeError());
  options.method = *parsed;
  if (!(percentile > 0 && percentile <= 100))
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--percentile must be in (0, 100], got " + std::to_string(percentile)));
  options.percentile = percentile;
  options.threads =
      threads ? threads : llvm::hardware_concurrency().compute_thread_count();
  options.progress = printCalibrationProgress;
  llvm::Expected<llm::BuildOptions> buildOptions = getBuildOptions();
  if (!buildOptions)
    return reportError(buildOptions.takeError());
  llm::BuildOptions build = std::move(*buildOptions);
  llvm::Expected<LoadedModel> model = loadSelectedModel(registry, build);
  if (!model)
    return reportError(model.takeError());
  llvm::Expected<quant::CalibrationTable> table =
      calibrateModel(*model, build, options, prompts);
  if (!table)
    return reportError(table.takeError());
  std::string header =
      "llmc calibration table: <name> <min> <max> <threshold>\nmethod " +
      quant::stringifyCalibrationMethod(options.method).str();
  if (options.method == quant::CalibrationMethod::Percentile)
    header += " " + std::to_string(percentile);
  header += ", prompts " + (prompts.empty() ? std::string("default")
                                            : std::string(prompts));
  std::string text;
  llvm::raw_string_ostream os(text);
  table->print(os, header);
  if (absl::Status status = writeFileAtomically(output, os.str());
      !status.ok())
    return reportError(status);
  llvm::outs() << output << ": " << table->getNames().size()
               << " tensors calibrated\n";
  return 0;
}

} // namespace llmc
