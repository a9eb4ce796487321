//===- Linear.cpp - linear and gated linear: splitting the work -----------===//
//
// A product with few rows of x (decode) is memory-bound: the table's gemv
// streams the weights once, each thread taking a contiguous range of output
// columns; up to 16 rows stream them once per 4. A product with many rows
// (prefill) is compute-bound and runs as a blocked GEMM: x is laid out once
// in blocks of kc columns as the path's microkernel reads them (float32, or
// byte pieces for integer dot products), then for each K block a thread
// packs a panel of nr weight rows once ([kc][nr], fitting L1) and sweeps it
// over every row tile of x with the path's register-tiled microkernel. The
// threads split the output columns in whole panels; the K blocking is a
// constant of the path, so every output element gets the same operations in
// the same order whatever the thread count.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Scalar.h"

#include "absl/types/span.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace llmc::host {
namespace detail {

const IsaKernels &getKernels(Isa isa) {
  switch (clampIsa(isa)) {
  case Isa::Avx512Vnni:
    return getAvx512VnniKernels();
  case Isa::Avx512:
    return getAvx512Kernels();
  case Isa::Avx2:
    return getAvx2Kernels();
  case Isa::Neon:
    return getNeonKernels();
  case Isa::Scalar:
    break;
  }
  return getScalarKernels();
}

void copyFloatRow(const float *x, int64_t kc, void *row) {
  std::memcpy(row, x, sizeof(float) * kc);
}

void packPanelByRows(DequantizeFn dequantize, int64_t nr, const Weights &w,
                     int64_t j0, int64_t cols, int64_t c0, int64_t kc,
                     float *panel) {
  float *row = getScratchAs<float>(Scratch::Rows, kc);
  if (cols < nr)
    std::memset(panel, 0, sizeof(float) * kc * nr);
  for (int64_t jj = 0; jj < cols; ++jj) {
    dequantize(w, j0 + jj, c0, kc, row);
    for (int64_t kk = 0; kk < kc; ++kk)
      panel[kk * nr + jj] = row[kk];
  }
}

/// The matrix-matrix path of `kernels` for weights `w`.
static const GemmKernels &selectGemm(const IsaKernels &kernels,
                                     const Weights &w) {
  const GemmKernels *quantized =
      kernels.selectQuantizedGemm ? kernels.selectQuantizedGemm(w) : nullptr;
  return quantized ? *quantized : kernels.gemm;
}

/// Output columns [j0, j1) of product `p` of a call with many rows.
static void gemmColumns(const IsaKernels &isaKernels,
                        const GemmKernels &kernels, const LinearArgs &a,
                        const uint8_t *laidOut, const LinearProduct &p,
                        int64_t j0, int64_t j1) {
  const int64_t mr = kernels.mr, nr = kernels.nr, kcMax = kernels.kc;
  const int64_t m = a.m, k = p.w->k;
  const bool gated = a.up != nullptr;
  // Columns go in blocks, each through every K block before the next, so
  // that the partial sums of a block (m x blockCols) stay in cache. A plain
  // product accumulates in y; a gated one keeps the up half of the block in
  // a per-thread tile until the last K block.
  const int64_t blockCols = gated ? 4 * nr : 16 * nr;
  const int64_t paddedM = (m + mr - 1) / mr * mr;

  const int64_t xStride = kernels.xRowBytes;
  void *panel = getScratch(Scratch::Panel, kernels.panelBytes);
  float *tile = getScratchAs<float>(Scratch::Tile, mr * nr + nr);
  float *paddedBias = tile + mr * nr;
  float *upTile =
      gated ? getScratchAs<float>(Scratch::Up, paddedM * blockCols) : nullptr;

  for (int64_t jb = j0; jb < j1; jb += blockCols) {
    int64_t je = std::min(j1, jb + blockCols);
    for (int64_t c0 = 0; c0 < k; c0 += kcMax) {
      int64_t kc = std::min(kcMax, k - c0);
      bool first = c0 == 0, last = c0 + kc == k;
      const uint8_t *xb = laidOut + c0 / kcMax * paddedM * xStride;
      for (int64_t jp = jb; jp < je; jp += nr) {
        int64_t cols = std::min(nr, je - jp);
        for (int matrix = 0; matrix < (gated ? 2 : 1); ++matrix) {
          kernels.packPanel(matrix ? *a.up : *p.w, jp, cols, c0, kc, panel);
          float *dest = matrix ? upTile + (jp - jb) : p.y + jp;
          int64_t destStride = matrix ? blockCols : p.yStride;
          bool load = !first || (!gated && p.accumulate);
          const float *bias = last && !gated && p.bias ? p.bias + jp : nullptr;
          if (bias && cols < nr) {
            std::memset(paddedBias, 0, sizeof(float) * nr);
            std::memcpy(paddedBias, bias, sizeof(float) * cols);
            bias = paddedBias;
          }
          for (int64_t i = 0; i < m; i += mr) {
            int64_t rows = std::min(mr, m - i);
            float *c = dest + i * destStride;
            if (rows == mr && cols == nr) {
              kernels.microkernel(xb + i * xStride, panel, kc, c, destStride,
                                  load, bias);
              continue;
            }
            // An edge tile goes through a full one.
            if (load) {
              std::memset(tile, 0, sizeof(float) * mr * nr);
              for (int64_t r = 0; r < rows; ++r)
                std::memcpy(tile + r * nr, c + r * destStride,
                            sizeof(float) * cols);
            }
            kernels.microkernel(xb + i * xStride, panel, kc, tile, nr, load,
                                bias);
            for (int64_t r = 0; r < rows; ++r)
              std::memcpy(c + r * destStride, tile + r * nr,
                          sizeof(float) * cols);
          }
        }
      }
    }
    if (gated)
      for (int64_t i = 0; i < m; ++i)
        isaKernels.gate(a.act, p.y + i * p.yStride + jb,
                        upTile + i * blockCols, je - jb);
  }
}

/// Up to this many streams of the weights by the matrix-vector path beat
/// the blocked GEMM, whose panels are dequantized on every call.
constexpr int64_t kGemvPasses = 4;

/// Splits a product over the pool.
static void runLinear(const LinearArgs &a, WorkerPool &pool, Isa isa) {
  const int64_t m = a.m, n = a.getTotalColumns(), k = a.getLeadWeights().k;
  if (m <= 0 || n <= 0)
    return;
  if (k == 0) {
    // An empty sum: only the bias, or act(0) * 0 = 0.
    for (const LinearProduct &p : a.products)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < p.w->n; ++j) {
          float &y = p.y[i * p.yStride + j];
          float v = a.up ? 0.0f : (p.bias ? p.bias[j] : 0.0f);
          y = !a.up && p.accumulate ? v + y : v;
        }
    return;
  }
  const IsaKernels &kernels = getKernels(isa);
  if (m <= kernels.gemvMaxRows * kGemvPasses) {
    std::vector<LinearProduct> rows(a.products.begin(), a.products.end());
    for (int64_t i = 0; i < m; i += kernels.gemvMaxRows) {
      LinearArgs pass = a;
      pass.x = a.x + i * a.xStride;
      pass.m = std::min(kernels.gemvMaxRows, m - i);
      for (size_t p = 0; p < rows.size(); ++p)
        rows[p].y = a.products[p].y + i * a.products[p].yStride;
      pass.products = rows;
      ColumnClaims claims(n, pool.size());
      pool.parallelFor(pool.size(), 1,
                       [&](int64_t, int64_t) { kernels.gemv(pass, claims); });
    }
    return;
  }
  // Many rows are bound by compute: x is laid out once, in blocks of kc
  // columns by paddedM rows, then the products run one after another.
  const GemmKernels &gemm = selectGemm(kernels, a.getLeadWeights());
  const int64_t paddedM = (m + gemm.mr - 1) / gemm.mr * gemm.mr;
  const int64_t blocks = (k + gemm.kc - 1) / gemm.kc;
  const int64_t blockBytes = paddedM * gemm.xRowBytes;
  uint8_t *laidOut = getScratchAs<uint8_t>(Scratch::X, blocks * blockBytes);
  pool.parallelFor(m, 1, [&](int64_t i0, int64_t i1) {
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t i = i0; i < i1; ++i)
        gemm.layoutRow(a.x + i * a.xStride + b * gemm.kc,
                       std::min(gemm.kc, k - b * gemm.kc),
                       laidOut + b * blockBytes + i * gemm.xRowBytes);
  });
  for (int64_t b = 0; b < blocks; ++b)
    std::memset(laidOut + b * blockBytes + m * gemm.xRowBytes, 0,
                (paddedM - m) * gemm.xRowBytes);
  for (const LinearProduct &p : a.products)
    pool.parallelFor(p.w->n, gemm.nr, [&](int64_t j0, int64_t j1) {
      gemmColumns(kernels, gemm, a, laidOut, p, j0, j1);
    });
}

} // namespace detail

using namespace detail;

bool isQuantized(WeightType type) {
  return type != WeightType::F32 && type != WeightType::F16 &&
         type != WeightType::BF16;
}

int64_t getElementBits(WeightType type) {
  switch (type) {
  case WeightType::F32:
    return 32;
  case WeightType::F16:
  case WeightType::BF16:
    return 16;
  case WeightType::I8:
  case WeightType::U8:
    return 8;
  case WeightType::I4:
  case WeightType::U4:
    return 4;
  }
  return 0;
}

int64_t getElementBits(ParamType type) {
  switch (type) {
  case ParamType::None:
    return 0;
  case ParamType::F32:
    return 32;
  case ParamType::F16:
  case ParamType::BF16:
    return 16;
  case ParamType::I8:
  case ParamType::U8:
    return 8;
  case ParamType::I4:
  case ParamType::U4:
    return 4;
  }
  return 0;
}

bool haveSameLayout(const Weights &a, const Weights &b) {
  return a.type == b.type && a.k == b.k &&
         (!isQuantized(a.type) || (getGroupSize(a) == getGroupSize(b) &&
                                   hasZeroPoint(a) == hasZeroPoint(b)));
}

/// The bytes of a packed row of `count` elements of `bits` each.
static int64_t getPackedBytes(int64_t bits, int64_t count) {
  return (bits * count + 7) / 8;
}

int64_t getWeightBytes(const Weights &w) {
  int64_t rowBytes = getPackedBytes(getElementBits(w.type), w.k);
  int64_t bytes = rowBytes * w.n;
  if (isQuantized(w.type)) {
    int64_t groups = w.k / getGroupSize(w);
    if (hasScale(w))
      bytes += getPackedBytes(getElementBits(w.scaleType), groups) * w.n;
    if (hasZeroPoint(w))
      bytes += getPackedBytes(getElementBits(w.zpType), groups) * w.n;
  }
  return bytes;
}

void dequantizeRow(const Weights &w, int64_t j, float *out) {
  dequantizeScalar(w, j, 0, w.k, out);
}

void linear(const float *x, int64_t m, int64_t xStride, const Weights &w,
            const float *bias, float *y, int64_t yStride, bool accumulate,
            WorkerPool &pool, Isa isa) {
  const LinearProduct product{&w, bias, y, yStride, accumulate};
  linearProducts(x, m, xStride, absl::MakeConstSpan(&product, 1), pool, isa);
}

void linear(const float *x, int64_t m, int64_t xStride, const Weights &w,
            const float *bias, float *y, int64_t yStride, bool accumulate,
            WorkerPool &pool) {
  linear(x, m, xStride, w, bias, y, yStride, accumulate, pool, selectIsa());
}

void linearProducts(const float *x, int64_t m, int64_t xStride,
                    absl::Span<const LinearProduct> products, WorkerPool &pool,
                    Isa isa) {
  if (products.empty())
    return;
  for (const LinearProduct &p : products) {
    (void)p;
    assert(!isQuantized(p.w->type) || p.w->k % getGroupSize(*p.w) == 0);
    assert(haveSameLayout(*p.w, *products.front().w));
  }
  runLinear(LinearArgs{x, m, xStride, products, nullptr, Activation::SiLU},
            pool, isa);
}

void linearProducts(const float *x, int64_t m, int64_t xStride,
                    absl::Span<const LinearProduct> products,
                    WorkerPool &pool) {
  linearProducts(x, m, xStride, products, pool, selectIsa());
}

void gatedLinear(const float *x, int64_t m, int64_t xStride,
                 const Weights &gate, const Weights &up, Activation act,
                 float *h, int64_t hStride, WorkerPool &pool, Isa isa) {
  assert(gate.n == up.n && gate.k == up.k && gate.type == up.type);
  const LinearProduct product{&gate, nullptr, h, hStride, false};
  runLinear(
      LinearArgs{x, m, xStride, absl::MakeConstSpan(&product, 1), &up, act},
      pool, isa);
}

void gatedLinear(const float *x, int64_t m, int64_t xStride,
                 const Weights &gate, const Weights &up, Activation act,
                 float *h, int64_t hStride, WorkerPool &pool) {
  gatedLinear(x, m, xStride, gate, up, act, h, hStride, pool, selectIsa());
}

} // namespace llmc::host
