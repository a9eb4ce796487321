//===- EmitAttention.cpp - fused attention --------------------------------===//
//
// Two ways to spread attention over the lanes, chosen per op by the time
// model (TilingSearch.h):
// - by kv head: lane j holds the query heads that share kv head j (columns
//   of q and o), that head's keys and values, and the mask rows. Uses as
//   many lanes as kv heads; every key is loaded once per query tile.
// - by query rows: each lane holds a few query rows with all their heads
//   and mask rows, the keys and values broadcast to every lane. Uses all
//   lanes once there are as many queries (prefill).
// Query rows go in tiles; keys in chunks when a lane cannot hold them all,
// with the kernel's online-softmax state carried from chunk to chunk.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/Emitters.h"

#include "backends/common/codegen/TilingSearch.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace llmc::codegen {
namespace {

struct AttentionShape {
  int64_t queries, keys, queryHeads, kvHeads, headDim;
  int64_t groupCols() const { return queryHeads / kvHeads * headDim; }
};

struct AttentionTensors {
  cmd::GlobalTensor q, k, v, mask, o;
  bool hasMask = false;
};

/// `rows` queries at a time (`perLane` on each lane when split by rows),
/// keys in chunks of `chunk`.
struct AttentionTiling {
  bool byQueryRows = false;
  int64_t rows = 1;
  int64_t perLane = 1;
  int64_t chunk = 1;
};

class AttentionEmitter {
public:
  AttentionEmitter(Emitter &emitter, const AttentionShape &shape,
                   const AttentionTensors &tensors, double scale)
      : emitter(emitter), shape(shape), tensors(tensors), scale(scale) {}

  /// The tiling of each split that fits, if any.
  std::optional<AttentionTiling> chooseTiling(bool byQueryRows) const;
  llvm::Error emit(const AttentionTiling &tiling);

private:
  /// Per-lane bytes of the pinned query-tile tensors.
  uint64_t getPinnedBytes(const AttentionTiling &tiling, bool chunked) const;
  /// Per-lane bytes of a key chunk of `keys`.
  uint64_t getChunkBytes(const AttentionTiling &tiling, int64_t keys) const;
  llvm::Error emitQueryTile(const AttentionTiling &tiling, int64_t q0,
                            int64_t rows);

  /// A tensor of query rows: columns of heads split by kv head (`group`
  /// columns per lane), or rows split `perLane` per lane.
  cmd::LocalTensor queryLayout(const AttentionTiling &tiling, int64_t rows,
                               int64_t cols, cmd::DType dtype,
                               int64_t group) const {
    if (tiling.byQueryRows)
      return emitter.rowsLayout(rows, cols, dtype, tiling.perLane);
    return emitter.colsLayout(rows, cols, dtype, group);
  }
  /// A chunk of keys or values: one kv head per lane, or all of them on
  /// every lane holding queries.
  cmd::LocalTensor keyLayout(const AttentionTiling &tiling, int64_t keys,
                             int64_t rows) const {
    int64_t cols = shape.kvHeads * shape.headDim;
    if (tiling.byQueryRows)
      return emitter.replicated(
          keys, cols, tensors.k.dtype(),
          static_cast<uint32_t>(llvm::divideCeil(rows, tiling.perLane)));
    return emitter.colsLayout(keys, cols, tensors.k.dtype(), shape.headDim);
  }

  Emitter &emitter;
  AttentionShape shape;
  AttentionTensors tensors;
  double scale;
};

uint64_t AttentionEmitter::getPinnedBytes(const AttentionTiling &tiling,
                                          bool chunked) const {
  cmd::DType type = tensors.q.dtype();
  int64_t rows = tiling.byQueryRows ? tiling.perLane : tiling.rows;
  int64_t cols = tiling.byQueryRows ? shape.queryHeads * shape.headDim
                                    : shape.groupCols();
  int64_t heads = tiling.byQueryRows ? shape.queryHeads
                                     : shape.queryHeads / shape.kvHeads;
  uint64_t bytes = 2 * rows * emitter.getRowBytes(cols, type);
  if (chunked)
    bytes += rows * (emitter.getRowBytes(cols, cmd::DTYPE_F32) +
                     2 * emitter.getRowBytes(heads, cmd::DTYPE_F32));
  return bytes;
}

uint64_t AttentionEmitter::getChunkBytes(const AttentionTiling &tiling,
                                         int64_t keys) const {
  int64_t cols = tiling.byQueryRows ? shape.kvHeads * shape.headDim
                                    : shape.headDim;
  uint64_t bytes = 2 * keys * emitter.getRowBytes(cols, tensors.k.dtype());
  int64_t rows = tiling.byQueryRows ? tiling.perLane : tiling.rows;
  if (tensors.hasMask)
    bytes += rows * emitter.getRowBytes(keys, tensors.mask.dtype());
  return bytes;
}

llvm::Error AttentionEmitter::emitQueryTile(const AttentionTiling &tiling,
                                            int64_t q0, int64_t rows) {
  emitter.getArena().beginOp();
  bool chunked = tiling.chunk < shape.keys;
  int64_t group = shape.groupCols();
  int64_t headsPerLane = shape.queryHeads / shape.kvHeads;
  int64_t qCols = shape.queryHeads * shape.headDim;
  cmd::LocalTensor q =
      queryLayout(tiling, rows, qCols, tensors.q.dtype(), group);
  cmd::LocalTensor o =
      queryLayout(tiling, rows, qCols, tensors.o.dtype(), group);
  if (llvm::Error error = emitter.pin(q))
    return error;
  if (llvm::Error error = emitter.pin(o))
    return error;
  cmd::LocalTensor acc, max, sum;
  if (chunked) {
    acc = queryLayout(tiling, rows, qCols, cmd::DTYPE_F32, group);
    max = queryLayout(tiling, rows, shape.queryHeads, cmd::DTYPE_F32,
                      headsPerLane);
    sum = max;
    for (cmd::LocalTensor *state : {&acc, &max, &sum})
      if (llvm::Error error = emitter.pin(*state))
        return error;
  }
  emitter.load(sliceRows(tensors.q, q0, rows), q);
  for (int64_t k0 = 0; k0 < shape.keys; k0 += tiling.chunk) {
    int64_t keys = std::min(tiling.chunk, shape.keys - k0);
    cmd::LocalTensor k = keyLayout(tiling, keys, rows);
    cmd::LocalTensor v = k;
    if (llvm::Error error = emitter.ring(k))
      return error;
    if (llvm::Error error = emitter.ring(v))
      return error;
    emitter.load(sliceRows(tensors.k, k0, keys), k);
    emitter.load(sliceRows(tensors.v, k0, keys), v);
    cmd::LocalTensor mask;
    if (tensors.hasMask) {
      mask = tiling.byQueryRows
                 ? emitter.rowsLayout(rows, keys, tensors.mask.dtype(),
                                      tiling.perLane)
                 : emitter.replicated(rows, keys, tensors.mask.dtype(),
                                      static_cast<uint32_t>(shape.kvHeads));
      if (llvm::Error error = emitter.ring(mask))
        return error;
      emitter.load(sliceCols(sliceRows(tensors.mask, q0, rows), k0, keys),
                   mask);
    }
    bool last = k0 + keys >= shape.keys;
    cmd::Compute compute = cmodel::makeCompute(
        cmd::ATTENTION, {q, k, v, mask},
        {last ? o : cmd::LocalTensor(), acc, max, sum});
    if (!tensors.hasMask)
      compute.mutable_inputs()->RemoveLast();
    if (!chunked)
      for (int i = 0; i < 3; ++i)
        compute.mutable_outputs()->RemoveLast();
    compute.set_scalar(scale);
    compute.set_group(shape.headDim);
    compute.set_resume(chunked && k0 > 0);
    compute.set_partial(!last);
    emitter.compute(compute);
  }
  emitter.store(o, sliceRows(tensors.o, q0, rows));
  return llvm::Error::success();
}

std::optional<AttentionTiling>
AttentionEmitter::chooseTiling(bool byQueryRows) const {
  uint64_t laneBytes = emitter.getArena().getLaneBytes();
  int64_t lanes = emitter.getLanes();
  AttentionTiling tiling;
  tiling.byQueryRows = byQueryRows;
  // Query rows: as many as keep the pinned part within three eighths of a
  // lane, leaving the rest to stream key chunks two deep.
  if (byQueryRows) {
    tiling.perLane = llvm::divideCeil(shape.queries, lanes);
    while (tiling.perLane > 1 &&
           getPinnedBytes(tiling, true) > laneBytes * 3 / 8)
      tiling.perLane /= 2;
    tiling.rows = std::min(shape.queries, tiling.perLane * lanes);
  } else {
    tiling.rows = std::min<int64_t>(shape.queries, 64);
    while (tiling.rows > 1 && getPinnedBytes(tiling, true) > laneBytes * 3 / 8)
      tiling.rows /= 2;
  }
  // A chunk (keys, values, mask rows) may take most of what is left: the
  // keys are read once per query tile, so one big chunk beats two small
  // ones' latency.
  uint64_t pinned = getPinnedBytes(tiling, true);
  if (pinned > laneBytes)
    return std::nullopt;
  uint64_t chunkBudget = (laneBytes - pinned) * 3 / 5;
  tiling.chunk = shape.keys;
  while (tiling.chunk > 1 && getChunkBytes(tiling, tiling.chunk) > chunkBudget)
    tiling.chunk = llvm::divideCeil(tiling.chunk, 2);
  if (getChunkBytes(tiling, tiling.chunk) > chunkBudget)
    return std::nullopt;
  return tiling;
}

llvm::Error AttentionEmitter::emit(const AttentionTiling &tiling) {
  for (int64_t q0 = 0; q0 < shape.queries; q0 += tiling.rows)
    if (llvm::Error error = emitQueryTile(
            tiling, q0, std::min(tiling.rows, shape.queries - q0)))
      return error;
  return llvm::Error::success();
}

/// Attention with the faster of its splits that fit.
llvm::Error emitTiledAttention(Emitter &emitter, const AttentionShape &shape,
                               const AttentionTensors &tensors, double scale) {
  AttentionEmitter planner(emitter, shape, tensors, scale);
  std::vector<AttentionTiling> candidates;
  // One kv head per lane needs a lane for each.
  if (shape.kvHeads <= emitter.getLanes())
    if (std::optional<AttentionTiling> tiling = planner.chooseTiling(false))
      candidates.push_back(*tiling);
  if (std::optional<AttentionTiling> tiling = planner.chooseTiling(true))
    candidates.push_back(*tiling);
  if (candidates.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "attention head does not fit local memory");
  llvm::Expected<AttentionTiling> best = chooseFastest<AttentionTiling>(
      emitter, candidates,
      [&](Emitter &trial, const AttentionTiling &tiling) {
        return AttentionEmitter(trial, shape, tensors, scale).emit(tiling);
      });
  if (!best)
    return best.takeError();
  return planner.emit(*best);
}

} // namespace

llvm::Error emitAttentionOp(Emitter &emitter, const ValuePlacement &placement,
                            Operation *op) {
  auto attention = cast<tpu::FAttentionOp>(op);
  if (attention.getCausal())
    return opError(op, "codegen expects the causal mask as an operand");
  auto qType = cast<ShapedType>(attention.getQ().getType());
  auto kType = cast<ShapedType>(attention.getK().getType());
  if (qType.getRank() != 4 || kType.getRank() != 4 || qType.getDimSize(0) != 1)
    return opError(op, "codegen expects q, k, v [1, L, heads, head_dim]");
  // I64Attr getters read back unsigned.
  AttentionShape shape{qType.getDimSize(1), kType.getDimSize(1),
                       static_cast<int64_t>(attention.getQHead()),
                       static_cast<int64_t>(attention.getKvHead()),
                       static_cast<int64_t>(attention.getHeadDim())};
  if (shape.queryHeads % shape.kvHeads)
    return opError(op, "codegen needs kv heads dividing the query heads");
  AttentionTensors tensors;
  int64_t qCols = shape.queryHeads * shape.headDim;
  int64_t kvCols = shape.kvHeads * shape.headDim;
  auto viewInto = [&](cmd::GlobalTensor &out, Value value,
                      int64_t cols) -> llvm::Error {
    llvm::Expected<cmd::GlobalTensor> view = placement.view(value, cols);
    if (!view)
      return view.takeError();
    out = *view;
    return llvm::Error::success();
  };
  if (llvm::Error error = viewInto(tensors.q, attention.getQ(), qCols))
    return error;
  if (llvm::Error error = viewInto(tensors.k, attention.getK(), kvCols))
    return error;
  if (llvm::Error error = viewInto(tensors.v, attention.getV(), kvCols))
    return error;
  if (llvm::Error error = viewInto(tensors.o, op->getResult(0), qCols))
    return error;
  if (Value mask = attention.getMask(); mask && !isa<NoneType>(mask.getType())) {
    llvm::Expected<cmd::GlobalTensor> maskView =
        placement.view(mask, shape.keys);
    if (!maskView)
      return maskView.takeError();
    if (maskView->rows() != shape.queries)
      return opError(op, "codegen expects a mask [1, Lq, Lk]");
    tensors.mask = *maskView;
    tensors.hasMask = true;
  }
  double scale = attention.getScale().convertToDouble();
  if (emitter.isUntiled()) {
    cmd::Compute compute = cmodel::makeCompute(cmd::ATTENTION, {}, {});
    compute.set_scalar(scale);
    compute.set_group(shape.headDim);
    emitter.computeGlobal(compute,
                          {tensors.q, tensors.k, tensors.v, tensors.mask},
                          {tensors.o});
    return llvm::Error::success();
  }
  if (llvm::Error error = emitTiledAttention(emitter, shape, tensors, scale))
    return opError(op, llvm::toString(std::move(error)));
  return llvm::Error::success();
}

} // namespace llmc::codegen
