//===- Gemm.cpp - blocked float32 matrix products for the interpreter -----===//
//
// GCC and Clang vectorize the fixed-trip-count loops below at -O2; the AVX2
// variants are the same templates compiled with a target attribute and
// chosen at run time, so the binary still runs on any x86-64 machine.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/Gemm.h"

#include "dialects/top/Interpreter/Parallel.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LLMC_GEMM_X86 1
#define LLMC_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define LLMC_GEMM_X86 0
#define LLMC_TARGET_AVX2
#endif

#define LLMC_ALWAYS_INLINE inline __attribute__((always_inline))

namespace llmc::top::kernels {

namespace {

/// Cache blocking: a packed K x N block of B (256 KiB) stays in L2 while the
/// inner kernel streams one M x K panel of A through L1.
constexpr int64_t kBlockK = 256;
constexpr int64_t kBlockM = 72;
constexpr int64_t kBlockN = 256;
/// Products with at most this many rows (a decode step, a short prompt)
/// skip packing: each element of B would be used by too few rows to pay for
/// copying it, and B (the weight) is streamed once.
constexpr int64_t kDecodeRows = 16;
/// Rows of A that share each load of B in the dot kernel.
constexpr int64_t kDotRows = 4;
/// Columns per work item of the decode path.
constexpr int64_t kDecodeColumns = 64;
/// Lanes of the fixed-order dot product; a multiple of every vector width.
constexpr int kLanes = 16;

//===----------------------------------------------------------------------===//
// Inner kernels, written once and compiled per instruction set
//===----------------------------------------------------------------------===//

/// C[MR x NR] (+)= A panel [kc][MR] x B panel [kc][NR]; each accumulator adds
/// its products in k order.
template <int MR, int NR>
LLMC_ALWAYS_INLINE void
microKernel(int64_t kc, const float *__restrict a, const float *__restrict b,
            float *__restrict c, int64_t ldc, bool accumulate) {
  float acc[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NR; ++j)
      acc[r][j] = accumulate ? c[r * ldc + j] : 0.0f;
  for (int64_t p = 0; p < kc; ++p) {
    const float *bRow = b + p * NR;
    for (int r = 0; r < MR; ++r) {
      float av = a[p * MR + r];
      for (int j = 0; j < NR; ++j)
        acc[r][j] += av * bRow[j];
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NR; ++j)
      c[r * ldc + j] = acc[r][j];
}

/// Sums 16 lanes pairwise in a fixed order.
LLMC_ALWAYS_INLINE float reduceLanes(float *acc) {
  for (int width = kLanes / 2; width > 0; width /= 2)
    for (int l = 0; l < width; ++l)
      acc[l] += acc[l + width];
  return acc[0];
}

/// c[r * ldc] = dot(a row r, b) for R rows of `a` sharing each load of `b`.
template <int R>
LLMC_ALWAYS_INLINE void dotRows(int64_t k, const float *__restrict a,
                                int64_t lda, const float *__restrict b,
                                float *__restrict c, int64_t ldc) {
  float acc[R][kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes)
    for (int r = 0; r < R; ++r)
      for (int l = 0; l < kLanes; ++l)
        acc[r][l] += a[r * lda + i + l] * b[i + l];
  for (int r = 0; r < R; ++r) {
    float tail = 0.0f;
    for (int64_t t = i; t < k; ++t)
      tail += a[r * lda + t] * b[t];
    c[r * ldc] = reduceLanes(acc[r]) + tail;
  }
}

/// Dot products of `rows` (at most kDotRows) rows of `a` with `b`.
LLMC_ALWAYS_INLINE void dotRowsAny(int64_t rows, int64_t k, const float *a,
                                   int64_t lda, const float *b, float *c,
                                   int64_t ldc) {
  switch (rows) {
  case 4: return dotRows<4>(k, a, lda, b, c, ldc);
  case 3: return dotRows<3>(k, a, lda, b, c, ldc);
  case 2: return dotRows<2>(k, a, lda, b, c, ldc);
  default: return dotRows<1>(k, a, lda, b, c, ldc);
  }
}

LLMC_ALWAYS_INLINE void addScaledBody(float alpha, const float *__restrict x,
                                      float *__restrict y, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l)
      y[i + l] += alpha * x[i + l];
  for (; i < n; ++i)
    y[i] += alpha * x[i];
}

/// The entry points of one instruction set.
struct IsaKernels {
  int mr;
  int nr;
  void (*micro)(int64_t kc, const float *a, const float *b, float *c,
                int64_t ldc, bool accumulate);
  void (*dot)(int64_t rows, int64_t k, const float *a, int64_t lda,
              const float *b, float *c, int64_t ldc);
  void (*addScaled)(float alpha, const float *x, float *y, int64_t n);
};

void microBaseline(int64_t kc, const float *a, const float *b, float *c,
                   int64_t ldc, bool accumulate) {
  microKernel<6, 8>(kc, a, b, c, ldc, accumulate);
}
void dotBaseline(int64_t rows, int64_t k, const float *a, int64_t lda,
                 const float *b, float *c, int64_t ldc) {
  dotRowsAny(rows, k, a, lda, b, c, ldc);
}
void addScaledBaseline(float alpha, const float *x, float *y, int64_t n) {
  addScaledBody(alpha, x, y, n);
}
constexpr IsaKernels kBaseline = {6, 8, microBaseline, dotBaseline,
                                  addScaledBaseline};

#if LLMC_GEMM_X86
LLMC_TARGET_AVX2 void microAvx2(int64_t kc, const float *a, const float *b,
                                float *c, int64_t ldc, bool accumulate) {
  microKernel<6, 16>(kc, a, b, c, ldc, accumulate);
}
LLMC_TARGET_AVX2 void dotAvx2(int64_t rows, int64_t k, const float *a,
                              int64_t lda, const float *b, float *c,
                              int64_t ldc) {
  dotRowsAny(rows, k, a, lda, b, c, ldc);
}
LLMC_TARGET_AVX2 void addScaledAvx2(float alpha, const float *x, float *y,
                                    int64_t n) {
  addScaledBody(alpha, x, y, n);
}
constexpr IsaKernels kAvx2 = {6, 16, microAvx2, dotAvx2, addScaledAvx2};
#endif

const IsaKernels &getKernels(GemmIsa isa) {
  assert(isGemmIsaSupported(isa) && "instruction set not supported here");
#if LLMC_GEMM_X86
  if (isa == GemmIsa::Avx2)
    return kAvx2;
#endif
  return kBaseline;
}

const IsaKernels &getBestKernels() {
  static const IsaKernels &best = getKernels(getBestGemmIsa());
  return best;
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

/// Copies rows [i0, i0 + mc) x columns [p0, p0 + kc) of `a` into panels of
/// `mr` rows, k-major, zero-padding the last panel.
void packA(MatrixRef a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int mr,
           float *out) {
  for (int64_t panel = 0; panel < mc; panel += mr) {
    int64_t rows = std::min<int64_t>(mr, mc - panel);
    const float *src = a.data + (i0 + panel) * a.rowStride + p0 * a.colStride;
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t r = 0; r < rows; ++r)
        out[p * mr + r] = src[r * a.rowStride + p * a.colStride];
      for (int64_t r = rows; r < mr; ++r)
        out[p * mr + r] = 0.0f;
    }
    out += kc * mr;
  }
}

/// Copies rows [p0, p0 + kc) x columns [j0, j0 + nc) of `b` into panels of
/// `nr` columns, k-major, zero-padding the last panel. Reads follow whichever
/// stride is contiguous.
void packB(MatrixRef b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int nr,
           float *out) {
  for (int64_t panel = 0; panel < nc; panel += nr) {
    int64_t cols = std::min<int64_t>(nr, nc - panel);
    const float *src = b.data + p0 * b.rowStride + (j0 + panel) * b.colStride;
    if (b.colStride == 1) {
      for (int64_t p = 0; p < kc; ++p) {
        const float *row = src + p * b.rowStride;
        for (int64_t j = 0; j < cols; ++j)
          out[p * nr + j] = row[j];
        for (int64_t j = cols; j < nr; ++j)
          out[p * nr + j] = 0.0f;
      }
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        const float *column = src + j * b.colStride;
        for (int64_t p = 0; p < kc; ++p)
          out[p * nr + j] = column[p * b.rowStride];
      }
      for (int64_t j = cols; j < nr; ++j)
        for (int64_t p = 0; p < kc; ++p)
          out[p * nr + j] = 0.0f;
    }
    out += kc * nr;
  }
}

//===----------------------------------------------------------------------===//
// Drivers
//===----------------------------------------------------------------------===//

/// One M block x N block of one product, over the whole K extent.
void computeBlock(const IsaKernels &isa, const GemmOperands &ops, int64_t n,
                  int64_t k, int64_t i0, int64_t mc, int64_t j0, int64_t nc) {
  thread_local std::vector<float> packedA, packedB;
  const int mr = isa.mr, nr = isa.nr;
  int64_t mPanels = (mc + mr - 1) / mr, nPanels = (nc + nr - 1) / nr;
  packedA.resize(mPanels * mr * kBlockK);
  packedB.resize(nPanels * nr * kBlockK);
  float edge[6 * 16];
  assert(mr * nr <= 6 * 16 && "edge tile too small");
  for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
    int64_t kc = std::min(kBlockK, k - p0);
    bool accumulate = p0 > 0;
    packB(ops.b, p0, kc, j0, nc, nr, packedB.data());
    packA(ops.a, i0, mc, p0, kc, mr, packedA.data());
    for (int64_t jp = 0; jp < nPanels; ++jp) {
      const float *bPanel = packedB.data() + jp * kc * nr;
      int64_t cols = std::min<int64_t>(nr, nc - jp * nr);
      for (int64_t ip = 0; ip < mPanels; ++ip) {
        const float *aPanel = packedA.data() + ip * kc * mr;
        int64_t rows = std::min<int64_t>(mr, mc - ip * mr);
        float *tile = ops.c + (i0 + ip * mr) * n + j0 + jp * nr;
        if (rows == mr && cols == nr) {
          isa.micro(kc, aPanel, bPanel, tile, n, accumulate);
          continue;
        }
        // Partial tiles run the same kernel on a padded copy, so their
        // elements see exactly the arithmetic of full tiles.
        if (accumulate)
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < cols; ++j)
              edge[r * nr + j] = tile[r * n + j];
        isa.micro(kc, aPanel, bPanel, edge, nr, accumulate);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < cols; ++j)
            tile[r * n + j] = edge[r * nr + j];
      }
    }
  }
}

void gemmPacked(const IsaKernels &isa, int64_t m, int64_t n, int64_t k,
                llvm::ArrayRef<GemmOperands> batch,
                const ThreadRunner &runner) {
  int64_t mBlocks = (m + kBlockM - 1) / kBlockM;
  int64_t nBlocks = (n + kBlockN - 1) / kBlockN;
  int64_t perProduct = mBlocks * nBlocks;
  // M blocks vary fastest so that consecutive items reuse the same columns
  // of B (the weight) while they are still in cache.
  runner.forRanges(
      batch.size() * perProduct, 1, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
          const GemmOperands &ops = batch[item / perProduct];
          int64_t within = item % perProduct;
          int64_t i0 = (within % mBlocks) * kBlockM;
          int64_t j0 = (within / mBlocks) * kBlockN;
          computeBlock(isa, ops, n, k, i0, std::min(kBlockM, m - i0), j0,
                       std::min(kBlockN, n - j0));
        }
      });
}

/// Few rows times a B whose columns are contiguous (a Linear weight read as
/// [N, K]): one dot product per output, B streamed once.
void gemmDecodeDot(const IsaKernels &isa, int64_t m, int64_t n, int64_t k,
                   llvm::ArrayRef<GemmOperands> batch,
                   const ThreadRunner &runner) {
  // The dot kernel wants contiguous rows of A; decode-sized A is tiny.
  std::vector<float> rowsOfA;
  bool contiguous = llvm::all_of(
      batch, [](const GemmOperands &ops) { return ops.a.colStride == 1; });
  if (!contiguous) {
    rowsOfA.resize(batch.size() * m * k);
    for (auto [index, ops] : llvm::enumerate(batch))
      for (int64_t r = 0; r < m; ++r)
        for (int64_t p = 0; p < k; ++p)
          rowsOfA[(index * m + r) * k + p] =
              ops.a.data[r * ops.a.rowStride + p * ops.a.colStride];
  }
  int64_t chunks = (n + kDecodeColumns - 1) / kDecodeColumns;
  runner.forRanges(batch.size() * chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      int64_t index = item / chunks;
      const GemmOperands &ops = batch[index];
      const float *a = contiguous ? ops.a.data : rowsOfA.data() + index * m * k;
      int64_t lda = contiguous ? ops.a.rowStride : k;
      int64_t j0 = (item % chunks) * kDecodeColumns;
      int64_t j1 = std::min(j0 + kDecodeColumns, n);
      // Row groups inside columns: a row of B stays in L1 for every group.
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t r = 0; r < m; r += kDotRows)
          isa.dot(std::min(kDotRows, m - r), k, a + r * lda, lda,
                  ops.b.data + j * ops.b.colStride, ops.c + r * n + j, n);
    }
  });
}

/// Few rows times a B whose rows are contiguous: each row of B, loaded once,
/// scales into every row of C.
void gemmDecodeRows(const IsaKernels &isa, int64_t m, int64_t n, int64_t k,
                    llvm::ArrayRef<GemmOperands> batch,
                    const ThreadRunner &runner) {
  constexpr int64_t kColumns = 256;
  int64_t chunks = (n + kColumns - 1) / kColumns;
  runner.forRanges(batch.size() * chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const GemmOperands &ops = batch[item / chunks];
      int64_t j0 = (item % chunks) * kColumns;
      int64_t width = std::min(kColumns, n - j0);
      for (int64_t r = 0; r < m; ++r)
        std::fill_n(ops.c + r * n + j0, width, 0.0f);
      for (int64_t p = 0; p < k; ++p) {
        const float *bRow = ops.b.data + p * ops.b.rowStride + j0;
        for (int64_t r = 0; r < m; ++r)
          isa.addScaled(ops.a.data[r * ops.a.rowStride + p * ops.a.colStride],
                        bRow, ops.c + r * n + j0, width);
      }
    }
  });
}

} // namespace

bool isGemmIsaSupported(GemmIsa isa) {
  switch (isa) {
  case GemmIsa::Baseline: return true;
  case GemmIsa::Avx2:
#if LLMC_GEMM_X86
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
  }
  return false;
}

GemmIsa getBestGemmIsa() {
  return isGemmIsaSupported(GemmIsa::Avx2) ? GemmIsa::Avx2 : GemmIsa::Baseline;
}

void gemm(int64_t m, int64_t n, int64_t k, llvm::ArrayRef<GemmOperands> batch,
          const ThreadRunner &runner, GemmIsa isaKind) {
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    for (const GemmOperands &ops : batch)
      std::fill_n(ops.c, m * n, 0.0f);
    return;
  }
  const IsaKernels &isa = getKernels(isaKind);
  auto all = [&](auto predicate) { return llvm::all_of(batch, predicate); };
  if (m <= kDecodeRows &&
      all([](const GemmOperands &ops) { return ops.b.rowStride == 1; }))
    return gemmDecodeDot(isa, m, n, k, batch, runner);
  if (m <= kDecodeRows &&
      all([](const GemmOperands &ops) { return ops.b.colStride == 1; }))
    return gemmDecodeRows(isa, m, n, k, batch, runner);
  gemmPacked(isa, m, n, k, batch, runner);
}

float dotProduct(const float *a, const float *b, int64_t n) {
  float result;
  getBestKernels().dot(1, n, a, n, b, &result, 1);
  return result;
}

void addScaled(float alpha, const float *x, float *y, int64_t n) {
  getBestKernels().addScaled(alpha, x, y, n);
}

} // namespace llmc::top::kernels
