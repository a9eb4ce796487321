//===- Attention.cpp - attention: splitting the work, and the scalar path -===//
//
// The work unit is a block of query rows for all the query heads that share
// one key/value head, so that each key and value row loaded serves them all.
// The block height depends only on the shapes (enough rows to reuse keys,
// few enough that the scores fit in L2), so a row's result does not depend
// on the thread count. Units are handed out in zigzag order over the row
// blocks: under a causal mask late rows cost more, and contiguous chunks
// should get a mix.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace llmc::host {
namespace detail {

HeadRows::HeadRows(const FloatRows &rows, int64_t head, int64_t d,
                   int64_t count, Scratch slot, const IsaKernels &kernels)
    : rows(rows), head(head), d(d), count(count), kernels(kernels) {
  if (rows.type == FloatType::F32) {
    first = static_cast<const float *>(rows.data) + head * d;
    rowStride = rows.stride;
  } else {
    first = getScratchAs<float>(slot, count * d);
    rowStride = d;
  }
}

void HeadRows::load(int64_t t0, int64_t rowsToLoad) {
  if (rows.type == FloatType::F32)
    return;
  auto widen =
      rows.type == FloatType::F16 ? kernels.widenF16 : kernels.widenBF16;
  const uint16_t *in = static_cast<const uint16_t *>(rows.data) + head * d;
  float *out = const_cast<float *>(first);
  for (int64_t t = t0; t < t0 + rowsToLoad; ++t) {
    // The rows come in order, and a decode step's history is cold (the
    // model's weights streamed through the caches since the last step):
    // rows four calls ahead are fetched meanwhile (the hardware prefetcher
    // does not follow half-row strides well: perf put this widening at
    // 6.8 % of a W8 decode step without, 5.3 % with).
    if (int64_t ahead = t + 4 * rowsToLoad; ahead < count)
      for (int64_t c = 0; c < d; c += 32)
        __builtin_prefetch(in + ahead * rows.stride + c);
    widen(in + t * rows.stride, out + t * d, d);
  }
}

void markHiddenKeyBlocks(const AttentionArgs &a, int64_t i0, int64_t i1,
                         int64_t blockKeys, uint8_t *hidden) {
  const int64_t blocks = (a.lk + blockKeys - 1) / blockKeys;
  std::fill(hidden, hidden + blocks, a.mask != nullptr);
  if (!a.mask)
    return;
  for (int64_t i = i0; i < i1; ++i) {
    const float *mask = a.mask + i * a.maskStride;
    // A NaN bound (or mask value) compares false: the key stays visible.
    const float bound =
        *std::max_element(mask, mask + a.lk) - kHiddenMaskMargin;
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t t = b * blockKeys;
           hidden[b] && t < std::min(a.lk, (b + 1) * blockKeys); ++t)
        hidden[b] = mask[t] <= bound;
  }
}

void attentionRowsScalar(const AttentionArgs &a, int64_t kvHead, int64_t i0,
                         int64_t i1) {
  const int64_t group = a.hq / a.hkv, d = a.d, lk = a.lk;
  float *scores = getScratchAs<float>(Scratch::Scores, lk + d);
  float *acc = scores + lk;
  const IsaKernels &kernels = getScalarKernels();
  HeadRows keys(a.k, kvHead, d, lk, Scratch::Keys, kernels);
  HeadRows values(a.v, kvHead, d, lk, Scratch::Values, kernels);
  // A key that the mask hides from every row is never read.
  uint8_t *hidden = getScratchAs<uint8_t>(Scratch::Tile, lk);
  markHiddenKeyBlocks(a, i0, i1, 1, hidden);
  for (int64_t t = 0; t < lk; ++t)
    if (!hidden[t]) {
      keys.load(t, 1);
      values.load(t, 1);
    }
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t h = kvHead * group; h < (kvHead + 1) * group; ++h) {
      const float *q = a.q + i * a.qStride + h * d;
      float *o = a.o + i * a.oStride + h * d;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t t = 0; t < lk; ++t) {
        scores[t] = -std::numeric_limits<float>::infinity();
        if (hidden[t])
          continue;
        const float *key = keys.data() + t * keys.stride();
        float dot = 0.0f;
        for (int64_t c = 0; c < d; ++c)
          dot += q[c] * key[c];
        float s = dot * a.scale;
        if (a.softcap > 0.0f)
          s = a.softcap * std::tanh(s / a.softcap);
        if (a.mask)
          s += a.mask[i * a.maskStride + t];
        scores[t] = s;
        max = std::max(max, s);
      }
      if (max == -std::numeric_limits<float>::infinity()) {
        std::fill(o, o + d, 0.0f);
        continue;
      }
      float sum = 0.0f;
      for (int64_t t = 0; t < lk; ++t) {
        scores[t] = std::exp(scores[t] - max);
        sum += scores[t];
      }
      std::fill(acc, acc + d, 0.0f);
      for (int64_t t = 0; t < lk; ++t) {
        if (hidden[t])
          continue;
        const float *value = values.data() + t * values.stride();
        for (int64_t c = 0; c < d; ++c)
          acc[c] += scores[t] * value[c];
      }
      for (int64_t c = 0; c < d; ++c)
        o[c] = acc[c] / sum;
    }
}

} // namespace detail

using namespace detail;

void attention(const float *q, int64_t qStride, const FloatRows &k,
               const FloatRows &v, const float *mask, int64_t maskStride,
               int64_t lq, int64_t lk, int64_t hq, int64_t hkv, int64_t d,
               float scale, float softcap, float *o, int64_t oStride,
               WorkerPool &pool, Isa isa) {
  assert(hkv > 0 && hq % hkv == 0);
  if (lq <= 0 || hq <= 0 || d <= 0)
    return;
  AttentionArgs args{q,  k,   v, mask,  qStride, maskStride, lq, lk,
                     hq, hkv, d, scale, softcap, o,          oStride};
  const IsaKernels &kernels = getKernels(isa);
  const int64_t group = hq / hkv;
  // Up to 8 query rows a unit, while the unit's scores stay within 256 KiB.
  int64_t blockRows =
      std::clamp<int64_t>(65536 / std::max<int64_t>(1, group * lk), 1, 8);
  int64_t blocks = (lq + blockRows - 1) / blockRows;
  pool.parallelFor(hkv * blocks, 1, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      int64_t kvHead = u % hkv, order = u / hkv;
      int64_t block = order % 2 == 0 ? order / 2 : blocks - 1 - order / 2;
      int64_t i0 = block * blockRows;
      kernels.attentionRows(args, kvHead, i0, std::min(lq, i0 + blockRows));
    }
  });
}

void attention(const float *q, int64_t qStride, const FloatRows &k,
               const FloatRows &v, const float *mask, int64_t maskStride,
               int64_t lq, int64_t lk, int64_t hq, int64_t hkv, int64_t d,
               float scale, float softcap, float *o, int64_t oStride,
               WorkerPool &pool) {
  attention(q, qStride, k, v, mask, maskStride, lq, lk, hq, hkv, d, scale,
            softcap, o, oStride, pool, selectIsa());
}

} // namespace llmc::host
