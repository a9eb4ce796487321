//===- OpRulesAttention.cpp - what ATTENTION accepts ----------------------===//

#include "backends/common/cmodel/OpRules.h"

#include "backends/common/cmodel/Trap.h"

namespace llmc::cmodel::detail {

llvm::Error Rules::checkAttention() {
  // Inputs q, k, v, [mask]; outputs [o], [acc, max, sum].
  bool chunked = compute.resume() || compute.partial();
  if (llvm::Error error = arity(3, 4, 1, 4))
    return error;
  const LocalGeometry &q = in(0), &k = in(1), &v = in(2);
  const LocalGeometry *mask = ops.getInput(3);
  const LocalGeometry *o = ops.getOutput(0), *acc = ops.getOutput(1),
                      *max = ops.getOutput(2), *sum = ops.getOutput(3);
  int64_t headDim = compute.group();
  if (headDim < 1 || q.cols % headDim != 0 || k.cols % headDim != 0)
    return bad("head dimension (group) " + llvm::Twine(headDim) +
               " must divide the columns of q and k");
  int64_t qHeads = q.cols / headDim, kvHeads = k.cols / headDim;
  if (qHeads % kvHeads != 0)
    return bad(llvm::Twine(qHeads) + " query heads do not group over " +
               llvm::Twine(kvHeads) + " key/value heads");
  int64_t groupSize = qHeads / kvHeads;
  for (const LocalGeometry *g : {&q, &k, &v})
    if (llvm::Error error = requireFloat(*g))
      return error;
  if (k.dtype != q.dtype || v.dtype != q.dtype)
    return mismatch("q, k and v must have one type");
  if (llvm::Error error = requireShape(v, k.rows, k.cols))
    return error;
  if (mask) {
    if (llvm::Error error = requireFloat(*mask))
      return error;
    if (llvm::Error error = requireShape(*mask, q.rows, k.rows))
      return error;
  }
  if (compute.partial() == bool(o))
    return bad(compute.partial() ? "a partial chunk leaves o (output 0) absent"
                                 : "o (output 0) is required");
  if (o) {
    if (o->dtype != q.dtype && o->dtype != cmd::DTYPE_F32)
      return mismatch(o->describe() + " must have q's type or f32");
    if (llvm::Error error = requireShape(*o, q.rows, q.cols))
      return error;
  }
  if (chunked != bool(acc && max && sum) || (!chunked && (acc || max || sum)))
    return bad(chunked ? "chunked attention (resume or partial) needs the "
                         "acc, max and sum outputs"
                       : "single-pass attention takes no state outputs");
  if (chunked) {
    for (const LocalGeometry *g : {acc, max, sum})
      if (llvm::Error error = requireType(*g, cmd::DTYPE_F32))
        return error;
    if (llvm::Error error = requireShape(*acc, q.rows, q.cols))
      return error;
    for (const LocalGeometry *g : {max, sum})
      if (llvm::Error error = requireShape(*g, q.rows, qHeads))
        return error;
  }
  return forLanes([&](int64_t lane, const LaneBlock &b) -> llvm::Error {
    if (b.colBegin % headDim != 0 || b.colCount % headDim != 0)
      return bad("lane " + llvm::Twine(lane) + " computes columns [" +
                 llvm::Twine(b.colBegin) + ", " + llvm::Twine(b.colEnd()) +
                 "), not whole heads of " + llvm::Twine(headDim));
    int64_t r0 = b.rowBegin, r1 = b.rowEnd();
    int64_t h0 = b.colBegin / headDim, h1 = b.colEnd() / headDim;
    int64_t kv0 = h0 / groupSize, kv1 = (h1 - 1) / groupSize + 1;
    if (llvm::Error error = holds(q, lane, r0, r1, b.colBegin, b.colEnd()))
      return error;
    for (const LocalGeometry *g : {&k, &v})
      if (llvm::Error error =
              holds(*g, lane, 0, k.rows, kv0 * headDim, kv1 * headDim))
        return error;
    if (mask)
      if (llvm::Error error = holds(*mask, lane, r0, r1, 0, k.rows))
        return error;
    if (chunked) {
      if (llvm::Error error = holds(*acc, lane, r0, r1, b.colBegin, b.colEnd()))
        return error;
      for (const LocalGeometry *g : {max, sum})
        if (llvm::Error error = holds(*g, lane, r0, r1, h0, h1))
          return error;
    }
    return llvm::Error::success();
  });
}

} // namespace llmc::cmodel::detail
