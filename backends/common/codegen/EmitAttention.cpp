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
  /// All of o's rows over the lanes, where a layer group holds them: o is
  /// computed there and not stored.
  const cmd::LocalTensor *heldO = nullptr;
};

/// How q k^T becomes the scores the softmax weighs: the factor, then the
/// soft cap (0 for none).
struct ScoreTransform {
  double scale = 1.0;
  double softcap = 0.0;

  void applyTo(cmd::Compute &compute) const {
    compute.set_scalar(scale);
    compute.set_softcap(softcap);
  }
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
                   const AttentionTensors &tensors,
                   const ScoreTransform &scores)
      : emitter(emitter), shape(shape), tensors(tensors), scores(scores) {}

  /// The tiling of each split that fits, if any.
  std::optional<AttentionTiling> chooseTiling(bool byQueryRows) const;
  llvm::Error emit(const AttentionTiling &tiling);

private:
  /// The tensors a query tile of `rows` pins (not yet placed): q and o, and
  /// with `chunked` keys the online-softmax state.
  struct QueryTile {
    cmd::LocalTensor q, o, acc, max, sum;
  };
  /// A chunk of keys and values and, with a mask, its columns of the query
  /// tile's mask rows (not yet placed).
  struct KeyChunk {
    cmd::LocalTensor k, v, mask;
  };
  QueryTile getQueryTile(const AttentionTiling &tiling, int64_t rows,
                         bool chunked) const;
  KeyChunk getKeyChunk(const AttentionTiling &tiling, int64_t rows,
                       int64_t keys) const;
  /// Per-lane bytes of a full query tile's pinned tensors, the state
  /// included (whether keys are chunked is decided after).
  uint64_t getPinnedBytes(const AttentionTiling &tiling) const;
  /// Per-lane bytes of a chunk of `keys` for a full query tile.
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

  Emitter &emitter;
  AttentionShape shape;
  AttentionTensors tensors;
  ScoreTransform scores;
};

AttentionEmitter::QueryTile
AttentionEmitter::getQueryTile(const AttentionTiling &tiling, int64_t rows,
                               bool chunked) const {
  int64_t group = shape.groupCols();
  int64_t qCols = shape.queryHeads * shape.headDim;
  QueryTile tile;
  tile.q = queryLayout(tiling, rows, qCols, tensors.q.dtype(), group);
  tile.o = queryLayout(tiling, rows, qCols, tensors.o.dtype(), group);
  if (chunked) {
    tile.acc = queryLayout(tiling, rows, qCols, cmd::DTYPE_F32, group);
    tile.max = queryLayout(tiling, rows, shape.queryHeads, cmd::DTYPE_F32,
                           shape.queryHeads / shape.kvHeads);
    tile.sum = tile.max;
  }
  return tile;
}

AttentionEmitter::KeyChunk
AttentionEmitter::getKeyChunk(const AttentionTiling &tiling, int64_t rows,
                              int64_t keys) const {
  // Keys and values: one kv head per lane, or all of them on every lane
  // holding queries; the mask as its query rows are held.
  int64_t cols = shape.kvHeads * shape.headDim;
  KeyChunk chunk;
  if (tiling.byQueryRows)
    chunk.k = emitter.replicated(
        keys, cols, tensors.k.dtype(),
        static_cast<uint32_t>(llvm::divideCeil(rows, tiling.perLane)));
  else
    chunk.k = emitter.colsLayout(keys, cols, tensors.k.dtype(), shape.headDim);
  chunk.v = chunk.k;
  if (tensors.hasMask)
    chunk.mask = tiling.byQueryRows
                     ? emitter.rowsLayout(rows, keys, tensors.mask.dtype(),
                                          tiling.perLane)
                     : emitter.replicated(rows, keys, tensors.mask.dtype(),
                                          static_cast<uint32_t>(shape.kvHeads));
  return chunk;
}

uint64_t AttentionEmitter::getPinnedBytes(const AttentionTiling &tiling) const {
  QueryTile tile = getQueryTile(tiling, tiling.rows, /*chunked=*/true);
  uint64_t bytes = 0;
  for (const cmd::LocalTensor *tensor :
       {&tile.q, &tile.o, &tile.acc, &tile.max, &tile.sum})
    if (tensor != &tile.o || !tensors.heldO)
      bytes += emitter.getFootprint(*tensor);
  return bytes;
}

uint64_t AttentionEmitter::getChunkBytes(const AttentionTiling &tiling,
                                         int64_t keys) const {
  KeyChunk chunk = getKeyChunk(tiling, tiling.rows, keys);
  uint64_t bytes = 0;
  for (const cmd::LocalTensor *tensor : {&chunk.k, &chunk.v, &chunk.mask})
    if (tensor->rows() > 0)
      bytes += emitter.getFootprint(*tensor);
  return bytes;
}

llvm::Error AttentionEmitter::emitQueryTile(const AttentionTiling &tiling,
                                            int64_t q0, int64_t rows) {
  emitter.getArena().beginOp();
  bool chunked = tiling.chunk < shape.keys;
  QueryTile tile = getQueryTile(tiling, rows, chunked);
  if (tensors.heldO)
    tile.o = *tensors.heldO;
  for (cmd::LocalTensor *tensor :
       {&tile.q, &tile.o, &tile.acc, &tile.max, &tile.sum})
    if (tensor->rows() > 0 && (tensor != &tile.o || !tensors.heldO))
      if (llvm::Error error = emitter.pin(*tensor))
        return error;
  emitter.load(sliceRows(tensors.q, q0, rows), tile.q);
  for (int64_t k0 = 0; k0 < shape.keys; k0 += tiling.chunk) {
    int64_t keys = std::min(tiling.chunk, shape.keys - k0);
    KeyChunk chunk = getKeyChunk(tiling, rows, keys);
    if (llvm::Error error = emitter.ring(chunk.k))
      return error;
    if (llvm::Error error = emitter.ring(chunk.v))
      return error;
    emitter.load(sliceRows(tensors.k, k0, keys), chunk.k);
    emitter.load(sliceRows(tensors.v, k0, keys), chunk.v);
    if (tensors.hasMask) {
      if (llvm::Error error = emitter.ring(chunk.mask))
        return error;
      emitter.load(sliceCols(sliceRows(tensors.mask, q0, rows), k0, keys),
                   chunk.mask);
    }
    bool last = k0 + keys >= shape.keys;
    cmd::Compute compute = cmodel::makeCompute(
        cmd::ATTENTION, {tile.q, chunk.k, chunk.v, chunk.mask},
        {last ? tile.o : cmd::LocalTensor(), tile.acc, tile.max, tile.sum});
    if (!tensors.hasMask)
      compute.mutable_inputs()->RemoveLast();
    if (!chunked)
      for (int i = 0; i < 3; ++i)
        compute.mutable_outputs()->RemoveLast();
    scores.applyTo(compute);
    compute.set_group(shape.headDim);
    compute.set_resume(chunked && k0 > 0);
    compute.set_partial(!last);
    emitter.compute(compute);
  }
  if (!tensors.heldO)
    emitter.store(tile.o, sliceRows(tensors.o, q0, rows));
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
  if (tensors.heldO) {
    // All queries in one tile, split as the group holds o.
    if (!byQueryRows || tensors.heldO->layout() != cmd::LAYOUT_ROWS)
      return std::nullopt;
    tiling.perLane = tensors.heldO->per_lane();
    tiling.rows = shape.queries;
    if (tiling.perLane * lanes < shape.queries)
      return std::nullopt;
  } else if (byQueryRows) {
    tiling.perLane = llvm::divideCeil(shape.queries, lanes);
    tiling.rows = std::min(shape.queries, tiling.perLane * lanes);
    while (tiling.perLane > 1 &&
           getPinnedBytes(tiling) > laneBytes * 3 / 8) {
      tiling.perLane /= 2;
      tiling.rows = std::min(shape.queries, tiling.perLane * lanes);
    }
  } else {
    tiling.rows = std::min<int64_t>(shape.queries, 64);
    while (tiling.rows > 1 && getPinnedBytes(tiling) > laneBytes * 3 / 8)
      tiling.rows /= 2;
  }
  // A chunk (keys, values, mask rows) may take most of what is left: the
  // keys are read once per query tile, so one big chunk beats two small
  // ones' latency.
  uint64_t pinned = getPinnedBytes(tiling);
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
                               const AttentionTensors &tensors,
                               const ScoreTransform &scores) {
  AttentionEmitter planner(emitter, shape, tensors, scores);
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
        return AttentionEmitter(trial, shape, tensors, scores).emit(tiling);
      });
  if (!best)
    return best.takeError();
  return planner.emit(*best);
}

} // namespace

llvm::Error emitAttentionOp(Emitter &emitter, const ValuePlacement &placement,
                            Operation *op, const cmd::LocalTensor *heldO) {
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
  // A held o is not in global memory: its view only gives the shape.
  if (heldO)
    tensors.o = cmodel::globalTensor(cmd::REGION_INVALID, 0, shape.queries,
                                     qCols, heldO->dtype());
  else if (llvm::Error error = viewInto(tensors.o, op->getResult(0), qCols))
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
  tensors.heldO = heldO;
  ScoreTransform scores;
  scores.scale = attention.getScale().convertToDouble();
  scores.softcap = attention.getSoftcap().convertToDouble();
  if (emitter.isUntiled() && heldO)
    return opError(op, "is held by a layer group on a chip without local "
                       "memory");
  if (emitter.isUntiled()) {
    cmd::Compute compute = cmodel::makeCompute(cmd::ATTENTION, {}, {});
    scores.applyTo(compute);
    compute.set_group(shape.headDim);
    emitter.computeGlobal(compute,
                          {tensors.q, tensors.k, tensors.v, tensors.mask},
                          {tensors.o});
    return llvm::Error::success();
  }
  if (llvm::Error error = emitTiledAttention(emitter, shape, tensors, scores))
    return opError(op, llvm::toString(std::move(error)));
  return llvm::Error::success();
}

} // namespace llmc::codegen
