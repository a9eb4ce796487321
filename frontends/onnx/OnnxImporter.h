//===- OnnxImporter.h - an ONNX graph as a top function --------*- C++ -*-===//
//
// Imports the graph of an ONNX model op by op into a `func.func` of `top`
// ops, with static shapes: graph inputs become arguments wrapped in
// `top.Input` (the input's name is its role), float initializers become
// `top.Weight`s named after them (their bytes stay in the file), and the
// integer subgraphs that compute shapes and axes are evaluated while
// importing (ConstantFolding.h). The result is primitive `top` IR
// (MatMul, Pow, ReduceMean, Softmax, ...), which the raising patterns
// (dialects/top/Transforms) fuse into RMSNorm, Rope, FAttention and MLP.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_ONNX_ONNXIMPORTER_H
#define LLMC_FRONTENDS_ONNX_ONNXIMPORTER_H

#include "frontends/onnx/OnnxModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace llmc::onnx {

struct ImportOptions {
  /// The name of the function.
  std::string functionName = "main";
  /// Static shapes for inputs the file leaves dynamic, by input name.
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
};

/// Imports `model`'s graph into a new function at the end of `module`. Errors
/// name the file and the node (unsupported ops, dynamic shapes without
/// ImportOptions::inputShapes, malformed attributes).
llvm::Expected<mlir::func::FuncOp> importGraph(const OnnxModel &model,
                                               mlir::ModuleOp module,
                                               const ImportOptions &options);

} // namespace llmc::onnx

#endif // LLMC_FRONTENDS_ONNX_ONNXIMPORTER_H
