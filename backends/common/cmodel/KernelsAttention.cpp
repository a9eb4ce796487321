//===- KernelsAttention.cpp - fused attention over a key chunk ------------===//
//
// softmax(cap(q k^T * scale) + mask) v for the query heads a lane holds (cap
// the optional soft-capping), with the online-softmax state (running max,
// sum and unnormalized output) that lets a long key sequence run as chunks:
// the state of one chunk's command feeds the next (`resume`), and only the
// last (not `partial`) normalizes. A single-pass command is the same
// arithmetic from the initial state.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/Kernels.h"

#include <cmath>
#include <limits>

namespace llmc::cmodel::kernels {

namespace {
/// The online-softmax state of one (query row, head).
struct RowState {
  float max = -std::numeric_limits<float>::infinity();
  float sum = 0.0f;
};
} // namespace

void attention(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &q = *lane.in(0), &k = *lane.in(1), &v = *lane.in(2);
  const LaneView *mask = lane.in(3), *o = lane.out(0), *acc = lane.out(1),
                 *maxOut = lane.out(2), *sumOut = lane.out(3);
  const LaneBlock &b = lane.block;
  int64_t headDim = compute.group(), keys = k.tensor->rows;
  int64_t groupSize = (q.tensor->cols / headDim) / (k.tensor->cols / headDim);
  auto scale = float(compute.scalar() ? compute.scalar()
                                      : 1.0 / std::sqrt(double(headDim)));
  auto softcap = float(compute.softcap());
  bool resume = compute.resume();
  const float minusInf = -std::numeric_limits<float>::infinity();

  // The mask rows of this lane's queries, widened once.
  std::vector<float> masks;
  if (mask) {
    masks.resize(b.rowCount * keys);
    for (int64_t r = 0; r < b.rowCount; ++r)
      mask->load(b.rowBegin + r, 0, keys, &masks[r * keys]);
  }
  std::vector<float> ks(keys * headDim), vs(keys * headDim);
  std::vector<float> query(headDim), out(headDim), scores(keys);
  int64_t firstHead = b.colBegin / headDim, endHead = b.colEnd() / headDim;
  int64_t loadedKv = -1;
  for (int64_t head = firstHead; head < endHead; ++head) {
    int64_t kvHead = head / groupSize;
    if (kvHead != loadedKv) {
      for (int64_t j = 0; j < keys; ++j) {
        k.load(j, kvHead * headDim, headDim, &ks[j * headDim]);
        v.load(j, kvHead * headDim, headDim, &vs[j * headDim]);
      }
      loadedKv = kvHead;
    }
    int64_t col = head * headDim;
    for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
      RowState state;
      std::fill(out.begin(), out.end(), 0.0f);
      if (resume) {
        acc->load(r, col, headDim, out.data());
        maxOut->load(r, head, 1, &state.max);
        sumOut->load(r, head, 1, &state.sum);
      }
      q.load(r, col, headDim, query.data());
      const float *maskRow = mask ? &masks[(r - b.rowBegin) * keys] : nullptr;
      float chunkMax = minusInf;
      for (int64_t j = 0; j < keys; ++j) {
        float score = dot16(query.data(), &ks[j * headDim], headDim) * scale;
        if (softcap > 0.0f)
          score = softcap * std::tanh(score / softcap);
        if (maskRow)
          score += maskRow[j];
        scores[j] = score;
        chunkMax = std::max(chunkMax, score);
      }
      float newMax = std::max(state.max, chunkMax);
      // With every score so far -inf there is nothing to weigh yet.
      float alpha = newMax == minusInf ? 1.0f : std::exp(state.max - newMax);
      float chunkSum = 0.0f;
      for (int64_t i = 0; i < headDim; ++i)
        out[i] *= alpha;
      for (int64_t j = 0; j < keys; ++j) {
        float p = newMax == minusInf ? 0.0f : std::exp(scores[j] - newMax);
        chunkSum += p;
        const float *value = &vs[j * headDim];
        for (int64_t i = 0; i < headDim; ++i)
          out[i] += p * value[i];
      }
      state.sum = state.sum * alpha + chunkSum;
      state.max = newMax;
      if (acc) {
        acc->store(r, col, headDim, out.data());
        maxOut->store(r, head, 1, &state.max);
        sumOut->store(r, head, 1, &state.sum);
      }
      if (o) {
        // A query that saw no key at all yields zeros.
        for (int64_t i = 0; i < headDim; ++i)
          out[i] = state.sum > 0.0f ? out[i] / state.sum : 0.0f;
        o->store(r, col, headDim, out.data());
      }
    }
  }
}

} // namespace llmc::cmodel::kernels
