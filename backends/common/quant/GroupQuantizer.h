//===- GroupQuantizer.h - group-wise weight-only quantization --*- C++ -*-===//
//
// Quantizes a Linear weight [N, K] (N output channels, K the reduction
// dimension) to 4- or 8-bit integers with one scale (and, asymmetric, one
// zero point) per group of G consecutive elements along K; G = K is
// per-channel quantization. Everything is deterministic: the same weights
// and scheme give the same bytes on every machine, because the binary and
// the reference interpreter must read identical values.
//
// With b bits, per group g of row n (arithmetic in float32):
//
//   symmetric:  qmax  = 2^(b-1) - 1                   (7 or 127)
//               scale = max|w| / qmax
//               q     = clamp(round(w / scale), -qmax, qmax)    stored signed
//   asymmetric: lo = min(min w, 0), hi = max(max w, 0)
//               scale = (hi - lo) / (2^b - 1)          (15 or 255 levels)
//               zp    = clamp(round(-lo / scale), 0, 2^b - 1)
//               q     = clamp(round(w / scale) + zp, 0, 2^b - 1)  unsigned
//   dequantized w' = (q - zp) * scale                  (zp = 0 symmetric)
//
// `round` rounds half away from zero (C's roundf, llama.cpp's choice). The
// scale is rounded to its storage type (f32, f16 or bf16, nearest-even)
// BEFORE q is computed, so dequantizing with the stored scale reproduces
// exactly the values the quantizer meant. An all-zero group gets scale 1; a
// scale that underflows its storage type becomes the type's smallest
// positive value. The asymmetric range always includes 0, so the zero point
// never clamps and 0 stays exact.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_QUANT_GROUPQUANTIZER_H
#define LLMC_BACKENDS_COMMON_QUANT_GROUPQUANTIZER_H

#include "backends/common/quant/FloatRounding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace llmc::quant {

/// How a weight is quantized.
struct QuantScheme {
  /// 4 or 8.
  int64_t bits = 4;
  /// Elements per group along K; 0 means per-channel (one group spans K).
  int64_t groupSize = 64;
  bool asymmetric = false;
  /// The type the scales are stored in (the activation type of the matmul
  /// that reads them).
  FloatType scaleType = FloatType::F32;

  /// The storage range of quantized values: [-qmax, qmax] symmetric,
  /// [0, 2^bits - 1] asymmetric.
  int64_t minValue() const;
  int64_t maxValue() const;

  bool operator==(const QuantScheme &other) const {
    return bits == other.bits && groupSize == other.groupSize &&
           asymmetric == other.asymmetric && scaleType == other.scaleType;
  }
};

/// A quantized [rows, cols] weight.
struct QuantizedTensor {
  int64_t rows = 0;
  int64_t cols = 0;
  /// The group size in effect (cols for per-channel) and groups per row.
  int64_t groupSize = 0;
  int64_t groups = 0;
  QuantScheme scheme;
  /// [rows, cols] values, one per byte: two's complement when symmetric,
  /// unsigned when asymmetric. See packInt4 for the 4-bit storage format.
  std::vector<uint8_t> values;
  /// [rows, groups], each exactly representable in `scheme.scaleType`.
  std::vector<float> scales;
  /// [rows, groups] zero points in [0, 2^bits - 1]; empty when symmetric.
  std::vector<uint8_t> zeroPoints;

  /// The integer at (row, col), sign-extended when symmetric.
  int64_t getValue(int64_t row, int64_t col) const;
};

/// Checks `scheme` against a weight with `cols` columns: 4 or 8 bits, and a
/// group size that is 0 or divides `cols`. Errors say what is wrong.
llvm::Error checkScheme(const QuantScheme &scheme, int64_t cols);

/// Quantizes `weight`, row-major [rows, cols]. Fails on a bad scheme, a
/// size mismatch or a non-finite weight.
llvm::Expected<QuantizedTensor> quantize(llvm::ArrayRef<float> weight,
                                         int64_t rows, int64_t cols,
                                         const QuantScheme &scheme);

/// The float32 values `quantized` stands for: (q - zp) * scale.
std::vector<float> dequantize(const QuantizedTensor &quantized);

/// Packs 4-bit values (one per byte, as in QuantizedTensor::values) two per
/// byte, row by row: element 2j of a row goes to the low nibble of byte j,
/// element 2j + 1 to its high nibble; an odd row ends in a byte whose high
/// nibble is 0. Signed values keep their low four bits (two's complement).
/// The result is [rows, ceil(cols / 2)] bytes.
std::vector<uint8_t> packInt4(llvm::ArrayRef<uint8_t> values, int64_t rows,
                              int64_t cols);
/// Inverts packInt4; with `isSigned`, nibbles are sign-extended.
std::vector<uint8_t> unpackInt4(llvm::ArrayRef<uint8_t> packed, int64_t rows,
                                int64_t cols, bool isSigned);

} // namespace llmc::quant

#endif // LLMC_BACKENDS_COMMON_QUANT_GROUPQUANTIZER_H
