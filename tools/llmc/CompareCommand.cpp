//===- CompareCommand.cpp - llmc compare: per-op bisection of a piece -----===//
//
// `llmc compare -m <checkpoint> -c <chip> -q <mode> --piece <piece>`
// compiles one piece for the chip with every value kept in memory, runs it
// on the chip's device and the reference on the top interpreter with the
// same inputs, and prints every op's cosine and largest error in order,
// marking the first op past the tolerance: where a miscompile starts.
// With --dump, both sides' outputs are written as .npy files by source
// name.
//
//===----------------------------------------------------------------------===//

#include "tools/llmc/Commands.h"

#include "backends/common/quant/DerivedWeightSource.h"
#include "dialects/top/Interpreter/NpyFile.h"
#include "driver/PieceComparison.h"
#include "driver/PieceInputs.h"
#include "driver/QuantizedTables.h"
#include "frontends/llm/GraphBuilder.h"
#include "support/LlvmStatus.h"
#include "tools/llmc/PieceOptions.h"
#include "tools/llmc/QuantOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::opt<std::string> chip("chip",
                                 cl::desc("The chip whose device runs the "
                                          "piece (bm1684x, ...; see "
                                          "--list-plugins)"),
                                 cl::Required, cl::sub(getCompareCommand()));
static cl::alias chipShort("c", cl::desc("Alias for --chip"),
                           cl::aliasopt(chip));
static cl::opt<std::string>
    pieceName("piece",
              cl::desc("The piece to compare (see llmc pieces --list)"),
              cl::Required, cl::sub(getCompareCommand()));
static cl::opt<std::string> dumpDirectory(
    "dump",
    cl::desc("Write every op's outputs into this directory: "
             "reference/<name>.npy and device/<name>.npy"),
    cl::value_desc("directory"), cl::sub(getCompareCommand()));
static cl::opt<double> minCosine(
    "min-cosine",
    cl::desc("The lowest cosine an op's output may have (default: the "
             "mode's piece tolerance)"),
    cl::init(0), cl::sub(getCompareCommand()));

/// `name` as a file name: characters other than letters, digits, '.', '-'
/// and '_' become '_'.
static std::string getFileName(llvm::StringRef name) {
  std::string file = name.str();
  for (char &c : file)
    if (!llvm::isAlnum(c) && c != '.' && c != '-' && c != '_')
      c = '_';
  return file + ".npy";
}

static llvm::Error dumpOutputs(const driver::PieceComparison &comparison,
                               llvm::StringRef directory) {
  for (llvm::StringRef side : {"reference", "device"}) {
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, side);
    if (std::error_code error = llvm::sys::fs::create_directories(path))
      return llvm::createStringError(error, "cannot create %s: %s",
                                     path.c_str(), error.message().c_str());
  }
  for (const driver::OpComparison &op : comparison.ops) {
    auto write = [&](llvm::StringRef side,
                     const top::Tensor &tensor) -> llvm::Error {
      llvm::SmallString<256> path(directory);
      llvm::sys::path::append(path, side, getFileName(op.name));
      return support::toLlvmError(top::writeNpyFile(path.str().str(), tensor));
    };
    if (llvm::Error error = write("reference", op.reference))
      return error;
    if (op.device)
      if (llvm::Error error = write("device", *op.device))
        return error;
  }
  return llvm::Error::success();
}

static void printComparison(const driver::PieceComparison &comparison,
                            llvm::raw_ostream &os) {
  size_t nameWidth = 4;
  for (const driver::OpComparison &op : comparison.ops)
    nameWidth = std::max(nameWidth, op.name.size());
  os << llvm::format("%4s  ", "#") << llvm::left_justify("op", nameWidth)
     << llvm::format("  %-16s %-12s %10s %11s %11s\n", "device op", "shape",
                     "cosine", "max |err|", "max |ref|");
  for (auto [index, op] : llvm::enumerate(comparison.ops)) {
    std::string shape;
    llvm::raw_string_ostream shapeOs(shape);
    llvm::interleave(op.reference.getShape(), shapeOs, "x");
    os << llvm::format("%4zu  ", index + 1)
       << llvm::left_justify(op.name, nameWidth)
       << llvm::format("  %-16s %-12s ", op.deviceOp.c_str(), shape.c_str());
    if (!op.device) {
      os << "-- " << op.note << "\n";
      continue;
    }
    if (op.reference.isI32())
      os << llvm::format("%10s %11.0f %11s", op.cosine == 1 ? "equal" : "differ",
                         op.maxError, "");
    else
      os << llvm::format("%10.6f %11.4g %11.4g", op.cosine, op.maxError,
                         op.maxReference);
    if (comparison.firstPastTolerance == index)
      os << "  <-- first past tolerance";
    else if (op.pastTolerance)
      os << "  <--";
    os << "\n";
  }
}

int runCompareCommand(const plugins::Registry &registry) {
  if (!isQuantizeSet())
    return reportError(llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "compare needs -q/--quantize (F32, F16, BF16, W8F16, W8BF16, W4F16, "
        "W4BF16, INT8)"));
  llvm::Expected<const plugins::BackendPlugin &> backend =
      registry.findBackend(chip);
  if (!backend)
    return reportError(backend.takeError());
  llvm::Expected<lowering::LoweringOptions> lowering =
      getLoweringOptions(nullptr, &backend->getDescriptor());
  if (!lowering)
    return reportError(lowering.takeError());
  llvm::Expected<llm::BuildOptions> buildOptions = getBuildOptions();
  if (!buildOptions)
    return reportError(buildOptions.takeError());
  llm::BuildOptions build = std::move(*buildOptions);
  llvm::Expected<LoadedModel> model = loadSelectedModel(registry, build);
  if (!model)
    return reportError(model.takeError());
  mlir::MLIRContext context;
  llvm::Expected<llm::GraphBuilder> builder =
      llm::GraphBuilder::create(context, model->spec, build);
  if (!builder)
    return reportError(builder.takeError());
  llvm::Expected<llm::Piece> piece = builder->build(pieceName);
  if (!piece)
    return reportError(piece.takeError());
  // As convert compiles it: a tied embedding read in the LM head's form.
  llvm::Expected<std::vector<std::string>> linearTables =
      driver::getHeadLinearWeights(*builder);
  if (!linearTables)
    return reportError(linearTables.takeError());
  driver::markQuantizedTables(*piece->module, *linearTables);

  auto function = *piece->module->getOps<mlir::func::FuncOp>().begin();
  std::vector<top::Tensor> inputs = driver::makePieceInputs(
      function, build.seqLength, build.maxInputLength, model->spec.vocabSize);
  quant::DerivedWeightSource weights(*model->weights);
  driver::ComparisonOptions options;
  options.minCosine = minCosine;
  llvm::errs() << "comparing " << pieceName << " on " << chip << " ("
               << lowering::stringifyQuantMode(lowering->mode)
               << ") with the top interpreter\n";
  llvm::Expected<driver::PieceComparison> comparison = driver::comparePiece(
      *piece->module, *backend, weights, *lowering, inputs, options);
  if (!comparison)
    return reportError(comparison.takeError());
  if (!dumpDirectory.empty())
    if (llvm::Error error = dumpOutputs(*comparison, dumpDirectory))
      return reportError(std::move(error));

  printComparison(*comparison, llvm::outs());
  llvm::outs() << llvm::format("tolerance: cosine >= %.10g\n", comparison->minCosine);
  if (!comparison->firstPastTolerance) {
    llvm::outs() << "every op is within tolerance\n";
    return 0;
  }
  const driver::OpComparison &first =
      comparison->ops[*comparison->firstPastTolerance];
  llvm::outs() << "first op past tolerance: #"
               << *comparison->firstPastTolerance + 1 << " " << first.name
               << " (" << first.deviceOp << ")\n";
  return 2;
}

} // namespace llmc
