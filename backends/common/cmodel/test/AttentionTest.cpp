//===- AttentionTest.cpp - fused attention, single pass and chunked -------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc::cmodel {
namespace {

using test::Harness;

struct Shape {
  int64_t queries = 3, keys = 10, qHeads = 4, kvHeads = 2, headDim = 16;
  int64_t qCols() const { return qHeads * headDim; }
  int64_t kvCols() const { return kvHeads * headDim; }
};

struct Inputs {
  std::vector<float> q, k, v, mask;
};

Inputs makeInputs(const Shape &s) {
  Inputs in;
  in.q = test::randomValues(s.queries * s.qCols(), 1, -2, 2);
  in.k = test::randomValues(s.keys * s.kvCols(), 2, -2, 2);
  in.v = test::randomValues(s.keys * s.kvCols(), 3, -2, 2);
  in.mask.assign(s.queries * s.keys, 0.0f);
  // Causal over the last queries, as a prefill_kv mask.
  for (int64_t i = 0; i < s.queries; ++i)
    for (int64_t j = s.keys - s.queries + i + 1; j < s.keys; ++j)
      in.mask[i * s.keys + j] = -10000.0f;
  return in;
}

/// softmax(cap(q k^T * scale) + mask) v per query head, in double; cap is
/// c * tanh(x / c) for a positive softcap c.
std::vector<double> reference(const Shape &s, const Inputs &in, cmd::DType type,
                              double scale, double softcap = 0) {
  std::vector<double> q = test::asStored(type, in.q),
                      k = test::asStored(type, in.k),
                      v = test::asStored(type, in.v);
  std::vector<double> out(s.queries * s.qCols());
  int64_t group = s.qHeads / s.kvHeads;
  for (int64_t h = 0; h < s.qHeads; ++h)
    for (int64_t i = 0; i < s.queries; ++i) {
      std::vector<double> scores(s.keys);
      double max = -INFINITY, sum = 0;
      for (int64_t j = 0; j < s.keys; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < s.headDim; ++d)
          dot += q[i * s.qCols() + h * s.headDim + d] *
                 k[j * s.kvCols() + (h / group) * s.headDim + d];
        scores[j] = dot * scale;
        if (softcap > 0)
          scores[j] = softcap * std::tanh(scores[j] / softcap);
        scores[j] += in.mask[i * s.keys + j];
        max = std::max(max, scores[j]);
      }
      for (double &score : scores)
        sum += (score = std::exp(score - max));
      for (int64_t d = 0; d < s.headDim; ++d) {
        double acc = 0;
        for (int64_t j = 0; j < s.keys; ++j)
          acc += scores[j] * v[j * s.kvCols() + (h / group) * s.headDim + d];
        out[i * s.qCols() + h * s.headDim + d] = acc / sum;
      }
    }
  return out;
}

TEST(AttentionTest, GroupedHeadsOneKvHeadPerLane) {
  Shape s;
  Inputs in = makeInputs(s);
  for (cmd::DType type : {cmd::DTYPE_F16, cmd::DTYPE_BF16}) {
    Harness h(test::getSmallChip());
    // Lane i holds key/value head i and the two query heads that use it.
    cmd::LocalTensor q =
        h.local(type, s.queries, s.qCols(), cmd::LAYOUT_COLS, 0, 2);
    cmd::LocalTensor k =
        h.local(type, s.keys, s.kvCols(), cmd::LAYOUT_COLS, 0, 2);
    cmd::LocalTensor v =
        h.local(type, s.keys, s.kvCols(), cmd::LAYOUT_COLS, 0, 2);
    cmd::LocalTensor mask = h.local(cmd::DTYPE_F32, s.queries, s.keys,
                                    cmd::LAYOUT_REPLICATED, 0, 2);
    cmd::LocalTensor o =
        h.local(cmd::DTYPE_F32, s.queries, s.qCols(), cmd::LAYOUT_COLS, 0, 2);
    cmd::Compute compute = makeCompute(cmd::ATTENTION, {q, k, v, mask}, {o});
    compute.set_group(s.headDim); // scale 0: 1 / sqrt(head_dim).
    auto outs = h.runOp(
        compute, {{h.put(type, s.queries, s.qCols(), in.q), q},
                  {h.put(type, s.keys, s.kvCols(), in.k), k},
                  {h.put(type, s.keys, s.kvCols(), in.v), v},
                  {h.put(cmd::DTYPE_F32, s.queries, s.keys, in.mask), mask}});
    ASSERT_TRUE(outs.ok()) << outs.status().message();
    test::expectClose(h.get((*outs)[0]), reference(s, in, type, 0.25), 2e-6);
  }
}

/// The other placement: each lane a query row with every head, keys and
/// values replicated, the mask split like the queries; f32 throughout.
std::vector<float> runQueryRowsSplit(const Shape &s, const Inputs &in,
                                     double scale, double softcap) {
  Harness h(test::getSmallChip());
  cmd::DType type = cmd::DTYPE_F32;
  cmd::LocalTensor q =
      h.local(type, s.queries, s.qCols(), cmd::LAYOUT_ROWS, 0, 3);
  cmd::LocalTensor k =
      h.local(type, s.keys, s.kvCols(), cmd::LAYOUT_REPLICATED, 0, 3);
  cmd::LocalTensor v =
      h.local(type, s.keys, s.kvCols(), cmd::LAYOUT_REPLICATED, 0, 3);
  cmd::LocalTensor mask =
      h.local(type, s.queries, s.keys, cmd::LAYOUT_ROWS, 0, 3);
  cmd::LocalTensor o =
      h.local(type, s.queries, s.qCols(), cmd::LAYOUT_ROWS, 0, 3);
  cmd::Compute compute = makeCompute(cmd::ATTENTION, {q, k, v, mask}, {o});
  compute.set_group(s.headDim);
  compute.set_scalar(scale);
  compute.set_softcap(softcap);
  auto outs =
      h.runOp(compute, {{h.put(type, s.queries, s.qCols(), in.q), q},
                        {h.put(type, s.keys, s.kvCols(), in.k), k},
                        {h.put(type, s.keys, s.kvCols(), in.v), v},
                        {h.put(type, s.queries, s.keys, in.mask), mask}});
  if (!outs.ok()) {
    ADD_FAILURE() << outs.status().message();
    return {};
  }
  return h.get((*outs)[0]);
}

TEST(AttentionTest, QueryRowsSplitOverLanes) {
  Shape s;
  Inputs in = makeInputs(s);
  test::expectClose(runQueryRowsSplit(s, in, 0.1, 0.0),
                    reference(s, in, cmd::DTYPE_F32, 0.1), 2e-6);
}

TEST(AttentionTest, SoftcapBendsScoresBeforeTheMask) {
  // Scale 1 spreads the scores over about +-10 against a cap of 2, so the
  // cap changes the result (the uncapped reference is checked to differ).
  Shape s;
  Inputs in = makeInputs(s);
  std::vector<double> capped = reference(s, in, cmd::DTYPE_F32, 1.0, 2.0);
  std::vector<double> uncapped = reference(s, in, cmd::DTYPE_F32, 1.0);
  double change = 0;
  for (size_t i = 0; i < capped.size(); ++i)
    change = std::max(change, std::fabs(capped[i] - uncapped[i]));
  EXPECT_GT(change, 0.1);
  test::expectClose(runQueryRowsSplit(s, in, 1.0, 2.0), capped, 2e-6);
}

TEST(AttentionTest, ChunkedKeysMatchOnePass) {
  // Keys in chunks of 4, 4 and 2 with the online-softmax state between
  // them, each chunk's keys, values and mask columns loaded by strided DMA.
  Shape s;
  Inputs in = makeInputs(s);
  cmd::DType type = cmd::DTYPE_F16;
  Harness h(test::getSmallChip());
  StreamBuilder &b = h.getBuilder();
  cmd::GlobalTensor gq = h.put(type, s.queries, s.qCols(), in.q);
  cmd::GlobalTensor gk = h.put(type, s.keys, s.kvCols(), in.k);
  cmd::GlobalTensor gv = h.put(type, s.keys, s.kvCols(), in.v);
  cmd::GlobalTensor gmask = h.put(cmd::DTYPE_F32, s.queries, s.keys, in.mask);
  cmd::LocalTensor q =
      h.local(type, s.queries, s.qCols(), cmd::LAYOUT_COLS, 0, 2);
  cmd::LocalTensor acc =
      h.local(cmd::DTYPE_F32, s.queries, s.qCols(), cmd::LAYOUT_COLS, 0, 2);
  cmd::LocalTensor max =
      h.local(cmd::DTYPE_F32, s.queries, s.qHeads, cmd::LAYOUT_COLS, 0, 2);
  cmd::LocalTensor sum =
      h.local(cmd::DTYPE_F32, s.queries, s.qHeads, cmd::LAYOUT_COLS, 0, 2);
  cmd::LocalTensor o =
      h.local(type, s.queries, s.qCols(), cmd::LAYOUT_COLS, 0, 2);
  uint32_t loadQ = b.load(gq, q);
  uint32_t last = 0;
  int64_t chunks[][2] = {{0, 4}, {4, 8}, {8, 10}};
  for (auto [begin, end] : chunks) {
    int64_t n = end - begin;
    cmd::GlobalTensor ck = gk, cv = gv, cm = gmask;
    ck.set_offset(gk.offset() + begin * s.kvCols() * 2);
    ck.set_rows(n);
    cv.set_offset(gv.offset() + begin * s.kvCols() * 2);
    cv.set_rows(n);
    cm.set_offset(gmask.offset() + begin * 4);
    cm.set_cols(n);
    cm.set_row_stride_bytes(s.keys * 4);
    cmd::LocalTensor k = h.local(type, n, s.kvCols(), cmd::LAYOUT_COLS, 0, 2);
    cmd::LocalTensor v = h.local(type, n, s.kvCols(), cmd::LAYOUT_COLS, 0, 2);
    cmd::LocalTensor mask =
        h.local(cmd::DTYPE_F32, s.queries, n, cmd::LAYOUT_REPLICATED, 0, 2);
    uint32_t loads[] = {b.load(ck, k), b.load(cv, v), b.load(cm, mask)};
    bool final = end == s.keys;
    cmd::Compute compute = makeCompute(cmd::ATTENTION, {q, k, v, mask},
                                       {final ? o : absent(), acc, max, sum});
    compute.set_group(s.headDim);
    compute.set_resume(begin > 0);
    compute.set_partial(!final);
    last = b.compute(compute, {loadQ, loads[0], loads[1], loads[2]});
  }
  cmd::GlobalTensor result = h.store(o, last);
  LLMC_ASSERT_RUN(h, stats);
  test::expectClose(h.get(result), reference(s, in, type, 0.25), 1e-3);
  EXPECT_EQ(stats.macs,
            uint64_t(2 * s.queries * s.qHeads * s.keys * s.headDim));
}

} // namespace
} // namespace llmc::cmodel
