//===- ConvertTest.cpp - float16 and bfloat16 conversions -----------------===//

#include "backends/host/kernels/Kernels.h"
#include "backends/host/kernels/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

namespace llmc::host::test {
namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// Every binary16 value, widened on each path.
TEST(ConvertTest, WidenF16IsExact) {
  std::vector<uint16_t> halves(65536 + 5); // Odd length: vector tails too.
  for (size_t i = 0; i < halves.size(); ++i)
    halves[i] = uint16_t(i);
  for (Isa isa : getTestIsas()) {
    std::vector<float> out(halves.size());
    widenF16(halves.data(), out.data(), int64_t(halves.size()), isa);
    for (size_t i = 0; i < halves.size(); ++i) {
      uint16_t h = halves[i];
      uint32_t got = bitsOf(out[i]);
      if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
        // NaN: quiet, same sign, payload in the top bits.
        uint32_t expected = (uint32_t(h & 0x8000) << 16) | 0x7fc00000u |
                            (uint32_t(h & 0x3ff) << 13);
        ASSERT_EQ(got, expected) << getIsaName(isa) << " half " << h;
        continue;
      }
      ASSERT_EQ(double(out[i]), referenceFromHalf(h))
          << getIsaName(isa) << " half " << h;
      ASSERT_EQ(std::signbit(out[i]), bool(h & 0x8000));
    }
  }
}

TEST(ConvertTest, WidenBF16IsExact) {
  std::vector<uint16_t> in(65536 + 3);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint16_t(i * 40503u);
  for (Isa isa : getTestIsas()) {
    std::vector<float> out(in.size());
    widenBF16(in.data(), out.data(), int64_t(in.size()), isa);
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(bitsOf(out[i]), uint32_t(in[i]) << 16) << getIsaName(isa);
  }
}

/// Values that probe rounding: ties, overflow and subnormal boundaries,
/// infinities and NaN payloads, then random bit patterns.
std::vector<float> narrowingProbes() {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               -65520.0f,
                               1e10f,
                               INFINITY,
                               -INFINITY,
                               6.1035156e-05f,
                               6.0975552e-05f,
                               5.9604645e-08f,
                               2.9802322e-08f,
                               2.9802326e-08f,
                               1e-30f,
                               1.0e-45f,
                               1.17549435e-38f,
                               3.4028235e38f};
  for (uint32_t payload :
       {0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x7fbfffffu, 0x7f802000u})
    values.push_back(floatOf(payload));
  // Ties in both formats: 1 + 2^-11 (f16) and 1 + 2^-8 (bf16), odd and even.
  for (float base : {1.0f, 1.0f + 0x1p-10f, 1.0f + 0x1p-7f, 1024.0f})
    for (float tie : {0x1p-11f, 0x1p-8f})
      values.push_back(base + base * tie);
  std::mt19937 rng(17);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 200000; ++i)
    values.push_back(floatOf(any(rng)));
  // And values in the binary16 range, where rounding is not trivial.
  std::uniform_real_distribution<float> range(-70000.0f, 70000.0f);
  for (int i = 0; i < 50000; ++i) {
    float v = range(rng);
    values.push_back(i % 2 ? v : v * 1e-5f);
  }
  return values;
}

TEST(ConvertTest, NarrowF16RoundsToNearestEven) {
  std::vector<float> values = narrowingProbes();
  for (Isa isa : getTestIsas()) {
    std::vector<uint16_t> out(values.size());
    narrowF16(values.data(), out.data(), int64_t(values.size()), isa);
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(out[i], referenceToHalf(values[i]))
          << getIsaName(isa) << " value " << values[i] << " bits 0x" << std::hex
          << bitsOf(values[i]);
  }
}

TEST(ConvertTest, NarrowBF16RoundsToNearestEven) {
  std::vector<float> values = narrowingProbes();
  for (Isa isa : getTestIsas()) {
    std::vector<uint16_t> out(values.size());
    narrowBF16(values.data(), out.data(), int64_t(values.size()), isa);
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(out[i], referenceToBFloat16(values[i]))
          << getIsaName(isa) << " value " << values[i] << " bits 0x" << std::hex
          << bitsOf(values[i]);
  }
}

} // namespace
} // namespace llmc::host::test
