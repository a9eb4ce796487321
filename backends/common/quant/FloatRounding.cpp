//===- FloatRounding.cpp - float32 to half and bfloat16 -------------------===//

#include "backends/common/quant/FloatRounding.h"

#include "llvm/Support/ErrorHandling.h"

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

float roundToFloatType(float value, FloatType type) {
  switch (type) {
  case FloatType::F32: return value;
  case FloatType::F16: return halfToFloat(floatToHalf(value));
  case FloatType::BF16:
    return bfloat16ToFloat(floatToBFloat16(value));
  }
  llvm_unreachable("unknown float type");
}

float largestFinite(FloatType type) {
  switch (type) {
  case FloatType::F32: return std::numeric_limits<float>::max();
  case FloatType::F16: return 65504.0f;
  case FloatType::BF16: return bfloat16ToFloat(0x7f7f);
  }
  llvm_unreachable("unknown float type");
}

float smallestPositive(FloatType type) {
  switch (type) {
  case FloatType::F32: return std::numeric_limits<float>::denorm_min();
  case FloatType::F16: return std::ldexp(1.0f, -24);
  case FloatType::BF16: return bfloat16ToFloat(0x0001);
  }
  llvm_unreachable("unknown float type");
}

} // namespace llmc::quant
