//===- Convert.h - element conversions of packed rows -----------*- C++ -*-===//
//
// Kernels compute in float32: they widen the elements they read (exactly)
// and narrow what they write (rounding to nearest even, Float16.h). These
// are the bulk forms, with an F16C path on x86 hosts that have it (the same
// bits as the scalar code, which the tests check), and the host's helpers to
// fill and read device memory.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CMODEL_CONVERT_H
#define LLMC_BACKENDS_COMMON_CMODEL_CONVERT_H

#include "backends/common/cmodel/DType.h"

#include "absl/types/span.h"

#include <cstdint>
#include <vector>

namespace llmc::cmodel {

/// Converts elements [first, first + count) of the packed row `row` to
/// float32. Exact for every type (I32 beyond 2^24 rounds to nearest).
void widenElements(DType type, const uint8_t *row, int64_t first, int64_t count,
                   float *out);

/// Stores `count` values as elements [0, count) of the packed row `row`;
/// `type` is F32, F16 or BF16 (rounded to nearest even).
void narrowElements(DType type, const float *values, int64_t count,
                    uint8_t *row);

/// Rounds `values` in place as storing them in `type` and reading them back
/// would (F16 and BF16 round to nearest even; F32 is unchanged).
void roundElements(DType type, float *values, int64_t count);

/// Dequantizes `row`'s `count` values in place, in `groups` equal groups:
/// (value - zeros[g]) * scales[g] in float32.
void dequantizeGroups(float *row, int64_t count, const float *scales,
                      const float *zeros, int64_t groups);

/// Element `index` of a packed row of integers (I8, U8, I4, U4, I32).
int32_t readIntElement(DType type, const uint8_t *row, int64_t index);
/// Writes element `index` of a packed row of integers; the value is wrapped
/// to the type's width.
void writeIntElement(DType type, uint8_t *row, int64_t index, int32_t value);

/// Bulk binary16 conversions (F16C where the host has it).
void halfToFloatArray(const uint8_t *halves, int64_t count, float *out);
void floatToHalfArray(const float *values, int64_t count, uint8_t *halves);
/// Whether the F16C path is in use (tests compare both paths).
bool usesF16c();

//===----------------------------------------------------------------------===//
// Host helpers
//===----------------------------------------------------------------------===//

/// `values` packed as float type `type` (rounded to nearest even).
std::vector<uint8_t> encodeFloats(DType type, absl::Span<const float> values);
/// `values` packed as integer type `type` (4-bit types two per byte).
std::vector<uint8_t> encodeInts(DType type, absl::Span<const int32_t> values);
/// The first `count` elements of packed `bytes` as float32.
std::vector<float> decodeFloats(DType type, absl::Span<const uint8_t> bytes,
                                int64_t count);
/// The first `count` elements of packed integer `bytes`.
std::vector<int32_t> decodeInts(DType type, absl::Span<const uint8_t> bytes,
                                int64_t count);

} // namespace llmc::cmodel

#endif // LLMC_BACKENDS_COMMON_CMODEL_CONVERT_H
