//===- WeightPacking.h - weights as a binary stores them --------*- C++ -*-===//
//
// A lowered piece reads each weight with the element type its `top.Weight`
// result declares; the binary stores exactly those bytes, so the device
// never converts a weight. Float weights are rounded from the checkpoint's
// type (to nearest, ties to even); quantized parts (DerivedWeightSource)
// are stored as derived: 4-bit values two per byte, low nibble first.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_COMPILE_WEIGHTPACKING_H
#define LLMC_BACKENDS_COMMON_COMPILE_WEIGHTPACKING_H

#include "plugins/WeightSource.h"

#include "mlir/IR/BuiltinTypes.h"

#include <vector>

namespace llmc::compile {

/// The bytes of weight `name` as `type` (the `top.Weight` result type).
llvm::Expected<std::vector<uint8_t>>
packWeight(const plugins::WeightSource &weights, llvm::StringRef name,
           mlir::RankedTensorType type);

/// The `dtype` string the binary's manifest records for `type`'s elements
/// (`f32`, `bf16`, `i4`, `u8`, ...).
std::string getDTypeName(mlir::RankedTensorType type);

} // namespace llmc::compile

#endif // LLMC_BACKENDS_COMMON_COMPILE_WEIGHTPACKING_H
