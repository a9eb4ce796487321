//===- Dequantize.cpp - ggml block quantizations to float32 ---------------===//
//
// Block layouts (ggml-common.h), all little endian, `half` an IEEE binary16:
//
//   q4_0  half d; u8 qs[16]                 x = d * (q - 8)
//   q4_1  half d, m; u8 qs[16]              x = d * q + m
//   q5_0  half d; u8 qh[4]; u8 qs[16]       x = d * (q - 16)
//   q5_1  half d, m; u8 qh[4]; u8 qs[16]    x = d * q + m
//   q8_0  half d; i8 qs[32]                 x = d * q
//
// In the 32-element formats byte j of `qs` holds element j in its low nibble
// and element j + 16 in its high nibble; q5's fifth bits are bit j of the
// 32-bit `qh`. The K-quants group 256 elements into sub-blocks with 6-bit
// (q4_K, q5_K) or 8-bit (q6_K) scales under a half super-scale.
//
// Every expression keeps ggml's operand order and rounding steps; the
// library is compiled with -ffp-contract=off so no compiler fuses a multiply
// and an add that ggml rounds separately.
//
//===----------------------------------------------------------------------===//

#include "frontends/gguf/Dequantize.h"

#include "plugins/WeightSource.h"

#include "llvm/Support/ErrorHandling.h"

namespace llmc::gguf {
namespace {

float readHalf(const uint8_t *bytes) {
  return halfToFloat(static_cast<uint16_t>(bytes[0] | (bytes[1] << 8)));
}

constexpr int64_t kBlock = 32;
constexpr int64_t kSuperBlock = 256;

void dequantizeQ4_0(const uint8_t *block, float *y) {
  const float d = readHalf(block);
  const uint8_t *qs = block + 2;
  for (int j = 0; j < kBlock / 2; ++j) {
    const int x0 = (qs[j] & 0x0F) - 8;
    const int x1 = (qs[j] >> 4) - 8;
    y[j] = x0 * d;
    y[j + kBlock / 2] = x1 * d;
  }
}

void dequantizeQ4_1(const uint8_t *block, float *y) {
  const float d = readHalf(block);
  const float m = readHalf(block + 2);
  const uint8_t *qs = block + 4;
  for (int j = 0; j < kBlock / 2; ++j) {
    const int x0 = qs[j] & 0x0F;
    const int x1 = qs[j] >> 4;
    y[j] = x0 * d + m;
    y[j + kBlock / 2] = x1 * d + m;
  }
}

uint32_t readU32(const uint8_t *bytes) {
  return bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) |
         (static_cast<uint32_t>(bytes[3]) << 24);
}

/// Q5_0 (`hasMin` false) and Q5_1: the fifth bits come from `qh`.
void dequantizeQ5(const uint8_t *block, float *y, bool hasMin) {
  const float d = readHalf(block);
  const float m = hasMin ? readHalf(block + 2) : 0.0f;
  const uint8_t *rest = block + (hasMin ? 4 : 2);
  const uint32_t qh = readU32(rest);
  const uint8_t *qs = rest + 4;
  for (int j = 0; j < kBlock / 2; ++j) {
    const int xh0 = ((qh >> j) << 4) & 0x10;
    const int xh1 = (qh >> (j + 12)) & 0x10;
    const int x0 = (qs[j] & 0x0F) | xh0;
    const int x1 = (qs[j] >> 4) | xh1;
    if (hasMin) {
      y[j] = x0 * d + m;
      y[j + kBlock / 2] = x1 * d + m;
    } else {
      y[j] = (x0 - 16) * d;
      y[j + kBlock / 2] = (x1 - 16) * d;
    }
  }
}

void dequantizeQ8_0(const uint8_t *block, float *y) {
  const float d = readHalf(block);
  const int8_t *qs = reinterpret_cast<const int8_t *>(block + 2);
  for (int j = 0; j < kBlock; ++j)
    y[j] = qs[j] * d;
}

/// The 6-bit scale and min of sub-block `j` of a q4_K/q5_K super-block
/// (ggml's get_scale_min_k4): eight pairs packed into 12 bytes.
void getScaleMin(int j, const uint8_t *q, uint8_t &scale, uint8_t &min) {
  if (j < 4) {
    scale = q[j] & 63;
    min = q[j + 4] & 63;
  } else {
    scale = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

/// Q4_K and Q5_K (with fifth bits `qh`): 8 sub-blocks of 32,
/// x = d·scale·q − dmin·min.
void dequantizeQ4Q5K(const uint8_t *block, float *y, bool hasHighBits) {
  const float d = readHalf(block);
  const float dmin = readHalf(block + 2);
  const uint8_t *scales = block + 4;
  const uint8_t *qh = hasHighBits ? block + 16 : nullptr;
  const uint8_t *ql = block + (hasHighBits ? 48 : 16);
  uint8_t u1 = 1, u2 = 2;
  for (int j = 0, is = 0; j < kSuperBlock; j += 64, is += 2) {
    uint8_t sc, m;
    getScaleMin(is, scales, sc, m);
    const float d1 = d * sc;
    const float m1 = dmin * m;
    getScaleMin(is + 1, scales, sc, m);
    const float d2 = d * sc;
    const float m2 = dmin * m;
    for (int l = 0; l < 32; ++l) {
      int high = qh && (qh[l] & u1) ? 16 : 0;
      *y++ = d1 * ((ql[l] & 0xF) + high) - m1;
    }
    for (int l = 0; l < 32; ++l) {
      int high = qh && (qh[l] & u2) ? 16 : 0;
      *y++ = d2 * ((ql[l] >> 4) + high) - m2;
    }
    ql += 32;
    u1 <<= 2;
    u2 <<= 2;
  }
}

/// Q6_K: u8 ql[128] (low 4 bits), u8 qh[64] (high 2 bits), i8 scales[16],
/// half d; x = d·scale·(q − 32) in 16 sub-blocks of 16.
void dequantizeQ6K(const uint8_t *block, float *y) {
  const uint8_t *ql = block;
  const uint8_t *qh = block + 128;
  const int8_t *sc = reinterpret_cast<const int8_t *>(block + 192);
  const float d = readHalf(block + 208);
  for (int n = 0; n < kSuperBlock; n += 128) {
    for (int l = 0; l < 32; ++l) {
      int is = l / 16;
      const int8_t q1 =
          static_cast<int8_t>((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int8_t q2 =
          static_cast<int8_t>((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) -
          32;
      const int8_t q3 =
          static_cast<int8_t>((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int8_t q4 =
          static_cast<int8_t>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) -
          32;
      y[l] = d * sc[is] * q1;
      y[l + 32] = d * sc[is + 2] * q2;
      y[l + 64] = d * sc[is + 4] * q3;
      y[l + 96] = d * sc[is + 6] * q4;
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

} // namespace

bool isDequantizable(GgmlType type) {
  switch (type) {
  case GgmlType::Q4_0:
  case GgmlType::Q4_1:
  case GgmlType::Q5_0:
  case GgmlType::Q5_1:
  case GgmlType::Q8_0:
  case GgmlType::Q4_K:
  case GgmlType::Q5_K:
  case GgmlType::Q6_K: return true;
  default: return false;
  }
}

void dequantize(GgmlType type, const uint8_t *blocks, int64_t count,
                float *out) {
  const GgmlTypeTraits &traits = getGgmlTypeTraits(type);
  for (int64_t block = 0; block < count / traits.blockSize; ++block) {
    const uint8_t *in = blocks + block * traits.blockBytes;
    float *y = out + block * traits.blockSize;
    switch (type) {
    case GgmlType::Q4_0: dequantizeQ4_0(in, y); break;
    case GgmlType::Q4_1: dequantizeQ4_1(in, y); break;
    case GgmlType::Q5_0: dequantizeQ5(in, y, /*hasMin=*/false); break;
    case GgmlType::Q5_1: dequantizeQ5(in, y, /*hasMin=*/true); break;
    case GgmlType::Q8_0: dequantizeQ8_0(in, y); break;
    case GgmlType::Q4_K: dequantizeQ4Q5K(in, y, /*hasHighBits=*/false); break;
    case GgmlType::Q5_K: dequantizeQ4Q5K(in, y, /*hasHighBits=*/true); break;
    case GgmlType::Q6_K: dequantizeQ6K(in, y); break;
    default: llvm_unreachable("callers check isDequantizable");
    }
  }
}

} // namespace llmc::gguf
