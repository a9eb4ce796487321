//===- Kernels.h - the compute kernels of the host CPU backend --*- C++ -*-===//
//
// The host device runs a compiled model by calling these kernels. They take
// float32 activations (row-major, row strides in elements) and weights in
// their stored form (float, or integers with group-wise scales and zero
// points), which they dequantize on the fly.
//
// Every kernel comes in a scalar, an AVX2 and an AVX-512 form; the plain
// entry points use selectIsa(), the overloads taking an Isa run that path
// (lowered to what the host supports) so tests can cover each. Each output
// element is computed by one thread, with a reduction order fixed by the
// shapes alone: results never depend on the thread count, and the paths
// differ from each other by rounding only.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_KERNELS_H
#define LLMC_BACKENDS_HOST_KERNELS_KERNELS_H

#include "backends/host/kernels/CpuFeatures.h"
#include "backends/host/kernels/WorkerPool.h"

#include "absl/types/span.h"

#include <cstdint>

namespace llmc::host {

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

/// The stored element type of a weight matrix. I4/U4 pack two per byte, the
/// low nibble holding the lower column.
enum class WeightType { F32, F16, BF16, I8, U8, I4, U4 };

/// The element type of a scale (F32, F16, BF16) or zero point (any; None
/// means symmetric) matrix. I4/U4 pack as WeightType's.
enum class ParamType { None, F32, F16, BF16, I8, U8, I4, U4 };

/// A weight matrix w[n, k] as stored.
struct Weights {
  WeightType type;
  const void *data;
  int64_t n, k;
  int64_t rowStrideBytes;
  // Quantized types only: dequant(w)[j, c] = (q[j, c] - zp[j, c / g]) *
  // scale[j, c / g], the difference exact, the product in float32. A missing
  // scale is 1.
  const void *scale = nullptr;
  ParamType scaleType = ParamType::None;
  int64_t scaleRowStrideBytes = 0;
  const void *zp = nullptr;
  ParamType zpType = ParamType::None;
  int64_t zpRowStrideBytes = 0;
  /// k / (columns of scale), which divides k; 0 means k (one group a row).
  int64_t groupSize = 0;
};

/// Whether `type` is one of the integer types.
bool isQuantized(WeightType type);

/// The bits of one stored element (0 for ParamType::None).
int64_t getElementBits(WeightType type);
int64_t getElementBits(ParamType type);

/// The bytes of weight and parameter data that `w` spans (what a matrix-
/// vector product must read).
int64_t getWeightBytes(const Weights &w);

/// Row `j` of dequant(w), as float32: out[0, w.k).
void dequantizeRow(const Weights &w, int64_t j, float *out);

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// y[i, j] = sum_c x[i, c] * dequant(w)[j, c] + bias[j] (+ y[i, j] if
/// `accumulate`), for i < m, j < w.n. `bias` may be null.
///
/// Up to 4 rows of x (decode) stream the weights once, converting quantized
/// ones to exact integers in float32 and applying scales and zero points
/// once per group (s * (sum x q - zp * sum x)); up to 16 rows stream them
/// once per 4. More rows run a blocked GEMM on weights dequantized to
/// float32 panels, x staying float32. With AVX-512 VNNI, 8- and 4-bit
/// weights take integer dot products instead, with x in two byte pieces
/// per 64-column block (about 15 bits of the block's largest value): in
/// the matrix-vector path for any group size that tiles the blocks, in the
/// blocked one when k is whole blocks and the group a multiple of 16
/// (zero points or not), where x against 4-bit weights takes one piece (8
/// bits, as llama.cpp's Q4_0 products take it).
void linear(const float *x, int64_t m, int64_t xStride, const Weights &w,
            const float *bias, float *y, int64_t yStride, bool accumulate,
            WorkerPool &pool);
void linear(const float *x, int64_t m, int64_t xStride, const Weights &w,
            const float *bias, float *y, int64_t yStride, bool accumulate,
            WorkerPool &pool, Isa isa);

/// Whether linearProducts takes `a` and `b` together: the same type, k,
/// group size and zero-point presence, which decide how x is laid out.
bool haveSameLayout(const Weights &a, const Weights &b);

/// One product of linearProducts: y = x dequant(w)^T + bias (+ y if
/// `accumulate`), as linear computes it; `bias` may be null.
struct LinearProduct {
  const Weights *w;
  const float *bias;
  float *y;
  int64_t yStride;
  bool accumulate;
};

/// linear for each product, all of the same x, with weights of the same
/// layout (haveSameLayout). With few
/// rows of x, x is laid out once and the threads share out the rows of all
/// the products in one pass: small products (a layer's q, k and v) then pay
/// one start of the weight stream and one wait for the threads, not one
/// each. Each output is computed as linear computes it.
void linearProducts(const float *x, int64_t m, int64_t xStride,
                    absl::Span<const LinearProduct> products, WorkerPool &pool);
void linearProducts(const float *x, int64_t m, int64_t xStride,
                    absl::Span<const LinearProduct> products, WorkerPool &pool,
                    Isa isa);

enum class Activation { SiLU, GELU, GELUTanh };

/// h[i, j] = act(x gate^T)[i, j] * (x up^T)[i, j]; gate and up share shape
/// and type. Needs no m x n temporaries.
void gatedLinear(const float *x, int64_t m, int64_t xStride,
                 const Weights &gate, const Weights &up, Activation act,
                 float *h, int64_t hStride, WorkerPool &pool);
void gatedLinear(const float *x, int64_t m, int64_t xStride,
                 const Weights &gate, const Weights &up, Activation act,
                 float *h, int64_t hStride, WorkerPool &pool, Isa isa);

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// The element type of attention's keys and values.
enum class FloatType { F32, F16, BF16 };

/// Rows of float elements as stored, `stride` elements apart.
struct FloatRows {
  FloatType type = FloatType::F32;
  const void *data = nullptr;
  int64_t stride = 0;
};

/// A key whose mask value lies this far below the largest of its row's is
/// hidden: its weight, exp(score - max), underflows to zero in float32
/// (below e^-104) unless its scaled q.k exceeds that of the row's visible
/// keys by more than 8000, far beyond the scores of trained models.
inline constexpr float kHiddenMaskMargin = 8192.0f;

/// Attention with grouped keys and values: q [lq, hq*d], k and v [lk, hkv*d]
/// as stored (a decode step reads a long f16 history: the kernel widens
/// only the rows the mask lets through), an optional additive mask [lq, lk]
/// (row stride maskStride), and `scale` on the scores, which a positive
/// `softcap` then bounds, softcap * tanh(s / softcap); query head h uses
/// key/value head h / (hq / hkv). Softmax runs over the keys; a row whose
/// every score is -inf gives o = 0. A key whose mask lies kHiddenMaskMargin
/// or more below the largest of its row's mask is hidden like one at -inf
/// (never read): the finite masked score of the llm masks (-10000) hides
/// the empty slots of a decode step's cache. o [lq, hq*d]. Strides are in
/// elements.
void attention(const float *q, int64_t qStride, const FloatRows &k,
               const FloatRows &v, const float *mask, int64_t maskStride,
               int64_t lq, int64_t lk, int64_t hq, int64_t hkv, int64_t d,
               float scale, float softcap, float *o, int64_t oStride,
               WorkerPool &pool);
void attention(const float *q, int64_t qStride, const FloatRows &k,
               const FloatRows &v, const float *mask, int64_t maskStride,
               int64_t lq, int64_t lk, int64_t hq, int64_t hkv, int64_t d,
               float scale, float softcap, float *o, int64_t oStride,
               WorkerPool &pool, Isa isa);

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

// Widening is exact (a signalling NaN comes out quiet, as F16C does);
// narrowing rounds to nearest even, keeps subnormals, overflows to infinity
// and keeps NaNs NaN (quiet, with sign and top payload bits). Every path
// gives the same bits.
void widenF16(const uint16_t *in, float *out, int64_t n);
void widenBF16(const uint16_t *in, float *out, int64_t n);
void narrowF16(const float *in, uint16_t *out, int64_t n);
void narrowBF16(const float *in, uint16_t *out, int64_t n);
void widenF16(const uint16_t *in, float *out, int64_t n, Isa isa);
void widenBF16(const uint16_t *in, float *out, int64_t n, Isa isa);
void narrowF16(const float *in, uint16_t *out, int64_t n, Isa isa);
void narrowBF16(const float *in, uint16_t *out, int64_t n, Isa isa);

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_KERNELS_KERNELS_H
