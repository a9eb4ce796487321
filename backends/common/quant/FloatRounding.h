//===- FloatRounding.h - float32 to half and bfloat16 ----------*- C++ -*-===//
//
// Rounds float32 values to the 16-bit float types weights and scales are
// stored in, with the bit-level conversions of plugins/Float16.h. Every conversion rounds to the nearest representable value, ties
// to even (IEEE 754's default and what numpy's astype does), so the values a
// binary stores and the values the reference interpreter reads agree bit for
// bit.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_QUANT_FLOATROUNDING_H
#define LLMC_BACKENDS_COMMON_QUANT_FLOATROUNDING_H

#include "plugins/Float16.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace llmc::quant {

/// The float types a tensor may be rounded to or stored in.
enum class FloatType { F32, F16, BF16 };

/// `f32`, `f16`, `bf16`: the spelling of MLIR types and derived weight names.
llvm::StringRef stringifyFloatType(FloatType type);
std::optional<FloatType> symbolizeFloatType(llvm::StringRef name);

/// `value` rounded to `type` and widened back to float32 (exact).
float roundToFloatType(float value, FloatType type);

/// The largest finite and the smallest positive (subnormal) value of `type`.
float largestFinite(FloatType type);
float smallestPositive(FloatType type);

} // namespace llmc::quant

#endif // LLMC_BACKENDS_COMMON_QUANT_FLOATROUNDING_H
