//===- llmc-translate.cpp - llmc's importers as MLIR translations ---------===//
//
// mlir-translate with llmc's dialects and importers:
//
//   llmc-translate --import-onnx model.onnx [--onnx-input-shape=ids=1x8]
//
// prints the primitive top IR of an ONNX graph; pipe it to
// `llmc-opt --top-raise-primitives` to see the fused ops. The lit tests of
// the ONNX importer drive it.
//
//===----------------------------------------------------------------------===//

#include "dialects/Registration.h"
#include "frontends/onnx/OnnxImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::list<std::string> inputShapes(
    "onnx-input-shape",
    llvm::cl::desc("Static shape of a dynamic ONNX input, as name=1x8x256 "
                   "(repeatable)"));

/// Parses --onnx-input-shape values into ImportOptions.
static llvm::Error addInputShapes(llmc::onnx::ImportOptions &options) {
  for (llvm::StringRef entry : inputShapes) {
    auto [name, dims] = entry.split('=');
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    llvm::SmallVector<int64_t> shape;
    for (llvm::StringRef part : parts) {
      int64_t dim;
      if (part.getAsInteger(10, dim) || dim < 0)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "--onnx-input-shape: '" + entry +
                                           "' is not name=1x8x256");
      shape.push_back(dim);
    }
    options.inputShapes[name] = shape;
  }
  return llvm::Error::success();
}

static OwningOpRef<Operation *> importOnnx(llvm::SourceMgr &sourceMgr,
                                           MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  auto fail = [&](llvm::Error error) -> OwningOpRef<Operation *> {
    emitError(UnknownLoc::get(context)) << llvm::toString(std::move(error));
    return nullptr;
  };
  llmc::onnx::ImportOptions options;
  if (llvm::Error error = addInputShapes(options))
    return fail(std::move(error));
  llvm::Expected<std::unique_ptr<llmc::onnx::OnnxModel>> model =
      llmc::onnx::OnnxModel::parse(buffer->getMemBufferRef());
  if (!model)
    return fail(model.takeError());
  context->loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(context));
  if (llvm::Expected<func::FuncOp> function =
          llmc::onnx::importGraph(**model, *module, options);
      !function)
    return fail(function.takeError());
  return OwningOpRef<Operation *>(module.release());
}

int main(int argc, char **argv) {
  TranslateToMLIRRegistration importRegistration(
      "import-onnx", "imports an ONNX model as primitive top IR", importOnnx,
      [](DialectRegistry &registry) { llmc::registerAllDialects(registry); });
  return failed(mlirTranslateMain(argc, argv, "llmc translation driver"));
}
