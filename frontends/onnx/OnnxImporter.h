//===- OnnxImporter.h - an ONNX graph as a top function --------*- C++ -*-===//
//
// Imports the graph of an ONNX model op by op into a `func.func` of `top`
// ops, with static shapes: graph inputs become arguments wrapped in
// `top.Input` (the input's name is its role), float initializers become
// `top.Weight`s named after them (their bytes stay in the file), and the
// integer subgraphs that compute shapes and axes are evaluated while
// importing (ConstantFolding.h). Values computed from the position ids
// alone (rotary cos and sin computed in the graph, as Hugging Face's code
// exports) are evaluated as tables over the positions while importing and
// gathered by position id, as exports that ship the tables do; a table is
// kept only when each of its rows depends on its own position alone. The
// result is primitive `top` IR
// (MatMul, Pow, ReduceMean, Softmax, ...), which the raising patterns
// (dialects/top/Transforms) fuse into RMSNorm, Rope, FAttention and MLP.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_ONNX_ONNXIMPORTER_H
#define LLMC_FRONTENDS_ONNX_ONNXIMPORTER_H

#include "frontends/onnx/ConstantFolding.h"
#include "frontends/onnx/OnnxModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace llmc::onnx {

struct ImportOptions {
  /// The name of the function.
  std::string functionName = "main";
  /// Static shapes for inputs the file leaves dynamic, by input name.
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// Inputs whose values are the same in every run, by name: they fold like
  /// constants (the attention_mask of one unpadded sequence is all ones).
  llvm::StringMap<ConstantTensor> constantInputs;
  /// The outputs the function returns, in this order; empty for all.
  std::vector<std::string> outputs;
  /// The input of position ids [1, T], and how many positions (0 .. n-1) a
  /// table of a value computed from it holds.
  std::string positionInput = "position_ids";
  int64_t tablePositions = 4096;
};

/// Imports `model`'s graph into a new function at the end of `module`. The
/// tables the import computes are added to `model` (addComputedTensor) under
/// the names of the values they tabulate. Errors name the file and the node
/// (unsupported ops, dynamic shapes without ImportOptions::inputShapes,
/// malformed attributes).
llvm::Expected<mlir::func::FuncOp> importGraph(OnnxModel &model,
                                               mlir::ModuleOp module,
                                               const ImportOptions &options);

} // namespace llmc::onnx

#endif // LLMC_FRONTENDS_ONNX_ONNXIMPORTER_H
