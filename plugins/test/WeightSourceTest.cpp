//===- WeightSourceTest.cpp - element conversion and overlay sources ------===//

#include "plugins/WeightSource.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace llmc;
using namespace llmc::plugins;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Fails the test with the message of `error`, if any.
void expectSuccess(llvm::Error error) {
  if (error)
    ADD_FAILURE() << llvm::toString(std::move(error));
}

std::string errorText(llvm::Error error) {
  EXPECT_TRUE(static_cast<bool>(error)) << "expected an error";
  return llvm::toString(std::move(error));
}

//===----------------------------------------------------------------------===//
// Half and bfloat16
//===----------------------------------------------------------------------===//

TEST(HalfToFloatTest, Normals) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f) << "largest half";
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14)) << "smallest normal";
}

TEST(HalfToFloatTest, Subnormals) {
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03ff), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x0200), std::ldexp(1.0f, -15));
}

TEST(HalfToFloatTest, ZerosInfinitiesAndNans) {
  EXPECT_EQ(bitsOf(halfToFloat(0x0000)), 0u);
  EXPECT_EQ(bitsOf(halfToFloat(0x8000)), 0x80000000u) << "negative zero";
  EXPECT_EQ(halfToFloat(0x7c00), INFINITY);
  EXPECT_EQ(halfToFloat(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7c01))) << "signalling NaN payload";
  EXPECT_TRUE(std::signbit(halfToFloat(0xfe00)));
}

TEST(HalfToFloatTest, EveryFiniteValueMatchesItsDefinition) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
    if (exponent == 0x1f)
      continue;
    double magnitude =
        exponent == 0 ? std::ldexp(double(mantissa), -24)
                      : std::ldexp(double(1024 + mantissa), int(exponent) - 25);
    double expected = (bits & 0x8000) ? -magnitude : magnitude;
    ASSERT_EQ(halfToFloat(bits), static_cast<float>(expected))
        << "bits 0x" << std::hex << bits;
  }
}

TEST(Bfloat16ToFloatTest, AllClasses) {
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xc049), -3.140625f);
  EXPECT_EQ(bfloat16ToFloat(0x0080), std::ldexp(1.0f, -126))
      << "smallest normal";
  EXPECT_EQ(bfloat16ToFloat(0x0001), std::ldexp(1.0f, -133)) << "subnormal";
  EXPECT_EQ(bfloat16ToFloat(0x8001), -std::ldexp(1.0f, -133));
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x8000)), 0x80000000u) << "negative zero";
  EXPECT_EQ(bfloat16ToFloat(0x7f80), INFINITY);
  EXPECT_EQ(bfloat16ToFloat(0xff80), -INFINITY);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(0x7fc0)));
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(0x7f81)));
}

TEST(ConvertToF32Test, StoredTypes) {
  const uint16_t halves[] = {0x3c00, 0x8001};
  const uint16_t bfloats[] = {0x4049, 0xff80};
  const int8_t bytes[] = {-128, 127};
  const int64_t wide[] = {-3, 1ll << 40};
  float out[2];
  convertToF32(WeightType::F16, reinterpret_cast<const uint8_t *>(halves), 2,
               out);
  EXPECT_THAT(out, ElementsAre(1.0f, -std::ldexp(1.0f, -24)));
  convertToF32(WeightType::BF16, reinterpret_cast<const uint8_t *>(bfloats), 2,
               out);
  EXPECT_THAT(out, ElementsAre(3.140625f, -INFINITY));
  convertToF32(WeightType::I8, reinterpret_cast<const uint8_t *>(bytes), 2,
               out);
  EXPECT_THAT(out, ElementsAre(-128.0f, 127.0f));
  convertToF32(WeightType::U8, reinterpret_cast<const uint8_t *>(bytes), 2,
               out);
  EXPECT_THAT(out, ElementsAre(128.0f, 127.0f));
  convertToF32(WeightType::I64, reinterpret_cast<const uint8_t *>(wide), 2,
               out);
  EXPECT_THAT(out, ElementsAre(-3.0f, std::ldexp(1.0f, 40)));
}

TEST(TensorInfoTest, SizesAndNames) {
  TensorInfo info;
  EXPECT_EQ(info.getNumElements(), 1) << "a scalar";
  info.type = WeightType::BF16;
  info.shape = {3, 4};
  EXPECT_EQ(info.getNumElements(), 12);
  EXPECT_EQ(info.getNumBytes(), 24);
  EXPECT_EQ(stringifyWeightType(WeightType::BF16), "bf16");
  EXPECT_EQ(stringifyWeightType(WeightType::U8), "u8");
  EXPECT_EQ(getWeightTypeSize(WeightType::I64), 8);
  EXPECT_EQ(getWeightTypeSize(WeightType::I8), 1);
}

//===----------------------------------------------------------------------===//
// OverlayWeightSource
//===----------------------------------------------------------------------===//

/// A checkpoint stand-in holding one F16 tensor `w` of two elements.
class FakeSource : public WeightSource {
public:
  std::vector<std::string> getTensorNames() const override { return {"w"}; }
  llvm::Expected<TensorInfo>
  getTensorInfo(llvm::StringRef name) const override {
    if (name != "w")
      return missing(name);
    TensorInfo info;
    info.type = WeightType::F16;
    info.shape = {2};
    return info;
  }
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override {
    if (name != "w")
      return missing(name);
    return llvm::ArrayRef<uint8_t>(data);
  }
  std::string describe() const override { return "fake.safetensors"; }

private:
  static llvm::Error missing(llvm::StringRef name) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "fake.safetensors: no tensor '" + name +
                                       "'");
  }
  /// 1.0 and -2.0 as little-endian halves.
  const uint8_t data[4] = {0x00, 0x3c, 0x00, 0xc0};
};

TEST(EmptyWeightSourceTest, HasNoTensors) {
  EmptyWeightSource empty("no weights");
  EXPECT_TRUE(empty.getTensorNames().empty());
  EXPECT_EQ(empty.describe(), "no weights");
  llvm::Expected<TensorInfo> info = empty.getTensorInfo("w");
  ASSERT_FALSE(static_cast<bool>(info));
  EXPECT_EQ(llvm::toString(info.takeError()), "no tensor 'w'");
  llvm::Expected<llvm::ArrayRef<uint8_t>> data = empty.getTensorData("w");
  ASSERT_FALSE(static_cast<bool>(data));
  EXPECT_EQ(llvm::toString(data.takeError()), "no tensor 'w'");
}

TEST(OverlayWeightSourceTest, AddsTensorsOverTheBase) {
  OverlayWeightSource overlay(std::make_unique<FakeSource>());
  expectSuccess(
      overlay.addTensor("llmc.rope", {2, 2}, {1.0f, 2.0f, 3.0f, 4.0f}));
  expectSuccess(overlay.addTensor("a.first", {1}, {5.0f}));
  EXPECT_THAT(overlay.getTensorNames(),
              ElementsAre("a.first", "llmc.rope", "w"));
  EXPECT_EQ(overlay.describe(), "fake.safetensors");
  EXPECT_EQ(overlay.getBase().describe(), "fake.safetensors");

  llvm::Expected<TensorInfo> own = overlay.getTensorInfo("llmc.rope");
  ASSERT_TRUE(static_cast<bool>(own)) << llvm::toString(own.takeError());
  EXPECT_EQ(own->type, WeightType::F32);
  EXPECT_THAT(own->shape, ElementsAre(2, 2));
  EXPECT_EQ(cantFail(overlay.getTensorInfo("w")).type, WeightType::F16);

  std::vector<float> values(4);
  expectSuccess(overlay.readAsF32("llmc.rope", values));
  EXPECT_THAT(values, ElementsAre(1.0f, 2.0f, 3.0f, 4.0f));
  values.resize(2);
  expectSuccess(overlay.readAsF32("w", values));
  EXPECT_THAT(values, ElementsAre(1.0f, -2.0f));
  EXPECT_EQ(cantFail(overlay.getTensorData("llmc.rope")).size(), 16u);
}

TEST(OverlayWeightSourceTest, RefusesToShadowTheBase) {
  OverlayWeightSource overlay(std::make_unique<FakeSource>());
  EXPECT_THAT(errorText(overlay.addTensor("w", {2}, {0.0f, 0.0f})),
              AllOf(HasSubstr("'w'"), HasSubstr("shadow")));
  EXPECT_EQ(cantFail(overlay.getTensorInfo("w")).type, WeightType::F16);
}

TEST(OverlayWeightSourceTest, RefusesDuplicates) {
  OverlayWeightSource overlay(std::make_unique<FakeSource>());
  expectSuccess(overlay.addTensor("llmc.t", {1}, {1.0f}));
  EXPECT_THAT(errorText(overlay.addTensor("llmc.t", {1}, {2.0f})),
              AllOf(HasSubstr("'llmc.t'"), HasSubstr("twice")));
  std::vector<float> value(1);
  expectSuccess(overlay.readAsF32("llmc.t", value));
  EXPECT_EQ(value[0], 1.0f) << "the first tensor stays";
}

TEST(OverlayWeightSourceTest, RefusesValuesThatDoNotFitTheShape) {
  OverlayWeightSource overlay(std::make_unique<FakeSource>());
  EXPECT_THAT(errorText(overlay.addTensor("llmc.t", {2, 2}, {1.0f})),
              HasSubstr("'llmc.t'"));
  EXPECT_THAT(errorText(overlay.getTensorInfo("llmc.t").takeError()),
              HasSubstr("'llmc.t'"));
}

TEST(OverlayWeightSourceTest, ReadErrorsNameSourceAndTensor) {
  OverlayWeightSource overlay(std::make_unique<FakeSource>());
  std::vector<float> values(3);
  EXPECT_THAT(errorText(overlay.readAsF32("w", values)),
              AllOf(HasSubstr("fake.safetensors"), HasSubstr("'w'"),
                    HasSubstr("2 elements")));
  EXPECT_THAT(errorText(overlay.readAsF32("absent", values)),
              AllOf(HasSubstr("fake.safetensors"), HasSubstr("'absent'")));
}

} // namespace
