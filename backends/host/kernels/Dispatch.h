//===- Dispatch.h - the kernels of one instruction set ----------*- C++ -*-===//
//
// The public entry points (Linear.cpp, Attention.cpp, Convert.cpp) split
// the work over threads and pick, per call, the table of the requested Isa;
// each table holds the inner pieces compiled for that instruction set
// (LinearScalar.cpp; LinearAvx2.cpp with GemvAvx2.cpp and AttentionAvx2.cpp;
// the same for AVX-512; LinearNeon.cpp with GemvNeon.cpp and
// ConvertNeon.cpp on aarch64).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_DISPATCH_H
#define LLMC_BACKENDS_HOST_KERNELS_DISPATCH_H

#include "backends/host/kernels/Kernels.h"

#include "absl/types/span.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace llmc::host::detail {

/// A linear or gated-linear call as the kernels see it.
struct LinearArgs {
  const float *x;
  int64_t m, xStride;
  /// The products of x, whose weights share the layout of x they read
  /// (linearProducts); a gated call has one, the gate into h.
  absl::Span<const LinearProduct> products;
  /// The up weights of a gated call, else null.
  const Weights *up;
  Activation act;

  /// The weights that decide how x is laid out.
  const Weights &getLeadWeights() const { return *products.front().w; }
  /// The output columns of all the products, one after another.
  int64_t getTotalColumns() const {
    int64_t n = 0;
    for (const LinearProduct &p : products)
      n += p.w->n;
    return n;
  }
};

/// An attention call.
struct AttentionArgs {
  const float *q;
  FloatRows k, v;
  const float *mask;
  int64_t qStride, maskStride;
  int64_t lq, lk, hq, hkv, d;
  float scale;
  /// Positive: scores are soft-capped, softcap * tanh(s / softcap).
  float softcap;
  float *o;
  int64_t oStride;
};

/// The output columns [0, n) of a matrix-vector product, handed out to its
/// threads as they ask, in pieces that shrink as the columns run out
/// (guided scheduling): a thread that the memory system or the scheduler
/// slows down takes fewer, instead of holding the others up at the end,
/// while the first pieces stay long enough for the prefetchers. A column is
/// computed the same way whichever thread takes it.
class ColumnClaims {
public:
  ColumnClaims(int64_t n, unsigned threads) : n(n), threads(threads) {}

  /// The next unclaimed piece [j0, j1); false when none is left.
  bool next(int64_t &j0, int64_t &j1) {
    int64_t start = claimed.load(std::memory_order_relaxed);
    for (;;) {
      if (start >= n)
        return false;
      int64_t size =
          std::max<int64_t>(kMinPiece, (n - start) / (2 * threads) / 16 * 16);
      if (claimed.compare_exchange_weak(start, start + size,
                                        std::memory_order_relaxed)) {
        j0 = start;
        j1 = std::min(n, start + size);
        return true;
      }
    }
  }

private:
  static constexpr int64_t kMinPiece = 32;
  const int64_t n;
  const unsigned threads;
  std::atomic<int64_t> claimed{0};
};

/// The row stride, in floats, of the block of x that the matrix-matrix
/// microkernels read: a cache line more than the block's kc columns. Rows
/// kc = 256 floats (1 KiB) apart would fall in 4 of L1's 64 sets, which the
/// panel already fills 8 ways deep, and the microkernel's row loads would
/// evict each other; the padded stride spreads them (measured with
/// kernels_bench --only=prefill, AVX-512: gate/up 175-196 -> 199-212
/// GFLOP/s, down 179-208 -> 220-234, medians of 4 runs).
constexpr int64_t getXBlockStride(int64_t kc) { return kc + 16; }

using DequantizeFn = void (*)(const Weights &w, int64_t j, int64_t c0,
                              int64_t len, float *out);

/// A matrix-matrix path: tiles of mr rows by nr columns, K in blocks of (at
/// most) kc, x and the weights each laid out as its microkernel reads them.
struct GemmKernels {
  int64_t mr, nr, kc;
  /// The bytes between rows of the block of x, and of a packed panel.
  int64_t xRowBytes, panelBytes;
  /// Lays out columns [0, kc) of a row of x as a row of the block; a row of
  /// zero bytes stands for a row of zeros.
  void (*layoutRow)(const float *x, int64_t kc, void *row);
  /// Packs columns [j0, j0 + cols) of w, K block [c0, c0 + kc), into a
  /// panel; the columns from cols to nr give zeros.
  void (*packPanel)(const Weights &w, int64_t j0, int64_t cols, int64_t c0,
                    int64_t kc, void *panel);
  /// c[mr, nr] (+)= xb[mr, kc] * panel[kc, nr] for one K block: `load`
  /// starts from c instead of zero, and a non-null `bias` (nr values) is
  /// added at the end.
  void (*microkernel)(const void *xb, const void *panel, int64_t kc, float *c,
                      int64_t cStride, bool load, const float *bias);
};

/// GemmKernels::layoutRow of the float32 paths: a copy.
void copyFloatRow(const float *x, int64_t kc, void *row);

struct IsaKernels {
  Isa isa;

  // Conversions.
  void (*widenF16)(const uint16_t *in, float *out, int64_t n);
  void (*widenBF16)(const uint16_t *in, float *out, int64_t n);
  void (*narrowF16)(const float *in, uint16_t *out, int64_t n);
  void (*narrowBF16)(const float *in, uint16_t *out, int64_t n);

  /// g[c] = act(g[c]) * u[c] for c < n.
  void (*gate)(Activation act, float *g, const float *u, int64_t n);

  /// out[0, len) = dequant(w)[j, c0 .. c0 + len).
  DequantizeFn dequantize;

  /// The matrix-vector path, for m <= gemvMaxRows: computes the output
  /// columns of `args` (gate activation included) that `claims` hands the
  /// calling thread, streaming the weights.
  int64_t gemvMaxRows;
  void (*gemv)(const LinearArgs &args, ColumnClaims &claims);

  /// The matrix-matrix path on float32 panels.
  GemmKernels gemm;
  /// The matrix-matrix path for the weights it takes better than `gemm`
  /// (null: none), or null.
  const GemmKernels *(*selectQuantizedGemm)(const Weights &w);

  /// Attention for query rows [i0, i1) of every query head that shares
  /// key/value head `kvHead`.
  void (*attentionRows)(const AttentionArgs &args, int64_t kvHead, int64_t i0,
                        int64_t i1);
};

const IsaKernels &getScalarKernels();
const IsaKernels &getAvx2Kernels();
const IsaKernels &getAvx512Kernels();
const IsaKernels &getAvx512VnniKernels();
const IsaKernels &getNeonKernels();

/// The table of `isa`, lowered to what the host supports.
const IsaKernels &getKernels(Isa isa);

/// Scratch memory of the calling thread: slot `slot`, at least `bytes`,
/// 64-byte aligned, kept until the thread ends (its contents too, unless a
/// later call asks for more).
enum class Scratch {
  X,
  Params,
  Rows,
  Panel,
  Tile,
  Up,
  Scores,
  Transposed,
  Keys,
  Values,
  Count
};
void *getScratch(Scratch slot, size_t bytes);
template <typename T> T *getScratchAs(Scratch slot, size_t count) {
  return static_cast<T *>(getScratch(slot, count * sizeof(T)));
}

/// Where element (i, j) of a matrix-vector product goes: base[i * stride +
/// j - firstColumn], plus bias[j] and what was there if asked.
struct GemvOutput {
  float *base;
  int64_t stride, firstColumn;
  const float *bias;
  bool accumulate;

  void store(int64_t i, int64_t j, float v) const {
    float &y = base[i * stride + j - firstColumn];
    if (bias)
      v += bias[j];
    y = accumulate ? v + y : v;
  }
};

/// The columns `claims` hands the calling thread (of all the products, one
/// after another), each piece [j0, j1) of a product's columns computed by
/// `rows(matrix, j0, j1, out)`, which streams those rows of `matrix` into
/// `out`: into y for a plain product; for a gated one, the gate into h and
/// the up half into a small buffer, which `gate` then folds into h.
template <typename Rows>
void forEachClaimedPiece(const LinearArgs &a, ColumnClaims &claims, Rows &&rows,
                         void (*gate)(Activation, float *, const float *,
                                      int64_t)) {
  for (int64_t c0, c1; claims.next(c0, c1);) {
    int64_t first = 0;
    for (const LinearProduct &p : a.products) {
      const int64_t j0 = std::max<int64_t>(c0 - first, 0),
                    j1 = std::min(c1 - first, p.w->n);
      first += p.w->n;
      if (j0 >= j1)
        continue;
      if (!a.up) {
        rows(*p.w, j0, j1, GemvOutput{p.y, p.yStride, 0, p.bias, p.accumulate});
        continue;
      }
      float *up = getScratchAs<float>(Scratch::Up, a.m * (j1 - j0));
      rows(*p.w, j0, j1, GemvOutput{p.y, p.yStride, 0, nullptr, false});
      rows(*a.up, j0, j1, GemvOutput{up, j1 - j0, j0, nullptr, false});
      for (int64_t i = 0; i < a.m; ++i)
        gate(a.act, p.y + i * p.yStride + j0, up + i * (j1 - j0), j1 - j0);
    }
  }
}

/// One key/value head of attention's keys or values (columns head * d to
/// head * d + d of every row) as float32 rows: in place when they are
/// stored so, else widened on demand, with the conversions of the caller's
/// path, into scratch memory that holds every row at stride d. A decode
/// step reads a history of thousands of rows that the mask mostly hides, so
/// only the rows asked for are widened.
class HeadRows {
public:
  HeadRows(const FloatRows &rows, int64_t head, int64_t d, int64_t count,
           Scratch slot, const IsaKernels &kernels);

  /// Makes rows [t0, t0 + rowsToLoad) readable.
  void load(int64_t t0, int64_t rowsToLoad);
  /// Row 0; rows are stride() floats apart.
  const float *data() const { return first; }
  int64_t stride() const { return rowStride; }

private:
  const FloatRows &rows;
  const int64_t head, d, count;
  const IsaKernels &kernels;
  const float *first;
  int64_t rowStride;
};

/// The conversions of each path (Convert.cpp).
void widenF16Scalar(const uint16_t *in, float *out, int64_t n);
void widenBF16Scalar(const uint16_t *in, float *out, int64_t n);
void narrowF16Scalar(const float *in, uint16_t *out, int64_t n);
void narrowBF16Scalar(const float *in, uint16_t *out, int64_t n);
void widenF16Avx2(const uint16_t *in, float *out, int64_t n);
void widenBF16Avx2(const uint16_t *in, float *out, int64_t n);
void narrowF16Avx2(const float *in, uint16_t *out, int64_t n);
void narrowBF16Avx2(const float *in, uint16_t *out, int64_t n);
void widenF16Avx512(const uint16_t *in, float *out, int64_t n);
void widenBF16Avx512(const uint16_t *in, float *out, int64_t n);
void narrowF16Avx512(const float *in, uint16_t *out, int64_t n);
void narrowBF16Avx512(const float *in, uint16_t *out, int64_t n);
void widenF16Neon(const uint16_t *in, float *out, int64_t n);
void widenBF16Neon(const uint16_t *in, float *out, int64_t n);
void narrowF16Neon(const float *in, uint16_t *out, int64_t n);
void narrowBF16Neon(const float *in, uint16_t *out, int64_t n);

/// The pieces each SIMD path shares between its files.
void gateAvx2(Activation act, float *g, const float *u, int64_t n);
void dequantizeAvx2(const Weights &w, int64_t j, int64_t c0, int64_t len,
                    float *out);
void gemvAvx2(const LinearArgs &args, ColumnClaims &claims);
void gateAvx512(Activation act, float *g, const float *u, int64_t n);
void dequantizeAvx512(const Weights &w, int64_t j, int64_t c0, int64_t len,
                      float *out);
void gemvAvx512(const LinearArgs &args, ColumnClaims &claims);
void gemvNeon(const LinearArgs &args, ColumnClaims &claims);
/// gemvAvx512, with 8- and 4-bit weights by integer dot products.
void gemvAvx512Vnni(const LinearArgs &args, ColumnClaims &claims);
/// The blocked product by integer dot products, for symmetric 8- and 4-bit
/// weights whose groups span whole 64-column blocks; else null.
const GemmKernels *selectGemmAvx512Vnni(const Weights &w);

/// hidden[b] = 1 when key block b (keys [b * blockKeys, (b + 1) *
/// blockKeys)) is hidden from every query row in [i0, i1): masked at -inf,
/// or kHiddenMaskMargin below the row's largest mask value. Such a block
/// is never read; without a mask none is hidden.
void markHiddenKeyBlocks(const AttentionArgs &args, int64_t i0, int64_t i1,
                         int64_t blockKeys, uint8_t *hidden);

/// The attention kernels of each path (Attention*.cpp).
void attentionRowsScalar(const AttentionArgs &args, int64_t kvHead, int64_t i0,
                         int64_t i1);
void attentionRowsAvx2(const AttentionArgs &args, int64_t kvHead, int64_t i0,
                       int64_t i1);
void attentionRowsAvx512(const AttentionArgs &args, int64_t kvHead, int64_t i0,
                         int64_t i1);

/// GemmKernels::packPanel of the float32 paths without a transposing one
/// (nr columns a panel): panel[kk * nr + jj] = dequant(w)[j0 + jj, c0 + kk],
/// a weight row at a time through `dequantize`, scattered into the panel.
void packPanelByRows(DequantizeFn dequantize, int64_t nr, const Weights &w,
                     int64_t j0, int64_t cols, int64_t c0, int64_t kc,
                     float *panel);

/// The scalar helpers of the vector paths.
void dequantizeScalar(const Weights &w, int64_t j, int64_t c0, int64_t len,
                      float *out);
float activationScalar(Activation act, float v);

} // namespace llmc::host::detail

#endif // LLMC_BACKENDS_HOST_KERNELS_DISPATCH_H
