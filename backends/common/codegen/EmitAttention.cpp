//===- EmitAttention.cpp - fused attention --------------------------------===//
//
// One kv head per lane: lane j holds the query heads that share kv head j
// (columns of q and o), that head's keys and values, and the mask rows.
// Query rows go in tiles; keys in chunks when a lane cannot hold them all,
// with the kernel's online-softmax state carried from chunk to chunk.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/Emitters.h"

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

class AttentionEmitter {
public:
  AttentionEmitter(Emitter &emitter, const AttentionShape &shape,
                   const AttentionTensors &tensors, double scale)
      : emitter(emitter), shape(shape), tensors(tensors), scale(scale),
        lanes(static_cast<uint32_t>(shape.kvHeads)) {}

  llvm::Error emit();

private:
  /// Per-lane bytes of the pinned query-tile tensors for `rows` queries.
  uint64_t getPinnedBytes(int64_t rows, bool chunked) const;
  /// Per-lane bytes of a key chunk for `rows` queries.
  uint64_t getChunkBytes(int64_t rows, int64_t keys) const;
  llvm::Error emitQueryTile(int64_t q0, int64_t rows, int64_t chunk);

  Emitter &emitter;
  AttentionShape shape;
  AttentionTensors tensors;
  double scale;
  uint32_t lanes;
};

uint64_t AttentionEmitter::getPinnedBytes(int64_t rows, bool chunked) const {
  cmd::DType type = tensors.q.dtype();
  uint64_t bytes = 2 * rows * emitter.getRowBytes(shape.groupCols(), type);
  if (chunked)
    bytes += rows * (emitter.getRowBytes(shape.groupCols(), cmd::DTYPE_F32) +
                     2 * emitter.getRowBytes(shape.queryHeads / shape.kvHeads,
                                             cmd::DTYPE_F32));
  return bytes;
}

uint64_t AttentionEmitter::getChunkBytes(int64_t rows, int64_t keys) const {
  uint64_t bytes = 2 * keys * emitter.getRowBytes(shape.headDim,
                                                  tensors.k.dtype());
  if (tensors.hasMask)
    bytes += rows * emitter.getRowBytes(keys, tensors.mask.dtype());
  return bytes;
}

llvm::Error AttentionEmitter::emitQueryTile(int64_t q0, int64_t rows,
                                            int64_t chunk) {
  emitter.getArena().beginOp();
  bool chunked = chunk < shape.keys;
  int64_t group = shape.groupCols();
  int64_t headsPerLane = shape.queryHeads / shape.kvHeads;
  cmd::DType type = tensors.q.dtype();
  cmd::LocalTensor q = emitter.colsLayout(rows, shape.queryHeads * shape.headDim,
                                          type, group);
  cmd::LocalTensor o = emitter.colsLayout(rows, shape.queryHeads * shape.headDim,
                                          tensors.o.dtype(), group);
  if (llvm::Error error = emitter.pin(q))
    return error;
  if (llvm::Error error = emitter.pin(o))
    return error;
  cmd::LocalTensor acc, max, sum;
  if (chunked) {
    acc = emitter.colsLayout(rows, shape.queryHeads * shape.headDim,
                             cmd::DTYPE_F32, group);
    max = emitter.colsLayout(rows, shape.queryHeads, cmd::DTYPE_F32,
                             headsPerLane);
    sum = max;
    for (cmd::LocalTensor *state : {&acc, &max, &sum})
      if (llvm::Error error = emitter.pin(*state))
        return error;
  }
  emitter.load(sliceRows(tensors.q, q0, rows), q);
  for (int64_t k0 = 0; k0 < shape.keys; k0 += chunk) {
    int64_t keys = std::min(chunk, shape.keys - k0);
    cmd::LocalTensor k = emitter.colsLayout(keys, shape.kvHeads * shape.headDim,
                                            tensors.k.dtype(), shape.headDim);
    cmd::LocalTensor v = emitter.colsLayout(keys, shape.kvHeads * shape.headDim,
                                            tensors.v.dtype(), shape.headDim);
    if (llvm::Error error = emitter.ring(k))
      return error;
    if (llvm::Error error = emitter.ring(v))
      return error;
    emitter.load(sliceRows(tensors.k, k0, keys), k);
    emitter.load(sliceRows(tensors.v, k0, keys), v);
    cmd::LocalTensor mask;
    if (tensors.hasMask) {
      mask = emitter.replicated(rows, keys, tensors.mask.dtype(), lanes);
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

llvm::Error AttentionEmitter::emit() {
  uint64_t laneBytes = emitter.getArena().getLaneBytes();
  // Query rows: as many as keep the pinned part within three eighths of a
  // lane, leaving the rest to stream key chunks two deep.
  int64_t rows = std::min<int64_t>(shape.queries, 64);
  while (rows > 1 && getPinnedBytes(rows, true) > laneBytes * 3 / 8)
    rows /= 2;
  // A chunk (keys, values, mask rows) may take most of what is left: the
  // keys are read once, so one big chunk beats two small ones' latency.
  uint64_t chunkBudget = (laneBytes - getPinnedBytes(rows, true)) * 3 / 5;
  int64_t chunk = shape.keys;
  while (chunk > 1 && getChunkBytes(rows, chunk) > chunkBudget)
    chunk = llvm::divideCeil(chunk, 2);
  if (getChunkBytes(rows, chunk) > chunkBudget)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "attention head does not fit local memory");
  for (int64_t q0 = 0; q0 < shape.queries; q0 += rows)
    if (llvm::Error error =
            emitQueryTile(q0, std::min(rows, shape.queries - q0), chunk))
      return error;
  return llvm::Error::success();
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
  if (shape.queryHeads % shape.kvHeads ||
      (shape.kvHeads > emitter.getLanes() && !emitter.isUntiled()))
    return opError(op, "codegen needs kv heads dividing the query heads and "
                       "at most one per lane");
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
  return AttentionEmitter(emitter, shape, tensors, scale).emit();
}

} // namespace llmc::codegen
