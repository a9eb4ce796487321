//===- QuantOptions.cpp - the quantization options of llmc ----------------===//

#include "tools/llmc/QuantOptions.h"

#include "backends/common/lowering/CommonBackend.h"
#include "tools/llmc/Commands.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> quantize(
    "quantize",
    cl::desc("Quantization mode: F32, F16, BF16, W8F16, W8BF16, W4F16, "
             "W4BF16, INT8"),
    cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));
static cl::alias quantizeShort("q", cl::desc("Alias for --quantize"),
                               cl::aliasopt(quantize));
static cl::opt<int64_t>
    qGroupSize("q-group-size",
               cl::desc("Weights per quantization group along K (0: per "
                        "channel)"),
               cl::init(64), cl::sub(getEvalCommand()),
               cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));
static cl::alias qGroupSizeShort("g", cl::desc("Alias for --q-group-size"),
                                 cl::aliasopt(qGroupSize));
static cl::opt<bool>
    asymmetric("asymmetric",
               cl::desc("Quantize weights asymmetrically (with zero "
                        "points); INT8: activations"),
               cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));
static cl::opt<std::string>
    qtable("qtable",
           cl::desc("Per-op modes, one '<op name or glob> <mode>' per line"),
           cl::sub(getEvalCommand()), cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));

static cl::opt<std::string> calibrationTable(
    "calibration-table",
    cl::desc("INT8: the activation ranges 'llmc calibrate' wrote"),
    cl::value_desc("table.txt"), cl::sub(getEvalCommand()),
    cl::sub(getConvertCommand()), cl::sub(getCompareCommand()));

bool isQuantizeSet() { return !quantize.empty(); }

/// The calibration table of the options: the file given, or for a mode
/// quantizing activations the one `calibrateDefault` measures.
static llvm::Error addCalibration(
    lowering::LoweringOptions &options,
    llvm::function_ref<llvm::Expected<quant::CalibrationTable>()>
        calibrateDefault) {
  llvm::Expected<quant::CalibrationTable> table =
      quant::CalibrationTable();
  if (!calibrationTable.empty()) {
    table = quant::CalibrationTable::read(calibrationTable);
    options.calibrationPath = calibrationTable;
  } else if (calibrateDefault &&
             llvm::any_of(options.getUsedModes(),
                          lowering::quantizesActivations)) {
    table = calibrateDefault();
  } else {
    return llvm::Error::success();
  }
  if (!table)
    return table.takeError();
  options.calibration =
      std::make_shared<quant::CalibrationTable>(std::move(*table));
  return llvm::Error::success();
}

llvm::Expected<lowering::LoweringOptions> getLoweringOptions(
    llvm::function_ref<llvm::Expected<quant::CalibrationTable>()>
        calibrateDefault,
    const plugins::ChipDescriptor *chip) {
  lowering::LoweringOptions options;
  llvm::Expected<lowering::QuantMode> mode =
      lowering::parseQuantMode(quantize);
  if (!mode)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--quantize: " +
                                       llvm::toString(mode.takeError()));
  options.mode = *mode;
  options.groupSize = qGroupSize;
  options.asymmetric = asymmetric;
  if (!qtable.empty()) {
    llvm::Expected<std::vector<lowering::QTableRule>> rules =
        lowering::readQTableFile(qtable);
    if (!rules)
      return rules.takeError();
    options.qtable = std::move(*rules);
    options.qtablePath = qtable;
  }
  if (chip)
    if (llvm::Error error = lowering::checkQuantModes(*chip, options))
      return std::move(error);
  if (llvm::Error error = addCalibration(options, calibrateDefault))
    return std::move(error);
  if (llvm::Error error = options.validate())
    return std::move(error);
  return options;
}

} // namespace llmc
