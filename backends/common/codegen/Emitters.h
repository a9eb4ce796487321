//===- Emitters.h - command emission per tpu op -----------------*- C++ -*-===//
//
// One function per kind of op, each tiling its op so every lane's working
// set fits local memory and issuing loads a tile or two ahead of the
// computations that use them (software pipelining). The shared shapes of
// work: projections (weights streamed through the lanes), row-wise
// operations, attention, gathers, reductions and copies.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_EMITTERS_H
#define LLMC_BACKENDS_COMMON_CODEGEN_EMITTERS_H

#include "backends/common/codegen/Emitter.h"
#include "backends/common/codegen/GlobalViews.h"
#include "backends/common/codegen/SectionWriter.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace llmc::codegen {

/// How an 8-bit activation is quantized: `(q - zeroPoint) * scale`.
struct ActivationQuantization {
  /// I8 or U8; DTYPE_INVALID for a float activation.
  cmd::DType dtype = cmd::DTYPE_INVALID;
  double scale = 0;
  int32_t zeroPoint = 0;
  bool present() const { return dtype != cmd::DTYPE_INVALID; }
};

/// The weight operands of a projection `y = x w^T + bias`; `scale` and `zp`
/// have rows = 0 for a float weight, `zp` and `bias` for none. An INT8
/// projection (I8MATMUL) has an I8 weight, F32 scales [N, 1] and x's
/// quantization in `input`.
struct ProjectionWeights {
  cmd::GlobalTensor weight;
  cmd::GlobalTensor scale;
  cmd::GlobalTensor zp;
  cmd::GlobalTensor bias;
  ActivationQuantization input;
};

/// Values a layer group holds in local memory, by value: what its ops read
/// without a load.
using HeldValues = llvm::DenseMap<mlir::Value, cmd::LocalTensor>;

/// y [M, N] = x [M, K] w[N, K]^T (+ bias) (+ residual [M, N]), dequantizing
/// a quantized w. A residual is loaded into the output tile, which the
/// product accumulates onto (one rounding). `endsPiece`: nothing follows it
/// in the stream, so the tilings that shorten its exposed tail are weighed.
/// `heldX`: all of x where a layer group holds it, replicated on every lane
/// (read by channel splits) or its rows over the lanes (read by the row
/// split with its rows per lane); x then only gives the shape. `heldY`:
/// all of y's rows over the lanes where a layer group holds them (the row
/// split computes there, with its rows per lane, and stores nothing); y
/// then only gives the shape.
llvm::Error emitProjection(Emitter &emitter, const cmd::GlobalTensor &x,
                           const ProjectionWeights &weights,
                           const cmd::GlobalTensor &y,
                           const cmd::GlobalTensor *residual = nullptr,
                           bool endsPiece = false,
                           const cmd::LocalTensor *heldX = nullptr,
                           const cmd::LocalTensor *heldY = nullptr);

/// How a gated MLP keeps its intermediate in local memory (emitRowMlp):
/// `perLane` of x's rows on each lane, gate and up `chunk` intermediate
/// channels at a time, down `downChunk` (a multiple of `chunk`) at a time.
struct RowMlpTiling {
  int64_t perLane = 1;
  int64_t chunk = 1;
  int64_t downChunk = 1;
};

/// The tilings emitRowMlp can use for x [M, K], gate [I, K] and down
/// [N, I] (float weights), the largest chunks first; none when not even
/// one row per lane (with `heldX`, its rows per lane) and the smallest
/// chunk fit.
std::vector<RowMlpTiling>
listRowMlpTilings(const Emitter &emitter, const cmd::GlobalTensor &x,
                  const ProjectionWeights &gate, const ProjectionWeights &down,
                  cmd::DType hiddenType, cmd::DType yType,
                  const cmd::LocalTensor *heldX = nullptr);

/// y = down(act(gate(x)) * up(x)) (+ residual) with float weights, each
/// lane a range of x's rows: a chunk of intermediate channels at a time,
/// its h (in `hiddenType`) stays in local memory and its share of y is
/// added to float32 partial sums there; y is rounded once at the end.
/// `activation` is the activation's command without tensors. `heldX`:
/// all of x's rows over the lanes where a layer group holds them.
llvm::Error emitRowMlp(Emitter &emitter, const cmd::GlobalTensor &x,
                       const ProjectionWeights &gate,
                       const ProjectionWeights &up,
                       const ProjectionWeights &down,
                       const cmd::Compute &activation, cmd::DType hiddenType,
                       const cmd::GlobalTensor &y,
                       const cmd::GlobalTensor *residual,
                       const RowMlpTiling &tiling,
                       const cmd::LocalTensor *heldX = nullptr);

/// The gated MLP y = down(act(gate(x)) * up(x)) (+ residual) on one core
/// (`mlp` a tpu.MLP or tpu.A16MLP gives the activation), in the fastest of
/// its forms: h through `scratch` [M, I], or kept in local memory
/// (emitRowMlp). `heldX` as emitProjection's.
llvm::Error emitGatedMlp(Emitter &emitter, mlir::Operation *mlp,
                         const cmd::GlobalTensor &x,
                         const ProjectionWeights &gate,
                         const ProjectionWeights &up,
                         const ProjectionWeights &down,
                         const cmd::GlobalTensor &scratch,
                         const cmd::GlobalTensor &y,
                         const cmd::GlobalTensor *residual,
                         const cmd::LocalTensor *heldX = nullptr);

/// The projection's command on an untiled chip (Emitter::isUntiled): one
/// MATMUL, A16MATMUL or I8MATMUL on the whole tensors, accumulating onto a
/// copy of `residual` in y.
llvm::Error emitUntiledProjection(Emitter &emitter, const cmd::GlobalTensor &x,
                                  const ProjectionWeights &weights,
                                  const cmd::GlobalTensor &y,
                                  const cmd::GlobalTensor *residual);

/// h = act(gate(x)) * up(x) on an untiled chip: one GATED_MATMUL.
/// `activation` is SILU or GELU (with its `tanh_approx`).
llvm::Error emitUntiledGatedMatMul(Emitter &emitter, const cmd::GlobalTensor &x,
                                   const ProjectionWeights &gate,
                                   const ProjectionWeights &up,
                                   const cmd::Compute &activation,
                                   const cmd::GlobalTensor &h);

/// tpu.MatMul, tpu.A16MatMul, tpu.A8MatMul, tpu.MLP, tpu.A16MLP and
/// tpu.A8MLP. With `residualAdd`
/// (the op's only user, a tpu.Add of its result and a residual), the add is
/// computed in the projection's output tiles and written as its result.
/// With a `core_split`, every core computes a range of output channels (an
/// MLP: of the intermediate channels, then of its outputs) and streams only
/// their weights; each output element is computed as on one core.
/// `endsPiece` as emitProjection's, for the op's last projection. An x in
/// `held` is read where the op's layer group holds it; with `heldY` (a
/// projection on one core without a residual add), the result is computed
/// where the group holds it, as emitProjection's `heldY`.
llvm::Error emitLinearOp(SectionWriter &sections,
                         const ValuePlacement &placement, mlir::Operation *op,
                         mlir::Operation *residualAdd = nullptr,
                         bool endsPiece = false,
                         const HeldValues *held = nullptr,
                         const cmd::LocalTensor *heldY = nullptr);

/// A tpu.Group: its held values where the layer-group pass placed them
/// (`lg`), then its ops, each reading what the group holds instead of
/// loading it. `endsPiece`: the group is the piece's last work.
llvm::Error emitGroupOp(SectionWriter &sections,
                        const ValuePlacement &placement, mlir::Operation *group,
                        bool endsPiece);

/// The commands of `members`, a layer group's ops in order (without its
/// loads, stores and yield), as emitGroupOp emits them: what their `lg`
/// places is held in local memory until the arena's group ends. The
/// layer-group pass costs a candidate group with it before forming it.
llvm::Error emitGroupMembers(SectionWriter &sections,
                             const ValuePlacement &placement,
                             llvm::ArrayRef<mlir::Operation *> members,
                             bool endsPiece);

/// An operand of a row-wise computation: a tensor with the output's rows,
/// or a single row every lane holds (`broadcast`), or all the output's rows
/// where a layer group holds them (`held`, rows over the lanes; `global`
/// then only gives the shape).
struct RowwiseInput {
  cmd::GlobalTensor global;
  bool broadcast = false;
  const cmd::LocalTensor *held = nullptr;
};

/// Runs `compute` (its opcode and attributes; tensors are filled in) over
/// tiles of rows: every input has the output's rows unless broadcast. With
/// a held input, all rows are one tile split over the lanes as it is.
llvm::Error emitRowwise(Emitter &emitter, const cmd::Compute &compute,
                        llvm::ArrayRef<RowwiseInput> inputs,
                        const cmd::GlobalTensor &output);

/// A norm's command attributes and operands (input, weight, bias).
struct RowwiseNorm {
  cmd::Compute compute;
  llvm::SmallVector<mlir::Value, 3> operands;
};
/// `op`'s, when it is a tpu.RMSNorm or tpu.LayerNorm over its last axis.
std::optional<RowwiseNorm> getRowwiseNorm(mlir::Operation *op);

/// The row-wise `compute` of x = inputs[0] [M, C] (the others [1, C])
/// into `output`, a tensor a layer group holds, as one command: whole on
/// every lane (the group's channel-split projections read it) or its rows
/// over the lanes (row-split projections read it).
llvm::Error emitHeldRowwise(Emitter &emitter, const cmd::Compute &compute,
                            llvm::ArrayRef<cmd::GlobalTensor> inputs,
                            const cmd::LocalTensor &output);

/// The norm `op` (getRowwiseNorm) computed into `output`, a tensor a layer
/// group holds, by emitHeldRowwise; its operands are where `placement`
/// puts them.
llvm::Error emitHeldNorm(Emitter &emitter, const ValuePlacement &placement,
                         mlir::Operation *op, const cmd::LocalTensor &output);

/// Copies `from` to `to` (same shape and type) through local memory.
llvm::Error emitCopy(Emitter &emitter, const cmd::GlobalTensor &from,
                     const cmd::GlobalTensor &to);

/// Elementwise ops, comparisons and selections, casts, norms, softmax,
/// running sums and rope. Operands in `held` are read where the op's layer
/// group holds them.
llvm::Error emitRowwiseOp(Emitter &emitter, const ValuePlacement &placement,
                          mlir::Operation *op,
                          const HeldValues *held = nullptr);

/// Gathers `op`'s rows (a tpu.Gather) into `output`, rows over the lanes,
/// which its layer group holds.
llvm::Error emitHeldGather(Emitter &emitter, const ValuePlacement &placement,
                           mlir::Operation *op, const cmd::LocalTensor &output);

/// tpu.FAttention. With `heldO`, all of o's rows over the lanes where a
/// layer group holds them: attention splits query rows as they lie, in
/// one tile, computes o there and does not store it.
llvm::Error emitAttentionOp(Emitter &emitter, const ValuePlacement &placement,
                            mlir::Operation *op,
                            const cmd::LocalTensor *heldO = nullptr);

/// tpu.Gather, tpu.A16Gather, tpu.ScatterElements, tpu.Slice, tpu.Arg, tpu.TopK
/// and tpu.Concat.
llvm::Error emitDataMovementOp(Emitter &emitter,
                               const ValuePlacement &placement,
                               mlir::Operation *op);

/// An error naming `op` and its location.
llvm::Error opError(mlir::Operation *op, const llvm::Twine &message);

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_EMITTERS_H
