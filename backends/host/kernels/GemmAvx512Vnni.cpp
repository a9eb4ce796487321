//===- GemmAvx512Vnni.cpp - the blocked product by integer dot products ---===//
//
// Prefill with 8- and 4-bit weights. The float32 path dequantizes each
// panel of weights to float on every call and spends an FMA per weight and
// row of x; here the panel stays in bytes and VPDPBUSD does 64
// multiply-adds an instruction. Every dot product is an exact integer.
//
// x goes in fixed point per 64-column block. Against 8-bit weights it
// becomes two signed byte pieces as the matrix-vector path lays it out
// (PiecesAvx512.h), keeping about 15 bits of its block's largest value.
// Against 4-bit weights one piece, 8 bits, as llama.cpp quantizes x per
// block of 32 for its Q4_0 products: half the dot products, and an error
// (at most half a unit, 1/254 of the block's largest |x|, per element)
// well below the weights' own, which have 16 levels.
//
// The K columns go in chunks of 16, 32 or 64 (the largest that divides the
// weights' group, so that a chunk has one scale and zero point a column:
// GGUF's Q4_0, Q8_0 and Q4_1 have groups of 32). Per chunk, a tile's lanes
// sum the first piece's products (with two pieces, shift left by 8 and sum
// the second's onto them), and only then go to float, times the block's
// unit of x and the column's scale. What the stored bytes add to the
// weights comes off first: for symmetric weights, the excess of their flip
// to unsigned bytes times the chunk's sum of x, in integers, exactly; with
// zero points, that excess plus the zero point (a float: Q4_1's is), times
// the same sum, in float32, which holds the few bits a float zero point
// has.
//
// Panel: per 64-column block, 16 steps of 4 columns, each 32 output
// columns by 4 bytes (a VPDPBUSD operand a 16-column half), the weights as
// unsigned bytes (signed ones flipped by the excess); then per chunk the
// 32 columns' scales, then, with zero points, per chunk the 32 columns'
// excess plus zero point.
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
/// The panel's weight bytes.
constexpr int64_t kPanelWeightBytes = kKc * kNr;

/// What the flip of weights of type T to unsigned bytes (unpackRows) adds
/// to each: signed ones are shifted up, unsigned ones stay.
template <WeightType T>
constexpr int kFlipExcess = T == WeightType::I4   ? kNibbleExcess
                            : T == WeightType::I8 ? kByteExcess
                                                  : 0;

/// The layout of a kernel whose chunks have Chunk columns and whose x has
/// Pieces byte pieces a value.
template <int Chunk, int Pieces> struct ChunkLayout {
  static_assert(Chunk == 16 || Chunk == 32 || Chunk == 64);
  static_assert(Pieces == 1 || Pieces == 2);
  static constexpr int64_t kChunks = kKc / Chunk;
  static constexpr int kSteps = Chunk / 4;
  /// The pieces of a row of the block of x: 64 bytes each, per block.
  static constexpr int64_t kPiecesBytes = kBlocks * Pieces * kBlockColumns;
  /// A row of the block of x: the pieces, then the blocks' units (float:
  /// what one unit of the last piece is worth) and the chunks' sums of x
  /// in those units (int32: with two pieces, 256 times the first piece's
  /// sum plus the second's), padded to cache lines.
  static constexpr int64_t kXRowBytes =
      (kPiecesBytes + kBlocks * sizeof(float) + kChunks * sizeof(int32_t) +
       63) /
      64 * 64;
  /// The panel: the weights, then per chunk 32 scales and, with zero
  /// points, 32 excesses plus zero points.
  static constexpr int64_t panelBytes(bool zeroPoint) {
    return kPanelWeightBytes +
           (zeroPoint ? 2 : 1) * kChunks * kNr * int64_t(sizeof(float));
  }
};

} // namespace

/// Lays out a row of x: its pieces, units and chunk sums.
template <int Chunk, int Pieces>
LLMC_AVX512_VNNI static void layoutPieceRow(const float *x, int64_t kc,
                                            void *row) {
  using Layout = ChunkLayout<Chunk, Pieces>;
  int8_t *pieces = static_cast<int8_t *>(row);
  float *units = reinterpret_cast<float *>(pieces + Layout::kPiecesBytes);
  int32_t *sums = reinterpret_cast<int32_t *>(units + kBlocks);
  for (int64_t b = 0; b < kc / kBlockColumns; ++b) {
    __m512 v[4];
    const PieceScale scale = loadPieceBlock(x, kc, b, v);
    int8_t *out = pieces + b * Pieces * kBlockColumns;
    for (int q = 0; q < 4; ++q) {
      __m128i first, second;
      splitPieces(v[q], scale, first, second);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 16 * q), first);
      if (Pieces == 2)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + 64 + 16 * q),
                         second);
    }
    units[b] = Pieces == 2 ? scale.unit : scale.unit * kPieceRadix;
    // Dword lane l of a piece's lane sums holds columns 4l .. 4l + 3.
    alignas(64) int32_t lanes0[16], lanes1[16] = {};
    _mm512_store_si512(lanes0, sumPieceLanes(out));
    if (Pieces == 2)
      _mm512_store_si512(lanes1, sumPieceLanes(out + 64));
    constexpr int kPerBlock = kBlockColumns / Chunk;
    for (int h = 0; h < kPerBlock; ++h) {
      int32_t sum0 = 0, sum1 = 0;
      for (int l = h * Layout::kSteps; l < (h + 1) * Layout::kSteps; ++l) {
        sum0 += lanes0[l];
        sum1 += lanes1[l];
      }
      sums[b * kPerBlock + h] =
          Pieces == 2 ? sum0 * int32_t(kPieceRadix) + sum1 : sum0;
    }
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

template <WeightType T, int Chunk, bool ZeroPoint>
LLMC_AVX512 static void packPanelVnni(const Weights &w, int64_t j0,
                                      int64_t cols, int64_t c0, int64_t kc,
                                      void *panel) {
  // The panel's layout does not depend on x's pieces.
  using Layout = ChunkLayout<Chunk, 1>;
  uint8_t *bytes = static_cast<uint8_t *>(panel);
  float *scales = reinterpret_cast<float *>(bytes + kPanelWeightBytes);
  float *offsets = scales + Layout::kChunks * kNr;
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
      for (int64_t q = 0; q < kc / Chunk; ++q) {
        const int64_t j = j0 + jj + r, group = (c0 + q * Chunk) / groupSize;
        scales[q * kNr + jj + r] =
            r < count ? readParam(w.scaleType, scaleRowOf(w, j), group, 1.0f)
                      : 0.0f;
        if (ZeroPoint)
          offsets[q * kNr + jj + r] =
              r < count ? float(kFlipExcess<T>) +
                              readParam(w.zpType, zpRowOf(w, j), group, 0.0f)
                        : 0.0f;
      }
  }
}

/// The dot products of a tile's rows with one piece of x over the kSteps
/// steps of a chunk, onto acc: x points at the chunk's first column of the
/// piece in the first row, weights at the chunk's first step.
template <int Chunk, int Pieces>
LLMC_AVX512_VNNI LLMC_INLINE void dotPiece(const uint8_t *x,
                                           const uint8_t *weights,
                                           __m512i (&acc)[kMr][2]) {
  using Layout = ChunkLayout<Chunk, Pieces>;
#pragma GCC unroll 16
  for (int s = 0; s < Layout::kSteps; ++s) {
    const __m512i w0 = _mm512_load_si512(weights + s * 4 * kNr);
    const __m512i w1 = _mm512_load_si512(weights + s * 4 * kNr + 64);
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      int32_t quad;
      std::memcpy(&quad, x + r * Layout::kXRowBytes + 4 * s, sizeof(quad));
      const __m512i xv = _mm512_set1_epi32(quad);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], w0, xv);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], w1, xv);
    }
  }
}

/// Excess is what the flip added to symmetric weights (ignored with zero
/// points, whose panel holds it per column).
template <int Chunk, int Pieces, int Excess, bool ZeroPoint>
LLMC_AVX512_VNNI static void microkernelVnni(const void *xbBytes,
                                             const void *panel, int64_t kc,
                                             float *c, int64_t cStride,
                                             bool load, const float *bias) {
  using Layout = ChunkLayout<Chunk, Pieces>;
  constexpr int kPerBlock = kBlockColumns / Chunk;
  const uint8_t *xb = static_cast<const uint8_t *>(xbBytes);
  const uint8_t *bytes = static_cast<const uint8_t *>(panel);
  const float *scales =
      reinterpret_cast<const float *>(bytes + kPanelWeightBytes);
  const float *offsets = scales + Layout::kChunks * kNr;
  __m512 total[kMr][2];
  startTile(c, cStride, load, total);
  for (int64_t b = 0; b < kc / kBlockColumns; ++b) {
    for (int h = 0; h < kPerBlock; ++h) {
      const int64_t q = b * kPerBlock + h;
      const uint8_t *weights = bytes + q * Chunk * kNr;
      const uint8_t *x = xb + b * Pieces * kBlockColumns + h * Chunk;
      __m512i acc[kMr][2];
#pragma GCC unroll 6
      for (int r = 0; r < kMr; ++r)
        acc[r][0] = acc[r][1] = _mm512_setzero_si512();
      dotPiece<Chunk, Pieces>(x, weights, acc);
      if (Pieces == 2) {
#pragma GCC unroll 6
        for (int r = 0; r < kMr; ++r) {
          acc[r][0] = _mm512_slli_epi32(acc[r][0], kPieceRadixBits);
          acc[r][1] = _mm512_slli_epi32(acc[r][1], kPieceRadixBits);
        }
        dotPiece<Chunk, Pieces>(x + kBlockColumns, weights, acc);
      }
      const __m512 scale0 = _mm512_load_ps(scales + q * kNr);
      const __m512 scale1 = _mm512_load_ps(scales + q * kNr + 16);
#pragma GCC unroll 6
      for (int r = 0; r < kMr; ++r) {
        const uint8_t *row =
            xb + r * Layout::kXRowBytes + Layout::kPiecesBytes;
        float unit;
        int32_t sum;
        std::memcpy(&unit, row + b * sizeof(float), sizeof(unit));
        std::memcpy(&sum, row + kBlocks * sizeof(float) + q * sizeof(int32_t),
                    sizeof(sum));
        const __m512 u = _mm512_set1_ps(unit);
        __m512 dot0, dot1;
        if (ZeroPoint) {
          const __m512 s = _mm512_set1_ps(float(sum));
          dot0 = _mm512_fnmadd_ps(_mm512_load_ps(offsets + q * kNr), s,
                                  _mm512_cvtepi32_ps(acc[r][0]));
          dot1 = _mm512_fnmadd_ps(_mm512_load_ps(offsets + q * kNr + 16), s,
                                  _mm512_cvtepi32_ps(acc[r][1]));
        } else {
          const __m512i e = _mm512_set1_epi32(Excess * sum);
          dot0 = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][0], e));
          dot1 = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][1], e));
        }
        total[r][0] =
            _mm512_fmadd_ps(_mm512_mul_ps(dot0, u), scale0, total[r][0]);
        total[r][1] =
            _mm512_fmadd_ps(_mm512_mul_ps(dot1, u), scale1, total[r][1]);
      }
    }
  }
  finishTile(total, bias, c, cStride);
}

template <WeightType T, int Chunk, bool ZeroPoint>
static const GemmKernels *getGemmVnni() {
  // With zero points the panel carries the excess per column.
  constexpr int kExcess = ZeroPoint ? 0 : kFlipExcess<T>;
  constexpr int kPieces =
      T == WeightType::I4 || T == WeightType::U4 ? 1 : 2;
  using Layout = ChunkLayout<Chunk, kPieces>;
  static const GemmKernels kernels = {
      kMr,
      kNr,
      kKc,
      Layout::kXRowBytes,
      Layout::panelBytes(ZeroPoint),
      layoutPieceRow<Chunk, kPieces>,
      packPanelVnni<T, Chunk, ZeroPoint>,
      microkernelVnni<Chunk, kPieces, kExcess, ZeroPoint>};
  return &kernels;
}

template <WeightType T, int Chunk>
static const GemmKernels *selectGemmVnni(const Weights &w) {
  return hasZeroPoint(w) ? getGemmVnni<T, Chunk, true>()
                         : getGemmVnni<T, Chunk, false>();
}

template <int Chunk>
static const GemmKernels *selectGemmVnniOfChunk(const Weights &w) {
  switch (w.type) {
  case WeightType::I8:
    return selectGemmVnni<WeightType::I8, Chunk>(w);
  case WeightType::U8:
    return selectGemmVnni<WeightType::U8, Chunk>(w);
  case WeightType::I4:
    return selectGemmVnni<WeightType::I4, Chunk>(w);
  case WeightType::U4:
    return selectGemmVnni<WeightType::U4, Chunk>(w);
  default:
    return nullptr;
  }
}

const GemmKernels *selectGemmAvx512Vnni(const Weights &w) {
  // x's pieces go by whole 64-column blocks, and the weights' rows are
  // read in them.
  if (w.k % kBlockColumns != 0)
    return nullptr;
  const int64_t groupSize = getGroupSize(w);
  if (groupSize % 64 == 0)
    return selectGemmVnniOfChunk<64>(w);
  if (groupSize % 32 == 0)
    return selectGemmVnniOfChunk<32>(w);
  if (groupSize % 16 == 0)
    return selectGemmVnniOfChunk<16>(w);
  return nullptr;
}

} // namespace llmc::host::detail

#else

namespace llmc::host::detail {
const GemmKernels *selectGemmAvx512Vnni(const Weights &) { return nullptr; }
} // namespace llmc::host::detail

#endif
