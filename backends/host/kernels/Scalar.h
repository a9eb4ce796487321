//===- Scalar.h - element helpers shared by every path ----------*- C++ -*-===//
//
// Reading one stored element or parameter in portable integer code, with
// the 16-bit float conversions of plugins/Float16.h. The SIMD paths use
// them for tails and odd layouts, and match them bit for bit: widening
// exactly (F16C quiets a signalling NaN, and so does Float16.h), narrowing
// to nearest even with subnormals kept.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_SCALAR_H
#define LLMC_BACKENDS_HOST_KERNELS_SCALAR_H

#include "backends/host/kernels/Kernels.h"
#include "plugins/Float16.h"

#include <cstdint>
#include <cstring>

namespace llmc::host::detail {

/// Element `index` of a row of 4-bit integers (low nibble first).
inline int32_t readNibble(const uint8_t *row, int64_t index, bool isSigned) {
  int32_t nibble = (row[index >> 1] >> ((index & 1) * 4)) & 0xf;
  return isSigned ? (nibble ^ 8) - 8 : nibble;
}

/// Element `c` of a row of quantized weights.
inline int32_t readQuant(WeightType type, const uint8_t *row, int64_t c) {
  switch (type) {
  case WeightType::I8:
    return int8_t(row[c]);
  case WeightType::U8:
    return row[c];
  case WeightType::I4:
    return readNibble(row, c, true);
  case WeightType::U4:
    return readNibble(row, c, false);
  default:
    return 0;
  }
}

/// Element `index` of a row of parameters, as float32 (exact); `fallback`
/// for None.
inline float readParam(ParamType type, const uint8_t *row, int64_t index,
                       float fallback) {
  uint16_t bits;
  switch (type) {
  case ParamType::None:
    return fallback;
  case ParamType::F32: {
    float value;
    std::memcpy(&value, row + 4 * index, sizeof(value));
    return value;
  }
  case ParamType::F16:
    std::memcpy(&bits, row + 2 * index, sizeof(bits));
    return halfToFloat(bits);
  case ParamType::BF16:
    std::memcpy(&bits, row + 2 * index, sizeof(bits));
    return bfloat16ToFloat(bits);
  case ParamType::I8:
    return float(int8_t(row[index]));
  case ParamType::U8:
    return float(row[index]);
  case ParamType::I4:
    return float(readNibble(row, index, true));
  case ParamType::U4:
    return float(readNibble(row, index, false));
  }
  return fallback;
}

/// The columns of a quantization group (the whole row when unset).
inline int64_t getGroupSize(const Weights &w) {
  return w.groupSize > 0 ? w.groupSize : w.k;
}

/// One dequantized weight: (q - zp) * scale, the difference and the product
/// rounded to float32 (exact for integer zero points).
inline float dequantValue(int32_t q, float zp, float scale) {
  return (float(q) - zp) * scale;
}

/// Whether the zero point (or the scale) is stored; None means symmetric.
inline bool hasZeroPoint(const Weights &w) {
  return w.zp && w.zpType != ParamType::None;
}
inline bool hasScale(const Weights &w) {
  return w.scale && w.scaleType != ParamType::None;
}

inline const uint8_t *rowOf(const Weights &w, int64_t j) {
  return static_cast<const uint8_t *>(w.data) + j * w.rowStrideBytes;
}
inline const uint8_t *scaleRowOf(const Weights &w, int64_t j) {
  return hasScale(w)
             ? static_cast<const uint8_t *>(w.scale) + j * w.scaleRowStrideBytes
             : nullptr;
}
inline const uint8_t *zpRowOf(const Weights &w, int64_t j) {
  return hasZeroPoint(w)
             ? static_cast<const uint8_t *>(w.zp) + j * w.zpRowStrideBytes
             : nullptr;
}

} // namespace llmc::host::detail

#endif // LLMC_BACKENDS_HOST_KERNELS_SCALAR_H
