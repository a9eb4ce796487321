//===- Kernels.h - float32 kernels of the top interpreter ------*- C++ -*-===//
//
// One function per `top` computation, on interpreter tensors. Kernels know
// nothing about MLIR: the interpreter reads attributes and calls them, and a
// host backend may call them directly. Each kernel checks the operand shapes
// it relies on and returns an error instead of reading out of bounds; the
// semantics are those of the op descriptions in TopOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DIALECTS_TOP_INTERPRETER_KERNELS_H
#define LLMC_DIALECTS_TOP_INTERPRETER_KERNELS_H

#include "dialects/top/Interpreter/Tensor.h"

#include "llvm/Support/Error.h"

#include <utility>

namespace llmc::top {

class ThreadRunner;

namespace kernels {

/// An elementwise activation (the `activation` of an MLP, or the SiLU, GELU,
/// Sigmoid and Tanh ops).
enum class Activation { SiLU, GELU, GELUTanh, ReLU, Sigmoid, Tanh };

/// A "what is wrong" error for kernels; the interpreter adds the op and its
/// location.
llvm::Error kernelError(const llvm::Twine &message);

//===----------------------------------------------------------------------===//
// KernelsLinalg.cpp
//===----------------------------------------------------------------------===//

/// `input x right + bias` over the last two dimensions, batch dimensions
/// broadcast; `bias` (null for none) must broadcast to the result.
llvm::Expected<Tensor> matMul(const Tensor &input, const Tensor &right,
                              const Tensor *bias, bool leftTranspose,
                              bool rightTranspose, const ThreadRunner &runner);

/// `down(act(gate(x)) * up(x))` with `gate`, `up` [F, D] and `down` [D, F].
llvm::Expected<Tensor> gatedMLP(const Tensor &input, const Tensor &gate,
                                const Tensor &up, const Tensor &down,
                                Activation activation,
                                const ThreadRunner &runner);

//===----------------------------------------------------------------------===//
// KernelsNorm.cpp
//===----------------------------------------------------------------------===//

/// `x / sqrt(mean(x^2) + eps) * weight` over the last dimension; the sum of
/// squares is accumulated in double.
llvm::Expected<Tensor> rmsNorm(const Tensor &input, const Tensor *weight,
                               double eps, const ThreadRunner &runner);

/// `(x - mean) / sqrt(var + eps) * weight + bias` over the last dimension,
/// with the biased variance; statistics in double.
llvm::Expected<Tensor> layerNorm(const Tensor &input, const Tensor *weight,
                                 const Tensor *bias, double eps,
                                 const ThreadRunner &runner);

//===----------------------------------------------------------------------===//
// KernelsAttention.cpp
//===----------------------------------------------------------------------===//

enum class RopeMode { Half, Interleaved };

/// Rotary embedding of `input` [B, L, H, D] by `cos`, `sin` [B or 1, L, R].
llvm::Expected<Tensor> rope(const Tensor &input, const Tensor &cos,
                            const Tensor &sin, RopeMode mode,
                            const ThreadRunner &runner);

struct AttentionParams {
  double scale = 1.0;
  int64_t qHeads = 0;
  int64_t kvHeads = 0;
  int64_t headDim = 0;
  bool causal = false;
  /// Positive: scores become softcap * tanh(score / softcap) before the
  /// mask.
  double softcap = 0.0;
};

/// `softmax(q k^T * scale + mask) v` per query head, `q` [B, Lq, Hq, D],
/// `k`, `v` [B, Lk, Hkv, D], `mask` [B or 1, Lq, Lk] or null; the result is
/// [B, Lq, Hq * D]. A query that sees no key (every score -inf) yields zeros.
llvm::Expected<Tensor> attention(const Tensor &q, const Tensor &k,
                                 const Tensor &v, const Tensor *mask,
                                 const AttentionParams &params,
                                 const ThreadRunner &runner);

//===----------------------------------------------------------------------===//
// KernelsElementwise.cpp
//===----------------------------------------------------------------------===//

enum class BinaryOp { Add, Mul, Div };

/// `lhs op rhs` with NumPy broadcasting; Div is IEEE 754 division (x / 0 is
/// an infinity, 0 / 0 NaN).
llvm::Expected<Tensor> broadcastBinary(BinaryOp op, const Tensor &lhs,
                                       const Tensor &rhs,
                                       const ThreadRunner &runner);

/// `input * factor`, the product rounded once from double.
llvm::Expected<Tensor> mulConst(const Tensor &input, double factor,
                                const ThreadRunner &runner);

/// Every element rounded to the grid `(q - zeroPoint) * scale`, q =
/// clamp(round(x / scale) + zeroPoint, qmin, qmax) in float32, round half
/// away from zero.
struct FakeQuantParams {
  float scale = 1;
  int64_t zeroPoint = 0, qmin = -128, qmax = 127;
};
llvm::Expected<Tensor> fakeQuant(const Tensor &input,
                                 const FakeQuantParams &params,
                                 const ThreadRunner &runner);

/// Applies `activation` to every element (evaluated in double).
llvm::Expected<Tensor> activate(const Tensor &input, Activation activation,
                                const ThreadRunner &runner);

/// The activation of one value, shared with the MLP kernel.
float applyActivation(Activation activation, float x);

/// `sqrt(input)` of every element (NaN for negative ones).
llvm::Expected<Tensor> sqrt(const Tensor &input, const ThreadRunner &runner);

/// `input ^ exponent` of every element: `x * x` when the exponent is 2,
/// otherwise `std::pow` in float.
llvm::Expected<Tensor> power(const Tensor &input, double exponent,
                             const ThreadRunner &runner);

//===----------------------------------------------------------------------===//
// KernelsData.cpp
//===----------------------------------------------------------------------===//

/// NumPy broadcast of `input` (of either kind) to `shape`, aligned at the
/// last dimension; a negative dimension of `shape` takes the input's, which
/// must then be present and not 1.
llvm::Expected<Tensor> expand(const Tensor &input,
                              llvm::ArrayRef<int64_t> shape);

/// Slices of `table` along `axis` picked by `indices` (an I32 tensor); an
/// index outside [0, table dim) is an error.
llvm::Expected<Tensor> gather(const Tensor &table, const Tensor &indices,
                              int64_t axis);

/// The same elements with `shape`; one negative dimension is inferred.
llvm::Expected<Tensor> reshape(const Tensor &input,
                               llvm::ArrayRef<int64_t> shape);

/// Result dimension i is input dimension `order[i]`.
llvm::Expected<Tensor> permute(const Tensor &input,
                               llvm::ArrayRef<int64_t> order);

/// Joins `inputs` (all of one kind) along `axis`.
llvm::Expected<Tensor> concat(llvm::ArrayRef<const Tensor *> inputs,
                              int64_t axis);

/// `input[starts[d] : ends[d] : steps[d]]` per dimension; negative starts and
/// ends count from the end, both are clamped, steps must be positive.
llvm::Expected<Tensor> slice(const Tensor &input,
                             llvm::ArrayRef<int64_t> starts,
                             llvm::ArrayRef<int64_t> ends,
                             llvm::ArrayRef<int64_t> steps);

//===----------------------------------------------------------------------===//
// KernelsSelect.cpp
//===----------------------------------------------------------------------===//

enum class CompareMode { Eq, Ne, Lt, Le, Gt, Ge };

/// `lhs mode rhs` with NumPy broadcasting, for two tensors of one kind; the
/// I32 result holds 1 where the relation holds and 0 elsewhere (a NaN makes
/// every relation false except Ne).
llvm::Expected<Tensor> compare(CompareMode mode, const Tensor &lhs,
                               const Tensor &rhs);

/// `cond ? x : y` with NumPy broadcasting of all three; `cond` is I32
/// (nonzero is true), `x` and `y` are of one kind, which the result takes.
llvm::Expected<Tensor> where(const Tensor &cond, const Tensor &x,
                             const Tensor &y);

/// A copy of `data` in which each element of `updates` replaces the element
/// at its own position with the `axis` coordinate taken from `indices` (I32,
/// same shape as `updates`). Updates apply in row-major order, so the last of
/// repeated indices wins; an index outside [0, data dim) is an error.
llvm::Expected<Tensor> scatterElements(const Tensor &data,
                                       const Tensor &indices,
                                       const Tensor &updates, int64_t axis);

//===----------------------------------------------------------------------===//
// KernelsReduce.cpp
//===----------------------------------------------------------------------===//

/// Softmax along `axis` (negative counts from the end); exponentials and
/// their sum in double.
llvm::Expected<Tensor> softmax(const Tensor &input, int64_t axis,
                               const ThreadRunner &runner);

/// Running sums along `axis`, accumulated in double and rounded once per
/// output; `exclusive` leaves each element out of its own sum, `reverse`
/// sums from the end.
llvm::Expected<Tensor> cumSum(const Tensor &input, int64_t axis,
                              bool exclusive, bool reverse);

/// The mean over `axes` (negative counts from the end; distinct, at least
/// one), reduced dimensions kept as 1 with `keepDims`; sums accumulate in
/// double in element order, as RMSNorm's mean of squares.
llvm::Expected<Tensor> reduceMean(const Tensor &input,
                                  llvm::ArrayRef<int64_t> axes, bool keepDims);

/// The I32 index of the largest (`max`) or smallest element along `axis`,
/// the first on ties; a NaN counts as the extreme, as in NumPy.
llvm::Expected<Tensor> argExtreme(const Tensor &input, int64_t axis,
                                  bool keepDims, bool max);

/// The k largest (descending) or smallest (ascending) values along `axis`
/// and their I32 indices; ties keep the lower index first, NaN counts as
/// larger than any number.
llvm::Expected<std::pair<Tensor, Tensor>> topK(const Tensor &input, int64_t k,
                                               int64_t axis, bool largest);

} // namespace kernels
} // namespace llmc::top

#endif // LLMC_DIALECTS_TOP_INTERPRETER_KERNELS_H
