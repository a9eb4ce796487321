//===- Convert.cpp - element conversions of packed rows -------------------===//

#include "backends/common/cmodel/Convert.h"

#include "plugins/Float16.h"

#include "absl/types/span.h"

#include <cassert>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace llmc::cmodel {

//===----------------------------------------------------------------------===//
// binary16 arrays
//===----------------------------------------------------------------------===//

static uint16_t loadU16(const uint8_t *at) {
  uint16_t value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

static void storeU16(uint8_t *at, uint16_t value) {
  std::memcpy(at, &value, sizeof(value));
}

#if defined(__x86_64__)
// F16C converts with round-to-nearest-even, keeps subnormals (the default
// MXCSR has neither DAZ nor FTZ) and quiets NaNs keeping their top payload
// bits: bit for bit the scalar functions of Float16.h.
__attribute__((target("avx,f16c"))) static void
halfToFloatF16c(const uint8_t *halves, int64_t count, float *out) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i packed =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(halves + 2 * i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(packed));
  }
  for (; i < count; ++i)
    out[i] = halfToFloat(loadU16(halves + 2 * i));
}

__attribute__((target("avx,f16c"))) static void
floatToHalfF16c(const float *values, int64_t count, uint8_t *halves) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i packed =
        _mm256_cvtps_ph(_mm256_loadu_ps(values + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(halves + 2 * i), packed);
  }
  for (; i < count; ++i)
    storeU16(halves + 2 * i, floatToHalf(values[i]));
}

__attribute__((target("avx,f16c"))) static void roundToHalfF16c(float *values,
                                                                int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i packed =
        _mm256_cvtps_ph(_mm256_loadu_ps(values + i), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_ps(values + i, _mm256_cvtph_ps(packed));
  }
  for (; i < count; ++i)
    values[i] = roundToHalf(values[i]);
}

static bool detectF16c() {
  return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
}
#else
static bool detectF16c() { return false; }
#endif

#if defined(__aarch64__)
// FCVT under Linux's default FPCR (round to nearest even, no flush to
// zero, NaNs quieted keeping their top payload bits) is, like F16C, bit
// for bit the scalar functions of Float16.h. Advanced SIMD is baseline.
static inline float32x4_t loadHalvesNeon(const uint8_t *at) {
  return vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(at)));
}

static void halfToFloatNeon(const uint8_t *halves, int64_t count, float *out) {
  int64_t i = 0;
  for (; i + 4 <= count; i += 4)
    vst1q_f32(out + i, loadHalvesNeon(halves + 2 * i));
  for (; i < count; ++i)
    out[i] = halfToFloat(loadU16(halves + 2 * i));
}

static void floatToHalfNeon(const float *values, int64_t count,
                            uint8_t *halves) {
  int64_t i = 0;
  for (; i + 4 <= count; i += 4)
    vst1_u8(halves + 2 * i,
            vreinterpret_u8_f16(vcvt_f16_f32(vld1q_f32(values + i))));
  for (; i < count; ++i)
    storeU16(halves + 2 * i, floatToHalf(values[i]));
}

static void roundToHalfNeon(float *values, int64_t count) {
  int64_t i = 0;
  for (; i + 4 <= count; i += 4)
    vst1q_f32(values + i, vcvt_f32_f16(vcvt_f16_f32(vld1q_f32(values + i))));
  for (; i < count; ++i)
    values[i] = roundToHalf(values[i]);
}
#endif

bool usesF16c() {
  static const bool available = detectF16c();
  return available;
}

void halfToFloatArray(const uint8_t *halves, int64_t count, float *out) {
#if defined(__x86_64__)
  if (usesF16c())
    return halfToFloatF16c(halves, count, out);
#elif defined(__aarch64__)
  return halfToFloatNeon(halves, count, out);
#endif
  for (int64_t i = 0; i < count; ++i)
    out[i] = halfToFloat(loadU16(halves + 2 * i));
}

void floatToHalfArray(const float *values, int64_t count, uint8_t *halves) {
#if defined(__x86_64__)
  if (usesF16c())
    return floatToHalfF16c(values, count, halves);
#elif defined(__aarch64__)
  return floatToHalfNeon(values, count, halves);
#endif
  for (int64_t i = 0; i < count; ++i)
    storeU16(halves + 2 * i, floatToHalf(values[i]));
}

void roundElements(DType type, float *values, int64_t count) {
  switch (type) {
  case cmd::DTYPE_F16:
#if defined(__x86_64__)
    if (usesF16c())
      return roundToHalfF16c(values, count);
#elif defined(__aarch64__)
    return roundToHalfNeon(values, count);
#endif
    for (int64_t i = 0; i < count; ++i)
      values[i] = roundToHalf(values[i]);
    return;
  case cmd::DTYPE_BF16:
    for (int64_t i = 0; i < count; ++i)
      values[i] = roundToBFloat16(values[i]);
    return;
  default:
    return;
  }
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

/// 4-bit elements [first, first + count): whole bytes at a time.
static void widenNibbles(bool isSigned, const uint8_t *row, int64_t first,
                         int64_t count, float *out) {
  // Sign extension of a nibble n: (n ^ 8) - 8 maps 8..15 to -8..-1.
  int bias = isSigned ? 8 : 0;
  auto value = [&](unsigned nibble) {
    return float(int(nibble ^ unsigned(bias)) - bias);
  };
  int64_t i = 0;
  if (first % 2 && count > 0) {
    out[i++] = value(row[first / 2] >> 4);
  }
  const uint8_t *bytes = row + (first + i) / 2;
  for (; i + 2 <= count; i += 2, ++bytes) {
    out[i] = value(*bytes & 0xfu);
    out[i + 1] = value(*bytes >> 4);
  }
  if (i < count)
    out[i] = value(*bytes & 0xfu);
}

int32_t readIntElement(DType type, const uint8_t *row, int64_t index) {
  switch (type) {
  case cmd::DTYPE_I8:
    return int8_t(row[index]);
  case cmd::DTYPE_U8:
    return row[index];
  case cmd::DTYPE_I4:
  case cmd::DTYPE_U4: {
    unsigned nibble = (row[index / 2] >> (4 * (index % 2))) & 0xfu;
    // Sign-extend a signed nibble: 8..15 stand for -8..-1.
    return type == cmd::DTYPE_I4 ? int32_t(nibble ^ 8u) - 8 : int32_t(nibble);
  }
  case cmd::DTYPE_I32: {
    int32_t value;
    std::memcpy(&value, row + 4 * index, sizeof(value));
    return value;
  }
  default:
    assert(false && "not an integer type");
    return 0;
  }
}

void writeIntElement(DType type, uint8_t *row, int64_t index, int32_t value) {
  switch (type) {
  case cmd::DTYPE_I8:
  case cmd::DTYPE_U8:
    row[index] = uint8_t(value);
    return;
  case cmd::DTYPE_I4:
  case cmd::DTYPE_U4: {
    unsigned shift = 4 * (index % 2);
    uint8_t &byte = row[index / 2];
    byte = uint8_t((byte & ~(0xfu << shift)) |
                   ((unsigned(value) & 0xfu) << shift));
    return;
  }
  case cmd::DTYPE_I32:
    std::memcpy(row + 4 * index, &value, sizeof(value));
    return;
  default:
    assert(false && "not an integer type");
  }
}

void widenElements(DType type, const uint8_t *row, int64_t first, int64_t count,
                   float *out) {
  switch (type) {
  case cmd::DTYPE_F32:
    std::memcpy(out, row + 4 * first, 4 * count);
    return;
  case cmd::DTYPE_F16:
    halfToFloatArray(row + 2 * first, count, out);
    return;
  case cmd::DTYPE_BF16: {
    const uint8_t *at = row + 2 * first;
    for (int64_t i = 0; i < count; ++i)
      out[i] = bfloat16ToFloat(loadU16(at + 2 * i));
    return;
  }
  case cmd::DTYPE_I8: {
    const uint8_t *at = row + first;
    for (int64_t i = 0; i < count; ++i)
      out[i] = float(int8_t(at[i]));
    return;
  }
  case cmd::DTYPE_U8: {
    const uint8_t *at = row + first;
    for (int64_t i = 0; i < count; ++i)
      out[i] = float(at[i]);
    return;
  }
  case cmd::DTYPE_I4:
  case cmd::DTYPE_U4:
    widenNibbles(type == cmd::DTYPE_I4, row, first, count, out);
    return;
  default:
    for (int64_t i = 0; i < count; ++i)
      out[i] = float(readIntElement(type, row, first + i));
    return;
  }
}

void narrowElements(DType type, const float *values, int64_t count,
                    uint8_t *row) {
  switch (type) {
  case cmd::DTYPE_F32:
    std::memcpy(row, values, 4 * count);
    return;
  case cmd::DTYPE_F16:
    floatToHalfArray(values, count, row);
    return;
  case cmd::DTYPE_BF16:
    for (int64_t i = 0; i < count; ++i)
      storeU16(row + 2 * i, floatToBFloat16(values[i]));
    return;
  default:
    assert(false && "narrowElements needs a float type");
  }
}

//===----------------------------------------------------------------------===//
// Host helpers
//===----------------------------------------------------------------------===//

std::vector<uint8_t> encodeFloats(DType type, absl::Span<const float> values) {
  std::vector<uint8_t> bytes(getDTypeBytes(type, values.size()));
  narrowElements(type, values.data(), values.size(), bytes.data());
  return bytes;
}

std::vector<uint8_t> encodeInts(DType type, absl::Span<const int32_t> values) {
  std::vector<uint8_t> bytes(getDTypeBytes(type, values.size()));
  for (size_t i = 0; i < values.size(); ++i)
    writeIntElement(type, bytes.data(), i, values[i]);
  return bytes;
}

std::vector<float> decodeFloats(DType type, absl::Span<const uint8_t> bytes,
                                int64_t count) {
  assert(int64_t(bytes.size()) >= getDTypeBytes(type, count));
  std::vector<float> values(count);
  widenElements(type, bytes.data(), 0, count, values.data());
  return values;
}

std::vector<int32_t> decodeInts(DType type, absl::Span<const uint8_t> bytes,
                                int64_t count) {
  assert(int64_t(bytes.size()) >= getDTypeBytes(type, count));
  std::vector<int32_t> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = readIntElement(type, bytes.data(), i);
  return values;
}

void dequantizeGroups(float *row, int64_t count, const float *scales,
                      const float *zeros, int64_t groups) {
  int64_t groupSize = count / groups;
  for (int64_t g = 0; g < groups; ++g) {
    float *group = row + g * groupSize;
    for (int64_t i = 0; i < groupSize; ++i)
      group[i] = (group[i] - zeros[g]) * scales[g];
  }
}

} // namespace llmc::cmodel
