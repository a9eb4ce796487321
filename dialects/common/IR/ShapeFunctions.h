//===- ShapeFunctions.h - shape rules shared by top and tpu -----*- C++ -*-===//
//
// The shape rule of each computation, written once and used by the `top` op
// and its `tpu` counterpart. Each function checks its operands, reports the
// first inconsistency through `emitError`, and returns the result shape.
// Dimensions may be ShapedType::kDynamic; they are only compared when known.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_COMMON_IR_SHAPEFUNCTIONS_H
#define LLMC_DIALECTS_COMMON_IR_SHAPEFUNCTIONS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace llmc {

using Shape = llvm::SmallVector<int64_t>;
using EmitErrorFn = llvm::function_ref<mlir::InFlightDiagnostic()>;
/// The shape of an optional operand; std::nullopt when the operand is none.
using OptionalShape = std::optional<llvm::ArrayRef<int64_t>>;

/// A dimension for messages: its size, or `?` when dynamic.
std::string formatDim(int64_t dim);

/// True when two dimensions can be equal (either is dynamic, or both match).
bool dimsCompatible(int64_t lhs, int64_t rhs);

/// NumPy-style broadcast of two shapes.
llvm::FailureOr<Shape> inferBroadcastShape(llvm::ArrayRef<int64_t> lhs,
                                           llvm::ArrayRef<int64_t> rhs,
                                           EmitErrorFn emitError);

/// NumPy-style broadcast of any number of shapes (the three operands of a
/// select, for example).
llvm::FailureOr<Shape>
inferBroadcastShape(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                    EmitErrorFn emitError);

/// `lhs` is [..., M, K] (or [..., K, M] transposed), `rhs` is [..., K, N] (or
/// [..., N, K] transposed) with broadcast batch dimensions; `bias` must
/// broadcast to [..., M, N] and its last dimension must be N or 1.
llvm::FailureOr<Shape> inferMatMulShape(llvm::ArrayRef<int64_t> lhs,
                                        llvm::ArrayRef<int64_t> rhs,
                                        OptionalShape bias, bool leftTranspose,
                                        bool rightTranspose,
                                        EmitErrorFn emitError);

/// Normalization over the last dimension: `weight` and `bias` are [D].
llvm::FailureOr<Shape> inferNormShape(llvm::ArrayRef<int64_t> input,
                                      OptionalShape weight, OptionalShape bias,
                                      EmitErrorFn emitError);

/// table.shape[:axis] + indices.shape + table.shape[axis+1:].
llvm::FailureOr<Shape> inferGatherShape(llvm::ArrayRef<int64_t> table,
                                        llvm::ArrayRef<int64_t> indices,
                                        int64_t axis, EmitErrorFn emitError);

/// `input` is [B, L, H, D]; `cos` and `sin` are [B or 1, L, R] with R even and
/// R <= D (the first R channels of each head rotate).
llvm::FailureOr<Shape> inferRopeShape(llvm::ArrayRef<int64_t> input,
                                      llvm::ArrayRef<int64_t> cos,
                                      llvm::ArrayRef<int64_t> sin,
                                      EmitErrorFn emitError);

/// `q` is [B, Lq, qHead, headDim], `k` and `v` are [B, Lk, kvHead, headDim],
/// `mask` is [B or 1, Lq, Lk]; the result is [B, Lq, qHead * headDim].
llvm::FailureOr<Shape>
inferAttentionShape(llvm::ArrayRef<int64_t> q, llvm::ArrayRef<int64_t> k,
                    llvm::ArrayRef<int64_t> v, OptionalShape mask,
                    int64_t qHead, int64_t kvHead, int64_t headDim,
                    EmitErrorFn emitError);

/// Gated MLP with weights in Linear layout ([out, in]): `gate` and `up` are
/// [F, D], `down` is [D, F]; the result has the input's shape [..., D].
llvm::FailureOr<Shape> inferGatedMLPShape(llvm::ArrayRef<int64_t> input,
                                          llvm::ArrayRef<int64_t> gate,
                                          llvm::ArrayRef<int64_t> up,
                                          llvm::ArrayRef<int64_t> down,
                                          EmitErrorFn emitError);

/// Checks that `result` holds as many elements as `input`; one dynamic
/// result dimension is resolved from the element count.
llvm::FailureOr<Shape> inferReshapeShape(llvm::ArrayRef<int64_t> input,
                                         llvm::ArrayRef<int64_t> result,
                                         EmitErrorFn emitError);

/// result[i] = input[order[i]]; `order` must be a permutation.
llvm::FailureOr<Shape> inferPermuteShape(llvm::ArrayRef<int64_t> input,
                                         llvm::ArrayRef<int64_t> order,
                                         EmitErrorFn emitError);

/// Concatenation along `axis` (negative counts from the end).
llvm::FailureOr<Shape>
inferConcatShape(llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputs, int64_t axis,
                 EmitErrorFn emitError);

/// Strided slice with one start, end and positive step per dimension; ends
/// are clamped to the dimension, negative starts and ends count from the end.
llvm::FailureOr<Shape> inferSliceShape(llvm::ArrayRef<int64_t> input,
                                       llvm::ArrayRef<int64_t> starts,
                                       llvm::ArrayRef<int64_t> ends,
                                       llvm::ArrayRef<int64_t> steps,
                                       EmitErrorFn emitError);

/// ONNX ScatterElements: `indices` and `updates` share one shape of `data`'s
/// rank that fits inside `data` except along `axis`; the result is `data`'s.
llvm::FailureOr<Shape> inferScatterElementsShape(
    llvm::ArrayRef<int64_t> data, llvm::ArrayRef<int64_t> indices,
    llvm::ArrayRef<int64_t> updates, int64_t axis, EmitErrorFn emitError);

/// Reduces `axis` to 1 (keepDims) or removes it.
llvm::FailureOr<Shape> inferReduceAxisShape(llvm::ArrayRef<int64_t> input,
                                            int64_t axis, bool keepDims,
                                            EmitErrorFn emitError);

/// Reduces each of `axes` (negative counts from the end; distinct, at least
/// one) to 1 (keepDims) or removes them.
llvm::FailureOr<Shape> inferReduceAxesShape(llvm::ArrayRef<int64_t> input,
                                            llvm::ArrayRef<int64_t> axes,
                                            bool keepDims,
                                            EmitErrorFn emitError);

/// NumPy broadcast of `input` to `result` (aligned at the last dimension):
/// every input dimension must be 1 or the result's. A dynamic result
/// dimension takes the input's when that is known and not 1.
llvm::FailureOr<Shape> inferExpandShape(llvm::ArrayRef<int64_t> input,
                                        llvm::ArrayRef<int64_t> result,
                                        EmitErrorFn emitError);

/// Replaces dimension `axis` by `k`, which must not exceed it.
llvm::FailureOr<Shape> inferTopKShape(llvm::ArrayRef<int64_t> input, int64_t k,
                                      int64_t axis, EmitErrorFn emitError);

/// Checks that `axis` indexes a shape of `rank` and returns it non-negative.
llvm::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                       EmitErrorFn emitError);

} // namespace llmc

#endif // LLMC_DIALECTS_COMMON_IR_SHAPEFUNCTIONS_H
