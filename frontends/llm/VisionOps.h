//===- VisionOps.h - the top ops vision towers are made of ------*- C++ -*-===//
//
// The building blocks the vision pieces share, over a PieceEmitter: Linear
// layers with the checkpoint's [out, in] weights, LayerNorm, GELU, views
// (Reshape, Permute, Slice) and attention without a causal mask. Weights
// keep the checkpoint's names.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_LLM_VISIONOPS_H
#define LLMC_FRONTENDS_LLM_VISIONOPS_H

#include "frontends/llm/PieceEmitter.h"

namespace llmc::llm {

class VisionOps {
public:
  explicit VisionOps(PieceEmitter &emit) : emit(emit), b(emit.getBuilder()) {}

  mlir::RankedTensorType type(llvm::ArrayRef<int64_t> shape) {
    return emit.f32Type(shape);
  }
  mlir::Location loc(const llvm::Twine &name) { return emit.loc(name); }
  mlir::Value weight(const llvm::Twine &name, llvm::ArrayRef<int64_t> shape) {
    return emit.namedWeight(name.str(), shape);
  }
  mlir::Value none() { return emit.none(); }
  mlir::OpBuilder &getBuilder() { return b; }

  mlir::Value reshape(mlir::Value input, llvm::ArrayRef<int64_t> shape,
                      const llvm::Twine &name);
  /// Result dimension i is input dimension order[i].
  mlir::Value permute(mlir::Value input, llvm::ArrayRef<int64_t> order,
                      const llvm::Twine &name);
  /// Elements [starts, ends) with unit steps.
  mlir::Value slice(mlir::Value input, llvm::ArrayRef<int64_t> starts,
                    llvm::ArrayRef<int64_t> ends, const llvm::Twine &name);
  /// `input` [..., in] times the Linear `prefix`.weight [out, in] plus its
  /// `prefix`.bias when `bias`.
  mlir::Value linear(mlir::Value input, const llvm::Twine &prefix, int64_t in,
                     int64_t out, bool bias = true);
  /// LayerNorm over the last `width` channels with `prefix`.weight and
  /// `prefix`.bias.
  mlir::Value layerNorm(mlir::Value input, const llvm::Twine &prefix,
                        int64_t width, double eps);
  mlir::Value gelu(mlir::Value input, bool tanh, const llvm::Twine &name);
  mlir::Value add(mlir::Value lhs, mlir::Value rhs, const llvm::Twine &name);
  mlir::Value mul(mlir::Value lhs, mlir::Value rhs, const llvm::Twine &name);
  /// Attention of q [1, Lq, heads, headDim] over k, v [1, Lk, heads,
  /// headDim] scaled by 1/sqrt(headDim), with an additive `mask` [1, Lq, Lk]
  /// or none and no causal mask: [1, Lq, heads · headDim].
  mlir::Value attention(mlir::Value q, mlir::Value k, mlir::Value v,
                        mlir::Value mask, int64_t heads, int64_t headDim,
                        const llvm::Twine &name);

private:
  PieceEmitter &emit;
  mlir::OpBuilder &b;
};

} // namespace llmc::llm

#endif // LLMC_FRONTENDS_LLM_VISIONOPS_H
