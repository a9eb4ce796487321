//===- TestSupport.cpp - references and data for the kernel tests ---------===//

#include "backends/host/kernels/test/TestSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace llmc::host::test {

std::vector<Isa> getTestIsas() {
  std::vector<Isa> isas;
  for (Isa isa : kIsas)
    if (isIsaSupported(isa))
      isas.push_back(isa);
  static bool reported = false;
  if (!reported) { // Say which paths this host covers.
    reported = true;
    std::string names;
    for (Isa isa : isas)
      names += std::string(" ") + getIsaName(isa);
    std::fprintf(stderr, "testing the paths:%s\n", names.c_str());
  }
  return isas;
}

double referenceFromHalf(uint16_t bits) {
  double sign = bits & 0x8000 ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

static uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

uint16_t referenceToHalf(float value) {
  uint32_t bits = bitsOf(value);
  uint16_t sign = (bits >> 16) & 0x8000;
  if (std::isnan(value)) // Quiet, with the top payload bits.
    return sign | 0x7e00 | ((bits >> 13) & 0x3ff);
  double a = std::fabs(double(value));
  if (a < std::ldexp(1.0, -14)) // Subnormal: units of 2^-24, to nearest even.
    return sign | uint16_t(std::nearbyint(std::ldexp(a, 24)));
  int exponent;
  double fraction = std::frexp(a, &exponent); // a = fraction * 2^exponent.
  double q = std::nearbyint((2 * fraction - 1) * 1024);
  int e = exponent - 1 + 15;
  if (q == 1024) {
    q = 0;
    ++e;
  }
  if (e >= 31 || std::isinf(a))
    return sign | 0x7c00;
  return sign | uint16_t(e << 10) | uint16_t(q);
}

uint16_t referenceToBFloat16(float value) {
  uint32_t bits = bitsOf(value);
  if (std::isnan(value))
    return uint16_t((bits >> 16) | 0x40);
  double a = std::fabs(double(value)), rounded;
  if (a < std::ldexp(1.0, -126)) {
    rounded = std::ldexp(std::nearbyint(std::ldexp(a, 133)), -133);
  } else {
    int exponent;
    double fraction = std::frexp(a, &exponent);
    rounded = std::ldexp(std::nearbyint(std::ldexp(fraction, 8)), exponent - 8);
  }
  float result = float((bits >> 31) ? -rounded : rounded);
  return uint16_t(bitsOf(result) >> 16);
}

std::string describe(WeightType type) {
  switch (type) {
  case WeightType::F32:
    return "f32";
  case WeightType::F16:
    return "f16";
  case WeightType::BF16:
    return "bf16";
  case WeightType::I8:
    return "i8";
  case WeightType::U8:
    return "u8";
  case WeightType::I4:
    return "i4";
  case WeightType::U4:
    return "u4";
  }
  return "?";
}

std::string describe(ParamType type) {
  switch (type) {
  case ParamType::None:
    return "none";
  case ParamType::F32:
    return "f32";
  case ParamType::F16:
    return "f16";
  case ParamType::BF16:
    return "bf16";
  case ParamType::I8:
    return "i8";
  case ParamType::U8:
    return "u8";
  case ParamType::I4:
    return "i4";
  case ParamType::U4:
    return "u4";
  }
  return "?";
}

std::vector<float> randomFloats(size_t count, std::mt19937 &rng, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(count);
  for (float &v : values)
    v = normal(rng);
  return values;
}

namespace {
float halfValue(uint16_t bits) { return float(referenceFromHalf(bits)); }
float bfloat16Value(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

/// Stores element `index` of a packed row of `bits`-wide elements.
void storeElement(uint8_t *row, int bits, int64_t index, uint32_t value) {
  if (bits == 4) {
    uint8_t &byte = row[index / 2];
    int shift = (index % 2) * 4;
    byte = uint8_t((byte & ~(0xf << shift)) | ((value & 0xf) << shift));
    return;
  }
  std::memcpy(row + index * (bits / 8), &value, bits / 8);
}

/// A random stored value of a float type: its bits and its value.
uint32_t randomFloatBits(int bits, bool isBF16, float v, float &value) {
  if (bits == 32) {
    value = v;
    return bitsOf(v);
  }
  uint16_t h = isBF16 ? referenceToBFloat16(v) : referenceToHalf(v);
  value = isBF16 ? bfloat16Value(h) : halfValue(h);
  return h;
}
} // namespace

TestWeights makeWeights(WeightType type, ParamType scaleType, ParamType zpType,
                        int64_t n, int64_t k, int64_t groupSize,
                        std::mt19937 &rng) {
  TestWeights t;
  const int bits = getElementBits(type);
  const int64_t rowBytes = (k * bits + 7) / 8 + 3; // Padded.
  t.data.assign(n * rowBytes, 0x5a);
  t.dequantized.assign(n * k, 0.0f);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> anyByte(0, 255);
  std::uniform_int_distribution<int> percent(0, 99);
  t.w = Weights{type, t.data.data(), n, k, rowBytes};

  if (!isQuantized(type)) {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t c = 0; c < k; ++c) {
        float v = normal(rng);
        if (percent(rng) == 0) // Some subnormal halves.
          v *= 1e-6f;
        float value;
        uint32_t stored =
            randomFloatBits(bits, type == WeightType::BF16, v, value);
        storeElement(t.data.data() + j * rowBytes, bits, c, stored);
        t.dequantized[j * k + c] = value;
      }
    return t;
  }

  const int64_t groups = k / groupSize;
  const int scaleBits = getElementBits(scaleType),
            zpBits = getElementBits(zpType);
  const int64_t scaleRowBytes = (groups * scaleBits + 7) / 8 + 2;
  const int64_t zpRowBytes = (groups * zpBits + 7) / 8 + 2;
  std::vector<float> scales(n * groups, 1.0f), zps(n * groups, 0.0f);
  if (scaleType != ParamType::None) {
    t.scale.assign(n * scaleRowBytes, 0xa5);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t g = 0; g < groups; ++g) {
        float v = (0.005f + 0.02f * std::fabs(normal(rng))) *
                  (percent(rng) < 10 ? -1.0f : 1.0f);
        float value;
        uint32_t stored =
            randomFloatBits(scaleBits, scaleType == ParamType::BF16, v, value);
        storeElement(t.scale.data() + j * scaleRowBytes, scaleBits, g, stored);
        scales[j * groups + g] = value;
      }
    t.w.scale = t.scale.data();
    t.w.scaleType = scaleType;
    t.w.scaleRowStrideBytes = scaleRowBytes;
  }
  if (zpType != ParamType::None) {
    t.zp.assign(n * zpRowBytes, 0x3c);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t g = 0; g < groups; ++g) {
        uint32_t stored;
        float value;
        if (zpBits >= 16) {
          // Multiples of 1/8 up to 32: exact differences with any q.
          float v = std::round(normal(rng) * 40.0f) / 8.0f;
          stored = randomFloatBits(zpBits, zpType == ParamType::BF16, v, value);
        } else {
          int raw = anyByte(rng) & (zpBits == 4 ? 0xf : 0xff);
          stored = uint32_t(raw);
          bool isSigned = zpType == ParamType::I8 || zpType == ParamType::I4;
          value = float(!isSigned     ? raw
                        : zpBits == 4 ? (raw ^ 8) - 8
                                      : int8_t(raw));
        }
        storeElement(t.zp.data() + j * zpRowBytes, zpBits, g, stored);
        zps[j * groups + g] = value;
      }
    t.w.zp = t.zp.data();
    t.w.zpType = zpType;
    t.w.zpRowStrideBytes = zpRowBytes;
  }
  t.w.groupSize = groupSize;

  const bool isSigned = type == WeightType::I8 || type == WeightType::I4;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t c = 0; c < k; ++c) {
      int raw = anyByte(rng) & (bits == 4 ? 0xf : 0xff);
      storeElement(t.data.data() + j * rowBytes, bits, c, uint32_t(raw));
      int q = !isSigned ? raw : bits == 4 ? (raw ^ 8) - 8 : int8_t(raw);
      int64_t g = c / groupSize;
      double difference = double(q) - double(zps[j * groups + g]);
      t.dequantized[j * k + c] = float(difference * scales[j * groups + g]);
    }
  return t;
}

void referenceProduct(const float *x, int64_t m, int64_t xStride,
                      const TestWeights &w, std::vector<double> &product,
                      std::vector<double> &magnitude) {
  const int64_t n = w.w.n, k = w.w.k;
  product.assign(m * n, 0.0);
  magnitude.assign(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, abs = 0;
      for (int64_t c = 0; c < k; ++c) {
        double term = double(x[i * xStride + c]) * w.dequantized[j * k + c];
        sum += term;
        abs += std::fabs(term);
      }
      product[i * n + j] = sum;
      magnitude[i * n + j] = abs;
    }
}

bool takesEightBitX(const Weights &w, int64_t m, Isa isa) {
  const int64_t group = w.groupSize > 0 ? w.groupSize : w.k;
  return isa == Isa::Avx512Vnni && m > 16 &&
         (w.type == WeightType::I4 || w.type == WeightType::U4) &&
         w.k % 64 == 0 && group % 16 == 0;
}

void eightBitXBound(const float *x, int64_t m, int64_t xStride,
                    const TestWeights &w, std::vector<double> &bound,
                    std::vector<double> &spread) {
  const int64_t n = w.w.n, k = w.w.k;
  bound.assign(m * n, 0.0);
  spread.assign(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    const float *row = x + i * xStride;
    std::vector<double> halfUnit(k);
    for (int64_t c0 = 0; c0 < k; c0 += 64) {
      double most = 0;
      for (int64_t c = c0; c < std::min(k, c0 + 64); ++c)
        most = std::max(most, std::fabs(double(row[c])));
      for (int64_t c = c0; c < std::min(k, c0 + 64); ++c)
        halfUnit[c] = most / 254;
    }
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, variance = 0;
      for (int64_t c = 0; c < k; ++c) {
        const double term = halfUnit[c] * w.dequantized[j * k + c];
        sum += std::fabs(term);
        // Uniform on [-h, h]: variance h^2 / 3.
        variance += term * term / 3;
      }
      bound[i * n + j] = sum;
      spread[i * n + j] = std::sqrt(variance);
    }
  }
}

} // namespace llmc::host::test
