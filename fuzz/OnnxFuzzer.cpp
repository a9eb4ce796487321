//===- OnnxFuzzer.cpp - an ONNX model from a stranger ---------------------===//
//
// A ModelProto, parsed, indexed and imported into top IR with its shape
// subgraphs folded, as the ONNX frontend does with each piece file. Inputs
// the file leaves dynamic get no shapes, so such graphs end in an error, as
// they do without --input-shape. A graph the importer accepts must verify.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/IR/TopDialect.h"
#include "frontends/onnx/OnnxImporter.h"
#include "frontends/onnx/OnnxModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace {
mlir::MLIRContext &getContext() {
  static mlir::MLIRContext *context = [] {
    auto *created = new mlir::MLIRContext();
    created->loadDialect<mlir::func::FuncDialect, llmc::top::TopDialect>();
    // Diagnostics of rejected graphs are expected; keep the output to
    // findings.
    created->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    return created;
  }();
  return *context;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<std::unique_ptr<llmc::onnx::OnnxModel>> model =
      llmc::onnx::OnnxModel::parse(llvm::MemoryBufferRef(bytes, "fuzz.onnx"));
  if (!model) {
    llvm::consumeError(model.takeError());
    return 0;
  }
  for (const std::string &name : (*model)->getTensorNames())
    if (llvm::Expected<llvm::ArrayRef<uint8_t>> tensor =
            (*model)->getTensorData(name))
      (void)tensor->size();
    else
      llvm::consumeError(tensor.takeError());
  mlir::MLIRContext &context = getContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  llvm::Expected<mlir::func::FuncOp> function =
      llmc::onnx::importGraph(**model, *module, llmc::onnx::ImportOptions());
  if (!function) {
    llvm::consumeError(function.takeError());
    return 0;
  }
  if (mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "the importer accepted a graph into IR that does not "
                    "verify\n";
    std::abort();
  }
  return 0;
}
