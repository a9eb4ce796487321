//===- PiecesCommand.cpp - llmc pieces: the top IR of a model -------------===//

#include "tools/llmc/Commands.h"
#include "frontends/llm/ModelLoading.h"
#include "tools/llmc/PieceOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::list<std::string>
    pieceNames("piece",
               cl::desc("Print only this piece (repeatable; default: all)"),
               cl::sub(getPiecesCommand()));
static cl::opt<bool> listOnly("list",
                              cl::desc("List the pieces and their IO instead "
                                       "of printing IR"),
                              cl::sub(getPiecesCommand()));

static cl::opt<bool> printLocations(
    "print-locations",
    cl::desc("Print each op's location (checkpoint tensor names)"),
    cl::sub(getPiecesCommand()));

static void printIO(llvm::raw_ostream &os, llvm::ArrayRef<llm::PieceIO> ios) {
  llvm::interleaveComma(ios, os, [&](const llm::PieceIO &io) {
    os << llm::stringifyIORole(io.role) << "[";
    llvm::interleave(io.shape, os, "x");
    os << (io.isInteger ? "xi32]" : "xf32]");
  });
}

int runPiecesCommand(const plugins::Registry &registry) {
  llvm::Expected<llm::BuildOptions> buildOptions = getBuildOptions();
  if (!buildOptions)
    return reportError(buildOptions.takeError());
  llm::BuildOptions options = std::move(*buildOptions);
  llvm::Expected<LoadedModel> model = loadSelectedModel(registry, options);
  if (!model)
    return reportError(model.takeError());
  mlir::MLIRContext context;
  llvm::Expected<llm::GraphBuilder> builder =
      llm::GraphBuilder::create(context, model->spec, options);
  if (!builder)
    return reportError(builder.takeError());
  std::vector<std::string> names(pieceNames.begin(), pieceNames.end());
  if (names.empty())
    names = builder->getPieceNames();
  for (const std::string &name : names) {
    llvm::Expected<llm::Piece> piece = builder->build(name);
    if (!piece)
      return reportError(piece.takeError());
    if (failed(mlir::verify(*piece->module)))
      return reportError(llvm::createStringError(
          llvm::inconvertibleErrorCode(), "piece '%s' failed to verify",
          name.c_str()));
    if (listOnly) {
      llvm::outs() << name << ": ";
      printIO(llvm::outs(), piece->inputs);
      llvm::outs() << " -> ";
      printIO(llvm::outs(), piece->outputs);
      llvm::outs() << " (" << piece->weights.size() << " weights)\n";
      continue;
    }
    mlir::OpPrintingFlags flags;
    if (printLocations)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/true);
    piece->module->print(llvm::outs(), flags);
    llvm::outs() << "\n";
  }
  return 0;
}

} // namespace llmc
