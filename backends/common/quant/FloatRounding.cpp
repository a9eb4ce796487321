//===- FloatRounding.cpp - float32 to half and bfloat16 -------------------===//

#include "backends/common/quant/FloatRounding.h"

#include "plugins/WeightSource.h"

#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

namespace llmc::quant {

llvm::StringRef stringifyFloatType(FloatType type) {
  switch (type) {
  case FloatType::F32: return "f32";
  case FloatType::F16: return "f16";
  case FloatType::BF16: return "bf16";
  }
  llvm_unreachable("unknown float type");
}

std::optional<FloatType> symbolizeFloatType(llvm::StringRef name) {
  for (FloatType type : {FloatType::F32, FloatType::F16, FloatType::BF16})
    if (name == stringifyFloatType(type))
      return type;
  return std::nullopt;
}

uint16_t floatToHalfBits(float value) {
  uint32_t bits = llvm::bit_cast<uint32_t>(value);
  uint16_t sign = (bits >> 16) & 0x8000;
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude >= 0x7f800000) // Infinity or NaN.
    return sign | (magnitude > 0x7f800000 ? 0x7e00 : 0x7c00);
  // 65520 = 65504 + half an ulp: from there on the nearest half is infinity.
  if (magnitude >= 0x477ff000)
    return sign | 0x7c00;
  if (magnitude < 0x38800000) {
    // Below 2^-14 halves are subnormal, multiples of 2^-24. Scaling by 2^24
    // is exact in float32, and nearbyint rounds ties to even; a result of
    // 0x400 is correctly the smallest normal half.
    float scaled = llvm::bit_cast<float>(magnitude) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t exponent = (magnitude >> 23) - 127 + 15;
  uint32_t mantissa = magnitude & 0x7fffff;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  // Round to nearest, ties to even; a carry into the exponent is correct.
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return sign | static_cast<uint16_t>(half);
}

uint16_t floatToBFloat16Bits(float value) {
  uint32_t bits = llvm::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x0040);
  uint32_t lsb = (bits >> 16) & 1;
  bits += 0x7fff + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

float roundToFloatType(float value, FloatType type) {
  switch (type) {
  case FloatType::F32: return value;
  case FloatType::F16: return plugins::halfToFloat(floatToHalfBits(value));
  case FloatType::BF16:
    return plugins::bfloat16ToFloat(floatToBFloat16Bits(value));
  }
  llvm_unreachable("unknown float type");
}

float largestFinite(FloatType type) {
  switch (type) {
  case FloatType::F32: return std::numeric_limits<float>::max();
  case FloatType::F16: return 65504.0f;
  case FloatType::BF16: return plugins::bfloat16ToFloat(0x7f7f);
  }
  llvm_unreachable("unknown float type");
}

float smallestPositive(FloatType type) {
  switch (type) {
  case FloatType::F32: return std::numeric_limits<float>::denorm_min();
  case FloatType::F16: return std::ldexp(1.0f, -24);
  case FloatType::BF16: return plugins::bfloat16ToFloat(0x0001);
  }
  llvm_unreachable("unknown float type");
}

} // namespace llmc::quant
