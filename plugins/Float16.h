//===- Float16.h - IEEE half and bfloat16 conversions ----------*- C++ -*-===//
//
// The one place float32 is narrowed to the 16-bit float types. Narrowing
// rounds to nearest, ties to even, produces subnormals (no flush to zero),
// overflows to infinity, and keeps NaNs NaN: quiet, with the sign and the
// top payload bits (what x86 F16C and most accelerators do). Widening is
// exact, except that a signalling NaN comes out quiet (as F16C does).
// Everything here is integer arithmetic, so the result does not depend on the
// host's floating-point environment.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_PLUGINS_FLOAT16_H
#define LLMC_PLUGINS_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace llmc {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// IEEE binary16 bits to float32 (exact).
inline float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f) // Infinity, or a NaN, which comes out quiet.
    return floatFromBits(sign | 0x7f800000u | (mantissa << 13) |
                         (mantissa ? 0x400000u : 0u));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float32.
    float value = float(mantissa) * 0x1p-24f;
    return sign ? -value : value;
  }
  return floatFromBits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/// float32 to IEEE binary16 bits, rounded to nearest even.
inline uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  auto sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // Infinity or NaN.
    return sign |
           (magnitude == 0x7f800000u ? 0x7c00u
                                     : 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) // 65520 and above round to infinity.
    return sign | 0x7c00u;
  if (magnitude >= 0x38800000u) {
    // Normal (>= 2^-14): rebias the exponent by 127 - 15, then round off
    // 13 mantissa bits; a carry into the exponent is the right answer.
    uint32_t rebiased = magnitude - 0x38000000u;
    rebiased += 0xfffu + ((rebiased >> 13) & 1u);
    return sign | uint16_t(rebiased >> 13);
  }
  if (magnitude < 0x33000000u) // Below 2^-25 (2^-25 itself ties to zero).
    return sign;
  // Subnormal: the result counts units of 2^-24.
  uint32_t exponent = magnitude >> 23; // 102 .. 112
  uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent; // 14 .. 24
  uint32_t result = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  result += (rest > half || (rest == half && (result & 1u))) ? 1u : 0u;
  return sign | uint16_t(result);
}

/// bfloat16 bits to float32 (exact).
inline float bfloat16ToFloat(uint16_t bits) {
  return floatFromBits(uint32_t(bits) << 16);
}

/// float32 to bfloat16 bits, rounded to nearest even.
inline uint16_t floatToBFloat16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((bits >> 16) | 0x40u); // Quiet the NaN.
  return uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// `value` rounded to the nearest binary16 / bfloat16, as float32.
inline float roundToHalf(float value) {
  return halfToFloat(floatToHalf(value));
}
inline float roundToBFloat16(float value) {
  return bfloat16ToFloat(floatToBFloat16(value));
}

} // namespace llmc

#endif // LLMC_PLUGINS_FLOAT16_H
