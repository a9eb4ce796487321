//===- OpRulesAttention.cpp - what ATTENTION accepts ----------------------===//

#include "backends/common/cmodel/OpRules.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

namespace llmc::cmodel::detail {

absl::Status Rules::checkAttention() {
  // Inputs q, k, v, [mask]; outputs [o], [acc, max, sum].
  bool chunked = compute.resume() || compute.partial();
  LLMC_RETURN_IF_ERROR(arity(3, 4, 1, 4));
  const LocalGeometry &q = in(0), &k = in(1), &v = in(2);
  const LocalGeometry *mask = ops.getInput(3);
  const LocalGeometry *o = ops.getOutput(0), *acc = ops.getOutput(1),
                      *max = ops.getOutput(2), *sum = ops.getOutput(3);
  int64_t headDim = compute.group();
  if (headDim < 1 || q.cols % headDim != 0 || k.cols % headDim != 0)
    return bad(support::strCat("head dimension (group) ", headDim,
                               " must divide the columns of q and k"));
  int64_t qHeads = q.cols / headDim, kvHeads = k.cols / headDim;
  if (qHeads % kvHeads != 0)
    return bad(support::strCat(qHeads, " query heads do not group over ",
                               kvHeads, " key/value heads"));
  int64_t groupSize = qHeads / kvHeads;
  for (const LocalGeometry *g : {&q, &k, &v})
    LLMC_RETURN_IF_ERROR(requireFloat(*g));
  if (k.dtype != q.dtype || v.dtype != q.dtype)
    return mismatch("q, k and v must have one type");
  LLMC_RETURN_IF_ERROR(requireShape(v, k.rows, k.cols));
  if (mask) {
    LLMC_RETURN_IF_ERROR(requireFloat(*mask));
    LLMC_RETURN_IF_ERROR(requireShape(*mask, q.rows, k.rows));
  }
  if (compute.partial() == bool(o))
    return bad(compute.partial() ? "a partial chunk leaves o (output 0) absent"
                                 : "o (output 0) is required");
  if (o) {
    if (o->dtype != q.dtype && o->dtype != cmd::DTYPE_F32)
      return mismatch(
          support::strCat(o->describe(), " must have q's type or f32"));
    LLMC_RETURN_IF_ERROR(requireShape(*o, q.rows, q.cols));
  }
  if (chunked != bool(acc && max && sum) || (!chunked && (acc || max || sum)))
    return bad(chunked ? "chunked attention (resume or partial) needs the "
                         "acc, max and sum outputs"
                       : "single-pass attention takes no state outputs");
  if (chunked) {
    for (const LocalGeometry *g : {acc, max, sum})
      LLMC_RETURN_IF_ERROR(requireType(*g, cmd::DTYPE_F32));
    LLMC_RETURN_IF_ERROR(requireShape(*acc, q.rows, q.cols));
    for (const LocalGeometry *g : {max, sum})
      LLMC_RETURN_IF_ERROR(requireShape(*g, q.rows, qHeads));
  }
  return forLanes([&](int64_t lane, const LaneBlock &b) -> absl::Status {
    if (b.colBegin % headDim != 0 || b.colCount % headDim != 0)
      return bad(support::strCat("lane ", lane, " computes columns [",
                                 b.colBegin, ", ", b.colEnd(),
                                 "), not whole heads of ", headDim));
    int64_t r0 = b.rowBegin, r1 = b.rowEnd();
    int64_t h0 = b.colBegin / headDim, h1 = b.colEnd() / headDim;
    int64_t kv0 = h0 / groupSize, kv1 = (h1 - 1) / groupSize + 1;
    LLMC_RETURN_IF_ERROR(holds(q, lane, r0, r1, b.colBegin, b.colEnd()));
    for (const LocalGeometry *g : {&k, &v})
      LLMC_RETURN_IF_ERROR(
          holds(*g, lane, 0, k.rows, kv0 * headDim, kv1 * headDim));
    if (mask)
      LLMC_RETURN_IF_ERROR(holds(*mask, lane, r0, r1, 0, k.rows));
    if (chunked) {
      LLMC_RETURN_IF_ERROR(holds(*acc, lane, r0, r1, b.colBegin, b.colEnd()));
      for (const LocalGeometry *g : {max, sum})
        LLMC_RETURN_IF_ERROR(holds(*g, lane, r0, r1, h0, h1));
    }
    return absl::OkStatus();
  });
}

} // namespace llmc::cmodel::detail
