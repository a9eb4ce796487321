//===- DType.h - element types of the command stream ------------*- C++ -*-===//
//
// Sizes and names of the command stream's element types. 4-bit types pack
// two elements per byte (low nibble first), so sizes are given in bits and
// rows round up to whole bytes.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_DTYPE_H
#define LLMC_BACKENDS_COMMON_CMODEL_DTYPE_H

#include "backends/common/cmodel/command_stream.pb.h"

#include <cstdint>
#include <string_view>

namespace llmc::cmodel {

using cmd::DType;

/// Bits per element; 0 for DTYPE_INVALID or an unknown value.
int64_t getDTypeBits(DType type);
/// `f32`, `bf16`, `u4`, ... for messages.
std::string_view getDTypeName(DType type);

inline bool isFloatDType(DType type) {
  return type == cmd::DTYPE_F32 || type == cmd::DTYPE_F16 ||
         type == cmd::DTYPE_BF16;
}
inline bool isInt4DType(DType type) {
  return type == cmd::DTYPE_I4 || type == cmd::DTYPE_U4;
}
/// The integer types a weight-only quantized weight is stored in.
inline bool isQuantWeightDType(DType type) {
  return type == cmd::DTYPE_I8 || type == cmd::DTYPE_U8 || isInt4DType(type);
}

/// Bytes that `count` consecutive elements occupy (rounded up to a byte).
inline int64_t getDTypeBytes(DType type, int64_t count) {
  return (count * getDTypeBits(type) + 7) / 8;
}

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_DTYPE_H
