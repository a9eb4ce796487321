//===- PieceAnalysis.h - a model description from raised pieces -*- C++ -*-===//
//
// An exported decoder's pieces, imported and raised (OnnxImporter.h,
// top-raise-primitives), hold the fused ops the graph builder emits. This
// reads them back: which initializer each ModelSpec role is, and the
// hyperparameters the ops state (heads, head size, eps, ...), so an ONNX
// export compiles through the same graph builder as a Hugging Face
// checkpoint. Every expectation is checked; a graph of another shape gets an
// error naming the piece and what is missing.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_ONNX_PIECEANALYSIS_H
#define LLMC_FRONTENDS_ONNX_PIECEANALYSIS_H

#include "plugins/ModelSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llmc::onnx {

/// An initializer of a piece as a ModelSpec tensor: Linear weights are
/// stored [in, out] for ONNX's MatMul and read transposed.
struct InitializerRef {
  std::string name;
  bool transposed = false;
};

/// What one raised block states.
struct BlockDescription {
  int64_t hiddenSize = 0;
  int64_t intermediateSize = 0;
  int64_t numHeads = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  double rmsNormEps = 0;
  /// The rotary cos and sin tables [positions, head_dim] it gathers from.
  std::string ropeCos, ropeSin;
  std::map<plugins::TensorRole, InitializerRef> tensors;
};

/// Reads the block piece `function` (prefill: hidden, position_ids, mask).
llvm::Expected<BlockDescription> analyzeBlock(mlir::func::FuncOp function);

/// The token embedding table an embedding piece gathers from.
llvm::Expected<InitializerRef> analyzeEmbedding(mlir::func::FuncOp function);

/// The final norm and the LM head weight of an lm_head piece, and the
/// norm's eps.
struct HeadDescription {
  InitializerRef finalNorm, lmHead;
  double rmsNormEps = 0;
};
llvm::Expected<HeadDescription> analyzeLmHead(mlir::func::FuncOp function);

/// A whole-decoder export: input_ids [1, T] (and position_ids) to logits.
struct DecoderDescription {
  InitializerRef embedding;
  std::vector<BlockDescription> layers;
  HeadDescription head;
};
llvm::Expected<DecoderDescription> analyzeDecoder(mlir::func::FuncOp function);

} // namespace llmc::onnx

#endif // LLMC_FRONTENDS_ONNX_PIECEANALYSIS_H
