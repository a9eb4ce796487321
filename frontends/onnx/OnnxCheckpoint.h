//===- OnnxCheckpoint.h - a decoder exported to ONNX as pieces -*- C++ -*-===//
//
// Loads a directory of ONNX files in the per-piece layout of TPU toolchains
// (tools/onnx/README.md): `embedding.onnx`, `block_<i>.onnx` (a layer's
// prefill), `lm_head.onnx` (final norm and head), or a single whole-decoder
// export (`decoder.onnx`, or any `.onnx` file), plus the tokenizer and
// generation defaults a Hugging Face directory would hold. Each file is
// imported and raised (OnnxImporter.h, top-raise-primitives); the fused ops
// give the ModelSpec and say which initializer each role is, so the model
// compiles through the graph builder like any other checkpoint. The rotary
// tables the blocks carry give rope_theta, and must be the default rope of
// that theta.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_ONNX_ONNXCHECKPOINT_H
#define LLMC_FRONTENDS_ONNX_ONNXCHECKPOINT_H

#include "plugins/Plugin.h"

namespace llmc::onnx {

/// True for a directory holding `block_0.onnx` (pieces) or `decoder.onnx`,
/// or an `.onnx` file (a whole decoder: input_ids and position_ids [1, T]
/// to logits [1, T, V], without cache).
bool isOnnxExport(llvm::StringRef path);

llvm::Expected<plugins::Checkpoint> loadCheckpoint(llvm::StringRef path);

/// The rope_theta whose default rotary tables [positions, head_dim] (Hugging
/// Face's half layout) `cos` and `sin` hold; an error when they hold no such
/// tables.
llvm::Expected<double> inferRopeTheta(llvm::ArrayRef<float> cos,
                                      llvm::ArrayRef<float> sin,
                                      int64_t positions, int64_t headDim);

} // namespace llmc::onnx

#endif // LLMC_FRONTENDS_ONNX_ONNXCHECKPOINT_H
