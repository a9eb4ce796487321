//===- GemmAvx512Vnni.cpp - the blocked product by integer dot products ---===//
//
// Prefill with symmetric 8- and 4-bit weights. The float32 path dequantizes
// each panel of weights to float on every call and spends an FMA per
// weight and row of x; here the panel stays in bytes and VPDPBUSD does 64
// multiply-adds an instruction. x becomes two signed byte pieces per
// 64-column block as the matrix-vector path lays it out (PiecesAvx512.h),
// so it keeps about 15 bits of its block's largest value and every dot
// product is an exact integer: per block, a tile's lanes sum the first
// piece's products, shift left by 8, sum the second's onto them, take off
// the excess of the flipped weights (an integer per row and block), and
// only then go to float, times the block's unit of x and the column's
// scale. Groups spanning whole blocks give each block one scale a column.
//
// Panel: per 64-column block, 16 steps of 4 columns, each 32 output
// columns by 4 bytes (a VPDPBUSD operand a 16-column half), the weights as
// unsigned bytes (signed ones flipped by the excess); then the scales,
// per block 32 floats.
//
//===----------------------------------------------------------------------===//

#include "backends/host/kernels/Dispatch.h"
#include "backends/host/kernels/Intrinsics.h"
#include "backends/host/kernels/Scalar.h"

#if defined(__x86_64__)
#include "backends/host/kernels/PiecesAvx512.h"

#include <algorithm>
#include <cstring>

namespace llmc::host::detail {
namespace {

constexpr int64_t kMr = 6, kNr = 32, kKc = 256;
/// x's and the weights' blocks: 64 columns, 16 dword steps.
constexpr int64_t kBlockColumns = 64;
constexpr int64_t kBlocks = kKc / kBlockColumns;
/// A row of the block of x: the two pieces of each block (64 bytes each),
/// then its units (float) and excess sums (int32), padded to cache lines.
constexpr int64_t kPiecesBytes = kBlocks * 2 * kBlockColumns;
constexpr int64_t kXRowBytes =
    (kPiecesBytes + kBlocks * (sizeof(float) + sizeof(int32_t)) + 63) / 64 * 64;
/// The panel's weight bytes, then its scales.
constexpr int64_t kPanelWeightBytes = kKc * kNr;
constexpr int64_t kPanelBytes =
    kPanelWeightBytes + kBlocks * kNr * int64_t(sizeof(float));

} // namespace

/// Lays out a row of x: Excess is what flipping the weights added to each
/// (kByteExcess, kNibbleExcess, or 0 for unsigned ones), so that the row's
/// excess sums, Excess (256 sum p0 + sum p1), come off the dot products.
template <int Excess>
LLMC_AVX512_VNNI static void layoutPieceRow(const float *x, int64_t kc,
                                            void *row) {
  int8_t *pieces = static_cast<int8_t *>(row);
  float *units = reinterpret_cast<float *>(pieces + kPiecesBytes);
  int32_t *excess = reinterpret_cast<int32_t *>(units + kBlocks);
  for (int64_t b = 0; b < kc / kBlockColumns; ++b) {
    __m512 v[4];
    const PieceScale scale = loadPieceBlock(x, kc, b, v);
    int8_t *out = pieces + b * 2 * kBlockColumns;
    for (int q = 0; q < 4; ++q) {
      __m128i first, second;
      splitPieces(v[q], scale, first, second);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 16 * q), first);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 64 + 16 * q), second);
    }
    units[b] = scale.unit;
    const int32_t sum0 = _mm512_reduce_add_epi32(sumPieceLanes(out));
    const int32_t sum1 = _mm512_reduce_add_epi32(sumPieceLanes(out + 64));
    excess[b] = Excess * (sum0 * int32_t(kPieceRadix) + sum1);
  }
}

/// Rows [0, count) of w's columns [c0, c0 + kc) as unsigned bytes, kc
/// bytes a row: 8-bit weights flipped to q + 128 when signed, 4-bit ones
/// unpacked to a byte each (the low nibble first) and flipped to n + 8.
template <WeightType T>
LLMC_AVX512 static void unpackRows(const Weights &w, int64_t j0, int64_t count,
                                   int64_t c0, int64_t kc, uint8_t *out) {
  constexpr bool k4Bit = T == WeightType::I4 || T == WeightType::U4;
  constexpr bool kSigned = T == WeightType::I4 || T == WeightType::I8;
  for (int64_t r = 0; r < count; ++r) {
    const uint8_t *row = rowOf(w, j0 + r);
    for (int64_t c = 0; c < kc; c += 64) {
      __m512i bytes;
      if (k4Bit) {
        const __m512i pairs = _mm512_cvtepu8_epi16(_mm256_loadu_si256(
            reinterpret_cast<const __m256i *>(row + (c0 + c) / 2)));
        bytes = _mm512_or_si512(
            _mm512_and_si512(pairs, _mm512_set1_epi16(0x000f)),
            _mm512_and_si512(_mm512_slli_epi16(pairs, 4),
                             _mm512_set1_epi16(0x0f00)));
        if (kSigned)
          bytes = _mm512_xor_si512(bytes, _mm512_set1_epi8(kNibbleExcess));
      } else {
        bytes = _mm512_loadu_si512(row + c0 + c);
        if (kSigned)
          bytes = _mm512_xor_si512(bytes, _mm512_set1_epi8(char(kByteExcess)));
      }
      _mm512_storeu_si512(out + r * kc + c, bytes);
    }
  }
}

template <WeightType T>
LLMC_AVX512 static void packPanelVnni(const Weights &w, int64_t j0,
                                      int64_t cols, int64_t c0, int64_t kc,
                                      void *panel) {
  uint8_t *bytes = static_cast<uint8_t *>(panel);
  float *scales = reinterpret_cast<float *>(bytes + kPanelWeightBytes);
  uint8_t *rows = getScratchAs<uint8_t>(Scratch::Rows, 16 * kc);
  const int64_t groupSize = getGroupSize(w);
  for (int64_t jj = 0; jj < kNr; jj += 16) {
    const int64_t count = std::clamp<int64_t>(cols - jj, 0, 16);
    unpackRows<T>(w, j0 + jj, count, c0, kc, rows);
    // Dword s of a row (columns 4s .. 4s + 3) goes to step s, lane jj + r.
    for (int64_t b = 0; b < kc / kBlockColumns; ++b)
      transpose16<FloatType::F32>(rows, b * 16, kc / 4, count,
                                  reinterpret_cast<float *>(bytes) +
                                      b * 16 * kNr + jj,
                                  kNr);
    for (int64_t r = 0; r < 16; ++r)
      for (int64_t b = 0; b < kc / kBlockColumns; ++b)
        scales[b * kNr + jj + r] =
            r < count ? readParam(w.scaleType, scaleRowOf(w, j0 + jj + r),
                                  (c0 + b * kBlockColumns) / groupSize, 1.0f)
                      : 0.0f;
  }
}

/// The dot products of a tile's rows with one piece of block b, onto acc.
LLMC_AVX512_VNNI LLMC_INLINE void dotPiece(const uint8_t *xb,
                                           const uint8_t *weights, int64_t b,
                                           int piece, __m512i (&acc)[kMr][2]) {
  const uint8_t *x = xb + b * 2 * kBlockColumns + piece * kBlockColumns;
#pragma GCC unroll 16
  for (int s = 0; s < 16; ++s) {
    const __m512i w0 = _mm512_load_si512(weights + s * 4 * kNr);
    const __m512i w1 = _mm512_load_si512(weights + s * 4 * kNr + 64);
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      int32_t quad;
      std::memcpy(&quad, x + r * kXRowBytes + 4 * s, sizeof(quad));
      const __m512i xv = _mm512_set1_epi32(quad);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], w0, xv);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], w1, xv);
    }
  }
}

LLMC_AVX512_VNNI static void microkernelVnni(const void *xbBytes,
                                             const void *panel, int64_t kc,
                                             float *c, int64_t cStride,
                                             bool load, const float *bias) {
  const uint8_t *xb = static_cast<const uint8_t *>(xbBytes);
  const uint8_t *bytes = static_cast<const uint8_t *>(panel);
  const float *scales =
      reinterpret_cast<const float *>(bytes + kPanelWeightBytes);
  __m512 total[kMr][2];
  startTile(c, cStride, load, total);
  for (int64_t b = 0; b < kc / kBlockColumns; ++b) {
    const uint8_t *weights = bytes + b * kBlockColumns * kNr;
    __m512i acc[kMr][2];
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r)
      acc[r][0] = acc[r][1] = _mm512_setzero_si512();
    dotPiece(xb, weights, b, 0, acc);
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      acc[r][0] = _mm512_slli_epi32(acc[r][0], kPieceRadixBits);
      acc[r][1] = _mm512_slli_epi32(acc[r][1], kPieceRadixBits);
    }
    dotPiece(xb, weights, b, 1, acc);
    const __m512 scale0 = _mm512_load_ps(scales + b * kNr);
    const __m512 scale1 = _mm512_load_ps(scales + b * kNr + 16);
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      const uint8_t *row = xb + r * kXRowBytes + kPiecesBytes;
      float unit;
      int32_t excess;
      std::memcpy(&unit, row + b * sizeof(float), sizeof(unit));
      std::memcpy(&excess, row + kBlocks * sizeof(float) + b * sizeof(int32_t),
                  sizeof(excess));
      const __m512 u = _mm512_set1_ps(unit);
      const __m512i e = _mm512_set1_epi32(excess);
      total[r][0] = _mm512_fmadd_ps(
          _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][0], e)), u),
          scale0, total[r][0]);
      total[r][1] = _mm512_fmadd_ps(
          _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][1], e)), u),
          scale1, total[r][1]);
    }
  }
  finishTile(total, bias, c, cStride);
}

template <WeightType T, int Excess>
static const GemmKernels *getGemmVnni() {
  static const GemmKernels kernels = {kMr,
                                      kNr,
                                      kKc,
                                      kXRowBytes,
                                      kPanelBytes,
                                      layoutPieceRow<Excess>,
                                      packPanelVnni<T>,
                                      microkernelVnni};
  return &kernels;
}

const GemmKernels *selectGemmAvx512Vnni(const Weights &w) {
  if (hasZeroPoint(w) || getGroupSize(w) % kBlockColumns != 0)
    return nullptr;
  switch (w.type) {
  case WeightType::I8:
    return getGemmVnni<WeightType::I8, kByteExcess>();
  case WeightType::U8:
    return getGemmVnni<WeightType::U8, 0>();
  case WeightType::I4:
    return getGemmVnni<WeightType::I4, kNibbleExcess>();
  case WeightType::U4:
    return getGemmVnni<WeightType::U4, 0>();
  default:
    return nullptr;
  }
}

} // namespace llmc::host::detail

#else

namespace llmc::host::detail {
const GemmKernels *selectGemmAvx512Vnni(const Weights &) { return nullptr; }
} // namespace llmc::host::detail

#endif
