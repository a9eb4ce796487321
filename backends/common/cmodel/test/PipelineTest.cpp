//===- PipelineTest.cpp - a decode-step MLP as codegen would emit it ------===//
//
// RMSNorm, a W4 gate/up projection streamed in weight tiles through two
// local buffers (the next tile loads while the current one computes),
// SiLU(gate) * up, a layout change through global memory, the W4 down
// projection and the residual add: the contract end to end, and an example
// of the waits double buffering needs.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc::cmodel {
namespace {

using test::Harness;

constexpr int64_t kLanes = 4, kHidden = 64, kInter = 128, kGroup = 32;
constexpr int64_t kTile = 32; // Rows of gate/up weights per tile.

/// A W4 weight [rows, cols] with group scales and zero points.
struct QuantWeight {
  std::vector<float> q, scale, zp;
  int64_t rows, cols;

  QuantWeight(int64_t rows, int64_t cols, uint32_t seed)
      : rows(rows), cols(cols) {
    q = test::randomValues(rows * cols, seed, 0, 16);
    zp = test::randomValues(rows * cols / kGroup, seed + 1, 6, 10);
    for (float &v : q)
      v = std::floor(v);
    for (float &v : zp)
      v = std::floor(v);
    scale = test::randomValues(rows * cols / kGroup, seed + 2, 0.01f, 0.03f);
  }
  /// The dequantized weight as the contract defines it, for F16 products.
  std::vector<double> dequantize() const {
    std::vector<double> s = test::asStored(cmd::DTYPE_F16, scale), w;
    for (int64_t i = 0; i < rows * cols; ++i) {
      int64_t g = (i / cols) * (cols / kGroup) + (i % cols) / kGroup;
      w.push_back(test::roundF16(double(float((q[i] - zp[g]) * s[g]))));
    }
    return w;
  }
};

std::vector<double> linear(const std::vector<double> &x,
                           const std::vector<double> &w, int64_t n, int64_t k) {
  std::vector<double> y(n);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t i = 0; i < k; ++i)
      y[r] += x[i] * w[r * k + i];
  return y;
}

/// Builds and runs the MLP; without `reuseWaits`, tile t + 2's loads do not
/// wait for tile t's readers, which must trap.
void runMlp(bool reuseWaits) {
  Harness h(test::getSmallChip());
  StreamBuilder &b = h.getBuilder();
  std::vector<float> x = test::randomValues(kHidden, 1),
                     norm = test::randomValues(kHidden, 2, 0.8f, 1.2f);
  QuantWeight gate(kInter, kHidden, 10), up(kInter, kHidden, 20),
      down(kHidden, kInter, 30);
  cmd::DType f16 = cmd::DTYPE_F16, u4 = cmd::DTYPE_U4;
  cmd::Layout rowsLayout = cmd::LAYOUT_ROWS, cols = cmd::LAYOUT_COLS,
              all = cmd::LAYOUT_REPLICATED;

  // Global memory: inputs and weights, the intermediate h, the output.
  cmd::GlobalTensor gx = h.put(f16, 1, kHidden, x);
  cmd::GlobalTensor gnorm = h.put(f16, 1, kHidden, norm);
  auto putWeight = [&](const QuantWeight &w) {
    return std::array<cmd::GlobalTensor, 3>{
        h.put(u4, w.rows, w.cols, w.q),
        h.put(f16, w.rows, w.cols / kGroup, w.scale),
        h.put(u4, w.rows, w.cols / kGroup, w.zp)};
  };
  auto gGate = putWeight(gate), gUp = putWeight(up), gDown = putWeight(down);
  cmd::GlobalTensor gh = h.reserve(f16, 1, kInter);
  cmd::GlobalTensor gy = h.reserve(f16, 1, kHidden);

  // 1. RMSNorm of x, replicated on every lane for the projections.
  cmd::LocalTensor lx = h.local(f16, 1, kHidden, all, 0, kLanes);
  cmd::LocalTensor lnorm = h.local(f16, 1, kHidden, all, 0, kLanes);
  cmd::LocalTensor xn = h.local(f16, 1, kHidden, all, 0, kLanes);
  uint32_t loadX = b.load(gx, lx), loadNorm = b.load(gnorm, lnorm);
  cmd::Compute rms = makeCompute(cmd::RMSNORM, {lx, lnorm}, {xn});
  rms.set_eps(1e-6);
  b.compute(rms, {loadX, loadNorm});

  // 2. Gate and up in tiles of 32 weight rows (8 per lane), two buffers.
  auto tileOf = [&](const cmd::GlobalTensor &g, int64_t t) {
    cmd::GlobalTensor tile = g;
    tile.set_offset(g.offset() +
                    t * kTile * getDTypeBytes(g.dtype(), g.cols()));
    tile.set_rows(kTile);
    return tile;
  };
  struct Buffers {
    cmd::LocalTensor gate[3], up[3], gateOut, upOut, hOut;
  } buffers[2];
  for (Buffers &buf : buffers) {
    for (int i = 0; i < 3; ++i) {
      const auto &g = gGate[i];
      buf.gate[i] = h.local(g.dtype(), kTile, g.cols(), rowsLayout, 0, kLanes);
      buf.up[i] = h.local(g.dtype(), kTile, g.cols(), rowsLayout, 0, kLanes);
    }
    buf.gateOut = h.local(f16, 1, kTile, cols, 0, kLanes);
    buf.upOut = h.local(f16, 1, kTile, cols, 0, kLanes);
    buf.hOut = h.local(f16, 1, kTile, cols, 0, kLanes);
  }
  // Each tile's h is stored two tiles later, so the loads of tile t + 2 are
  // queued before the store of tile t: only an explicit wait keeps them
  // from overwriting buffers the matmuls of tile t still read.
  std::vector<uint32_t> lastReader, hStores;
  auto storeH = [&](int64_t t) {
    cmd::GlobalTensor hTile = gh;
    hTile.set_offset(gh.offset() + t * kTile * 2);
    hTile.set_cols(kTile);
    hStores.push_back(b.store(buffers[t % 2].hOut, hTile, {lastReader[t]}));
  };
  int64_t tiles = kInter / kTile;
  for (int64_t t = 0; t < tiles; ++t) {
    Buffers &buf = buffers[t % 2];
    std::vector<uint32_t> reuse;
    if (t >= 2 && reuseWaits)
      reuse.push_back(lastReader[t - 2]);
    std::vector<uint32_t> loads;
    for (int i = 0; i < 3; ++i) {
      loads.push_back(b.load(tileOf(gGate[i], t), buf.gate[i], reuse));
      loads.push_back(b.load(tileOf(gUp[i], t), buf.up[i], reuse));
    }
    // h of tile t - 2 leaves the buffer this tile's h will overwrite.
    std::vector<uint32_t> waits = loads;
    if (t >= 2) {
      storeH(t - 2);
      waits.push_back(hStores.back());
    }
    b.a16MatMul(xn, buf.gate[0], buf.gate[1], buf.gate[2], buf.gateOut, waits);
    b.a16MatMul(xn, buf.up[0], buf.up[1], buf.up[2], buf.upOut);
    b.unary(cmd::SILU, buf.gateOut, buf.gateOut);
    lastReader.push_back(b.binary(cmd::MUL, buf.gateOut, buf.upOut, buf.hOut));
  }
  storeH(tiles - 2);
  storeH(tiles - 1);

  // 3. h back from global memory, replicated: the down projection's input.
  cmd::LocalTensor lh = h.local(f16, 1, kInter, all, 0, kLanes);
  uint32_t loadH = b.load(gh, lh);
  std::array<cmd::LocalTensor, 3> lDown;
  std::vector<uint32_t> downLoads = {loadH};
  for (int i = 0; i < 3; ++i) {
    lDown[i] = h.local(gDown[i].dtype(), kHidden, gDown[i].cols(), rowsLayout,
                       0, kLanes);
    downLoads.push_back(b.load(gDown[i], lDown[i]));
  }
  cmd::LocalTensor ly = h.local(f16, 1, kHidden, cols, 0, kLanes);
  b.a16MatMul(lh, lDown[0], lDown[1], lDown[2], ly, downLoads);

  // 4. The residual, x split like y.
  cmd::LocalTensor lxCols = h.local(f16, 1, kHidden, cols, 0, kLanes);
  uint32_t loadXCols = b.load(gx, lxCols);
  uint32_t residual = b.binary(cmd::ADD, ly, lxCols, ly, {loadXCols});
  b.store(ly, gy, {residual});
  if (!reuseWaits) {
    std::string message;
    EXPECT_EQ(test::getTrapKind(h.run().status(), &message),
              TrapKind::MissingSync);
    EXPECT_NE(message.find("A16MATMUL"), std::string::npos) << message;
    return;
  }
  LLMC_ASSERT_RUN(h, stats);

  // The reference, in double with the same f16 storage points.
  std::vector<double> xs = test::asStored(f16, x),
                      ns = test::asStored(f16, norm);
  double sum = 0;
  for (double v : xs)
    sum += v * v;
  double inverse = 1 / std::sqrt(sum / kHidden + 1e-6);
  std::vector<double> normed;
  for (int64_t i = 0; i < kHidden; ++i)
    normed.push_back(test::roundF16(xs[i] * inverse * ns[i]));
  std::vector<double> g = linear(normed, gate.dequantize(), kInter, kHidden);
  std::vector<double> u = linear(normed, up.dequantize(), kInter, kHidden);
  std::vector<double> hidden;
  for (int64_t i = 0; i < kInter; ++i) {
    double gi = test::roundF16(g[i]), ui = test::roundF16(u[i]);
    double silu = test::roundF16(gi / (1 + std::exp(-gi)));
    hidden.push_back(test::roundF16(silu * ui));
  }
  std::vector<double> y = linear(hidden, down.dequantize(), kHidden, kInter);
  std::vector<double> want;
  for (int64_t i = 0; i < kHidden; ++i)
    want.push_back(test::roundF16(test::roundF16(y[i]) + xs[i]));
  // Mostly bit-equal; a one-ulp difference at an intermediate rounding may
  // carry through a few ulp.
  test::expectClose(h.get(gy), want, 4e-3);

  // The loads of the next tile overlapped the current tile's compute.
  EXPECT_LT(stats.totalCycles, stats.dmaCycles + stats.computeCycles);
}

TEST(PipelineTest, DecodeMlpWithDoubleBufferedWeights) { runMlp(true); }

TEST(PipelineTest, RefillingABufferStillReadTraps) { runMlp(false); }

} // namespace
} // namespace llmc::cmodel
