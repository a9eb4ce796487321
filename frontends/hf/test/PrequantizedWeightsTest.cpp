//===- PrequantizedWeightsTest.cpp - GPTQ/AWQ/compressed-tensors layers ---===//
//
// Each test packs known integers, scales and zero points the way the
// format's reference packer does, and checks that the weight source serves
// them unpacked and dequantized, or names the file and tensor that break the
// format.
//
//===----------------------------------------------------------------------===//

#include "frontends/hf/PrequantizedWeights.h"

#include "frontends/hf/test/ErrorMessage.h"
#include "frontends/hf/test/SafetensorsWriter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace llmc::hf;
using namespace llmc::hf::test;
using llmc::plugins::StoredQuantizedTensor;
using llmc::plugins::WeightType;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

constexpr int64_t kRows = 8, kCols = 16, kGroup = 8, kGroups = 2;
constexpr const char *kModule = "model.layers.0.mlp.up_proj";

TestTensor makeTensor(llvm::StringRef name, llvm::StringRef dtype,
                      std::vector<int64_t> shape, const void *data,
                      size_t bytes) {
  TestTensor tensor{name.str(), dtype.str(), std::move(shape), {}};
  tensor.bytes.assign(static_cast<const char *>(data), bytes);
  return tensor;
}

TestTensor makeI32(llvm::StringRef name, std::vector<int64_t> shape,
                   const std::vector<uint32_t> &words) {
  return makeTensor(name, "I32", std::move(shape), words.data(),
                    words.size() * 4);
}

/// The unsigned integers, scales and zero points of the layer every test
/// packs: u[n][k] cycles through the whole range, scale[n][g] and zero[n][g]
/// vary by row and group.
struct Layer {
  int64_t bits;
  std::vector<uint32_t> u = std::vector<uint32_t>(kRows * kCols);
  std::vector<float> scale = std::vector<float>(kRows * kGroups);
  std::vector<uint32_t> zero = std::vector<uint32_t>(kRows * kGroups);

  Layer(int64_t bits, bool symmetric) : bits(bits) {
    uint32_t levels = 1u << bits;
    for (int64_t i = 0; i < kRows * kCols; ++i)
      u[i] = (i * 7 + i / 5) % levels;
    for (int64_t i = 0; i < kRows * kGroups; ++i) {
      scale[i] = 0.25f + 0.125f * i;
      // From 1: GPTQ v1 cannot store a zero point of 0.
      zero[i] = symmetric ? levels / 2 : 1 + (i * 3) % (levels - 1);
    }
  }

  float dequantized(int64_t n, int64_t k) const {
    int64_t group = n * kGroups + k / kGroup;
    return (static_cast<float>(u[n * kCols + k]) - zero[group]) * scale[group];
  }

  /// Scales [G, N] (`transposed`) or [N, G] as f16 bits.
  std::vector<uint16_t> f16Scales(bool transposed) const {
    std::vector<uint16_t> bits(kRows * kGroups);
    for (int64_t n = 0; n < kRows; ++n)
      for (int64_t g = 0; g < kGroups; ++g) {
        float value = scale[n * kGroups + g];
        uint32_t f32;
        std::memcpy(&f32, &value, 4);
        // These scales are exact in f16: rebias the exponent, keep 10
        // mantissa bits.
        uint16_t half = static_cast<uint16_t>(
            ((((f32 >> 23) & 0xff) - 112) << 10) | ((f32 >> 13) & 0x3ff));
        bits[transposed ? g * kRows + n : n * kGroups + g] = half;
      }
    return bits;
  }
};

/// GPTQ: qweight [K/pf, N] along K, qzeros [G, N/pf] along N.
std::vector<TestTensor> packGptq(const Layer &layer, bool zerosMinusOne) {
  int64_t pf = 32 / layer.bits;
  std::vector<uint32_t> qweight(kCols / pf * kRows), qzeros(kGroups * kRows / pf);
  for (int64_t n = 0; n < kRows; ++n)
    for (int64_t k = 0; k < kCols; ++k)
      qweight[(k / pf) * kRows + n] |= layer.u[n * kCols + k]
                                       << (layer.bits * (k % pf));
  uint32_t mask = (1u << layer.bits) - 1;
  for (int64_t g = 0; g < kGroups; ++g)
    for (int64_t n = 0; n < kRows; ++n)
      qzeros[g * (kRows / pf) + n / pf] |=
          ((layer.zero[n * kGroups + g] - (zerosMinusOne ? 1 : 0)) & mask)
          << (layer.bits * (n % pf));
  std::vector<int32_t> gIdx(kCols);
  for (int64_t k = 0; k < kCols; ++k)
    gIdx[k] = k / kGroup;
  std::vector<uint16_t> scales = layer.f16Scales(/*transposed=*/true);
  std::string m = kModule;
  return {makeI32(m + ".qweight", {kCols / pf, kRows}, qweight),
          makeI32(m + ".qzeros", {kGroups, kRows / pf}, qzeros),
          makeTensor(m + ".scales", "F16", {kGroups, kRows}, scales.data(),
                     scales.size() * 2),
          makeTensor(m + ".g_idx", "I32", {kCols}, gIdx.data(), kCols * 4)};
}

/// AWQ GEMM: qweight [K, N/8] along N, nibble i holding column
/// [0, 2, 4, 6, 1, 3, 5, 7][i] of its eight.
std::vector<TestTensor> packAwq(const Layer &layer) {
  const int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  std::vector<uint32_t> qweight(kCols * kRows / 8), qzeros(kGroups * kRows / 8);
  for (int64_t k = 0; k < kCols; ++k)
    for (int64_t word = 0; word < kRows / 8; ++word)
      for (int nibble = 0; nibble < 8; ++nibble)
        qweight[k * (kRows / 8) + word] |=
            layer.u[(word * 8 + order[nibble]) * kCols + k] << (4 * nibble);
  for (int64_t g = 0; g < kGroups; ++g)
    for (int64_t word = 0; word < kRows / 8; ++word)
      for (int nibble = 0; nibble < 8; ++nibble)
        qzeros[g * (kRows / 8) + word] |=
            layer.zero[(word * 8 + order[nibble]) * kGroups + g] << (4 * nibble);
  std::vector<uint16_t> scales = layer.f16Scales(/*transposed=*/true);
  std::string m = kModule;
  return {makeI32(m + ".qweight", {kCols, kRows / 8}, qweight),
          makeI32(m + ".qzeros", {kGroups, kRows / 8}, qzeros),
          makeTensor(m + ".scales", "F16", {kGroups, kRows}, scales.data(),
                     scales.size() * 2)};
}

/// compressed-tensors pack-quantized: weight_packed [N, K/pf] along K,
/// weight_zero_point [N/pf, G] along N; both hold q + 2^(bits-1) for signed
/// q, which for our unsigned u is u itself.
std::vector<TestTensor> packCompressed(const Layer &layer, bool symmetric) {
  int64_t pf = 32 / layer.bits;
  std::vector<uint32_t> packed(kRows * kCols / pf), zeros(kRows / pf * kGroups);
  for (int64_t n = 0; n < kRows; ++n)
    for (int64_t k = 0; k < kCols; ++k)
      packed[n * (kCols / pf) + k / pf] |= layer.u[n * kCols + k]
                                           << (layer.bits * (k % pf));
  for (int64_t n = 0; n < kRows; ++n)
    for (int64_t g = 0; g < kGroups; ++g)
      zeros[(n / pf) * kGroups + g] |= layer.zero[n * kGroups + g]
                                       << (layer.bits * (n % pf));
  std::string m = kModule;
  int64_t shape[2] = {kRows, kCols};
  std::vector<TestTensor> tensors = {
      makeI32(m + ".weight_packed", {kRows, kCols / pf}, packed),
      makeF32(m + ".weight_scale", {kRows, kGroups}, layer.scale),
      makeTensor(m + ".weight_shape", "I64", {2}, shape, sizeof(shape))};
  if (!symmetric)
    tensors.push_back(makeI32(m + ".weight_zero_point", {kRows / pf, kGroups},
                              zeros));
  return tensors;
}

PackedQuantizationConfig makeConfig(PackingFormat format, int64_t bits,
                                    bool symmetric, bool zerosMinusOne) {
  PackedQuantizationConfig config;
  config.method = "test";
  config.format = format;
  config.bits = bits;
  config.groupSize = kGroup;
  config.symmetric = symmetric;
  config.zerosMinusOne = zerosMinusOne;
  return config;
}

llvm::Expected<std::unique_ptr<PrequantizedWeights>>
openWeights(const PackedQuantizationConfig &config,
            std::vector<TestTensor> tensors) {
  tensors.push_back(makeF32("model.norm.weight", {2}, {1.0f, 2.0f}));
  std::string path = writeFile(makeTestDir(), "model.safetensors",
                               serializeSafetensors(tensors));
  auto source = SafetensorsSource::openFile(path);
  if (!source)
    return source.takeError();
  return PrequantizedWeights::open(config, std::move(*source));
}

struct FormatCase {
  const char *name;
  PackingFormat format;
  int64_t bits;
  bool symmetric;
  bool zerosMinusOne;
};

class PackedFormatTest : public ::testing::TestWithParam<FormatCase> {};

std::vector<TestTensor> packCase(const FormatCase &param, const Layer &layer) {
  switch (param.format) {
  case PackingFormat::Gptq:
    return packGptq(layer, param.zerosMinusOne);
  case PackingFormat::Awq:
    return packAwq(layer);
  case PackingFormat::PackQuantized:
    return packCompressed(layer, param.symmetric);
  }
  return {};
}

TEST_P(PackedFormatTest, ServesUnpackedAndDequantized) {
  const FormatCase &param = GetParam();
  Layer layer(param.bits, param.symmetric);
  auto weights = openWeights(makeConfig(param.format, param.bits,
                                        param.symmetric, param.zerosMinusOne),
                             packCase(param, layer));
  ASSERT_TRUE(static_cast<bool>(weights)) << toString(weights.takeError());
  std::string weight = std::string(kModule) + ".weight";
  EXPECT_THAT((*weights)->getTensorNames(),
              ElementsAre("model.layers.0.mlp.up_proj.weight",
                          "model.norm.weight"));
  auto info = (*weights)->getTensorInfo(weight);
  ASSERT_TRUE(static_cast<bool>(info));
  EXPECT_EQ(info->type, WeightType::F32);
  EXPECT_THAT(info->shape, ElementsAre(kRows, kCols));

  auto scheme = (*weights)->getStoredQuantization(weight);
  ASSERT_TRUE(scheme.has_value());
  EXPECT_EQ(scheme->bits, param.bits);
  EXPECT_EQ(scheme->groupSize, kGroup);
  EXPECT_EQ(scheme->asymmetric, !param.symmetric);
  EXPECT_FALSE((*weights)->getStoredQuantization("model.norm.weight"));

  auto stored = (*weights)->getStoredQuantized(weight);
  ASSERT_TRUE(static_cast<bool>(stored)) << toString(stored.takeError());
  EXPECT_EQ(stored->scales, layer.scale);
  uint32_t half = 1u << (param.bits - 1);
  for (int64_t i = 0; i < kRows * kCols; ++i) {
    uint8_t expected = static_cast<uint8_t>(
        param.symmetric ? layer.u[i] - half : layer.u[i]);
    ASSERT_EQ(stored->values[i], expected) << "element " << i;
  }
  if (param.symmetric)
    EXPECT_TRUE(stored->zeroPoints.empty());
  else
    EXPECT_EQ(std::vector<uint32_t>(stored->zeroPoints.begin(),
                                    stored->zeroPoints.end()),
              layer.zero);

  auto data = (*weights)->getTensorData(weight);
  ASSERT_TRUE(static_cast<bool>(data));
  ASSERT_EQ(data->size(), kRows * kCols * 4u);
  const float *values = reinterpret_cast<const float *>(data->data());
  for (int64_t n = 0; n < kRows; ++n)
    for (int64_t k = 0; k < kCols; ++k)
      ASSERT_EQ(values[n * kCols + k], layer.dequantized(n, k))
          << "row " << n << " column " << k;
}

INSTANTIATE_TEST_SUITE_P(
    Formats, PackedFormatTest,
    ::testing::Values(
        FormatCase{"GptqV1Sym4", PackingFormat::Gptq, 4, true, true},
        FormatCase{"GptqV1Asym4", PackingFormat::Gptq, 4, false, true},
        FormatCase{"GptqV2Asym8", PackingFormat::Gptq, 8, false, false},
        FormatCase{"GptqV2Sym8", PackingFormat::Gptq, 8, true, false},
        FormatCase{"Awq4", PackingFormat::Awq, 4, false, false},
        FormatCase{"PackedSym4", PackingFormat::PackQuantized, 4, true, false},
        FormatCase{"PackedAsym4", PackingFormat::PackQuantized, 4, false,
                   false},
        FormatCase{"PackedAsym8", PackingFormat::PackQuantized, 8, false,
                   false}),
    [](const ::testing::TestParamInfo<FormatCase> &info) {
      return std::string(info.param.name);
    });

TEST(PrequantizedWeightsTest, GptqV1ZeroOfZeroOverflows) {
  Layer layer(4, /*symmetric=*/false);
  layer.zero[3] = 0;
  EXPECT_THAT(
      errorMessage((*openWeights(makeConfig(PackingFormat::Gptq, 4, false,
                                            true),
                                 packGptq(layer, true)))
                       ->getStoredQuantized(std::string(kModule) + ".weight")),
      AllOf(HasSubstr("model.safetensors"),
            HasSubstr("model.layers.0.mlp.up_proj.qzeros"),
            HasSubstr("zero point 16 in group 1 of output channel 1"),
            HasSubstr("cannot hold")));
}

TEST(PrequantizedWeightsTest, SymmetricNeedsMidpointZeros) {
  Layer layer(4, /*symmetric=*/true);
  layer.zero[0] = 7;
  EXPECT_THAT(
      errorMessage((*openWeights(makeConfig(PackingFormat::Gptq, 4, true,
                                            false),
                                 packGptq(layer, false)))
                       ->getStoredQuantized(std::string(kModule) + ".weight")),
      HasSubstr("holds zero point 7 in group 0 of output channel 0; a "
                "symmetric scheme's is 8"));
}

/// GPTQ with act-order: the group index `group(k)` in place of k / 8.
std::vector<TestTensor> packActOrder(const Layer &layer,
                                     int32_t (*group)(int64_t)) {
  std::vector<TestTensor> tensors = packGptq(layer, true);
  std::vector<int32_t> gIdx(kCols);
  for (int64_t k = 0; k < kCols; ++k)
    gIdx[k] = group(k);
  tensors.back() = makeTensor(std::string(kModule) + ".g_idx", "I32", {kCols},
                              gIdx.data(), kCols * 4);
  return tensors;
}

TEST(PrequantizedWeightsTest, ActOrderServesOneGroupPerChannel) {
  Layer layer(4, /*symmetric=*/false);
  auto weights = openWeights(
      makeConfig(PackingFormat::Gptq, 4, false, true),
      packActOrder(layer, [](int64_t k) { return int32_t(k % 2); }));
  ASSERT_TRUE(static_cast<bool>(weights)) << toString(weights.takeError());
  std::string weight = std::string(kModule) + ".weight";
  EXPECT_EQ((*weights)->getStoredQuantization(weight)->groupSize, 1);
  auto stored = (*weights)->getStoredQuantized(weight);
  ASSERT_TRUE(static_cast<bool>(stored));
  ASSERT_EQ(stored->scales.size(), size_t(kRows * kCols));
  ASSERT_EQ(stored->zeroPoints.size(), size_t(kRows * kCols));
  auto data = (*weights)->getTensorData(weight);
  ASSERT_TRUE(static_cast<bool>(data));
  const float *values = reinterpret_cast<const float *>(data->data());
  for (int64_t n = 0; n < kRows; ++n)
    for (int64_t k = 0; k < kCols; ++k) {
      int64_t group = n * kGroups + k % 2;
      EXPECT_EQ(stored->scales[n * kCols + k], layer.scale[group]);
      EXPECT_EQ(stored->zeroPoints[n * kCols + k], layer.zero[group]);
      EXPECT_EQ(values[n * kCols + k],
                (static_cast<float>(layer.u[n * kCols + k]) -
                 layer.zero[group]) *
                    layer.scale[group]);
    }
}

TEST(PrequantizedWeightsTest, GroupIndexOutOfRangeIsAnError) {
  Layer layer(4, /*symmetric=*/true);
  EXPECT_THAT(
      errorMessage(openWeights(
          makeConfig(PackingFormat::Gptq, 4, true, true),
          packActOrder(layer, [](int64_t k) { return int32_t(k == 5 ? 2 : 0); }))),
      AllOf(HasSubstr("g_idx"),
            HasSubstr("puts input channel 5 in group 2, outside [0, 2)")));
}

TEST(PrequantizedWeightsTest, MismatchedShapesNameTheTensor) {
  Layer layer(4, /*symmetric=*/false);
  std::vector<TestTensor> tensors = packAwq(layer);
  tensors[2].shape = {kGroups + 1, kRows};
  tensors[2].bytes.append(kRows * 2, '\0');
  EXPECT_THAT(errorMessage(openWeights(
                  makeConfig(PackingFormat::Awq, 4, false, false), tensors)),
              AllOf(HasSubstr("model.safetensors: tensor "
                              "'model.layers.0.mlp.up_proj.scales'"),
                    HasSubstr("has shape [3, 8], expected [2, 8]")));
}

TEST(PrequantizedWeightsTest, GroupSizeMustDivideInputChannels) {
  Layer layer(8, /*symmetric=*/false);
  PackedQuantizationConfig config =
      makeConfig(PackingFormat::PackQuantized, 8, false, false);
  config.groupSize = 5;
  EXPECT_THAT(errorMessage(openWeights(config, packCompressed(layer, false))),
              HasSubstr("has 16 input channels, which group size 5 does not "
                        "divide"));
}

TEST(PrequantizedWeightsTest, MissingPartIsAnError) {
  Layer layer(4, /*symmetric=*/false);
  std::vector<TestTensor> tensors = packCompressed(layer, false);
  tensors.pop_back();
  EXPECT_THAT(
      errorMessage(openWeights(
          makeConfig(PackingFormat::PackQuantized, 4, false, false), tensors)),
      HasSubstr("'model.layers.0.mlp.up_proj.weight_zero_point' (test, "
                "4-bit) is missing"));
}

TEST(PrequantizedWeightsTest, CheckpointWithoutPackedTensorsIsAnError) {
  EXPECT_THAT(errorMessage(openWeights(
                  makeConfig(PackingFormat::Gptq, 4, true, true), {})),
              HasSubstr("has a test quantization_config, but no tensor is "
                        "named '*.qweight'"));
}

/// quantization_config objects, read from a config.json text.
llvm::Expected<std::optional<PackedQuantizationConfig>>
readConfig(llvm::StringRef quantization) {
  std::string text =
      (llvm::Twine(R"({"model_type": "qwen2", "quantization_config": )") +
       quantization + "}")
          .str();
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return json.takeError();
  return readQuantizationConfig(*json->getAsObject(), "dir/config.json");
}

TEST(QuantizationConfigTest, ReadsEachMethod) {
  auto gptq = readConfig(R"({"quant_method": "gptq", "bits": 8,
      "group_size": -1, "sym": false, "desc_act": false})");
  ASSERT_TRUE(gptq && gptq->has_value());
  EXPECT_EQ((*gptq)->format, PackingFormat::Gptq);
  EXPECT_EQ((*gptq)->bits, 8);
  EXPECT_EQ((*gptq)->groupSize, 0);
  EXPECT_FALSE((*gptq)->symmetric);
  EXPECT_TRUE((*gptq)->zerosMinusOne);

  auto awq = readConfig(R"({"quant_method": "awq", "w_bit": 4,
      "q_group_size": 128, "zero_point": true, "version": "GEMM"})");
  ASSERT_TRUE(awq && awq->has_value());
  EXPECT_EQ((*awq)->format, PackingFormat::Awq);
  EXPECT_EQ((*awq)->groupSize, 128);
  EXPECT_FALSE((*awq)->symmetric);

  auto autoRound = readConfig(R"({"quant_method": "auto-round", "bits": 4,
      "group_size": 32, "sym": true, "packing_format": "auto_round:auto_gptq"})");
  ASSERT_TRUE(autoRound && autoRound->has_value());
  EXPECT_EQ((*autoRound)->format, PackingFormat::Gptq);
  EXPECT_TRUE((*autoRound)->zerosMinusOne);
  auto autoRoundNative = readConfig(R"({"quant_method": "intel/auto-round",
      "bits": 4, "group_size": 32, "sym": false, "backend": "auto_round:gptq"})");
  ASSERT_TRUE(autoRoundNative && autoRoundNative->has_value());
  EXPECT_FALSE((*autoRoundNative)->zerosMinusOne);
  auto autoRoundAwq = readConfig(R"({"quant_method": "auto-round", "bits": 4,
      "group_size": 32, "sym": false, "packing_format": "auto_round:auto_awq"})");
  ASSERT_TRUE(autoRoundAwq && autoRoundAwq->has_value());
  EXPECT_EQ((*autoRoundAwq)->format, PackingFormat::Awq);

  auto compressed = readConfig(R"({"quant_method": "compressed-tensors",
      "format": "pack-quantized", "quantization_status": "compressed",
      "config_groups": {"group_0": {"targets": ["Linear"],
        "weights": {"num_bits": 4, "type": "int", "symmetric": false,
                    "strategy": "group", "group_size": 64},
        "input_activations": null}}, "ignore": ["lm_head"]})");
  ASSERT_TRUE(compressed && compressed->has_value())
      << toString(compressed.takeError());
  EXPECT_EQ((*compressed)->format, PackingFormat::PackQuantized);
  EXPECT_EQ((*compressed)->groupSize, 64);
  EXPECT_FALSE((*compressed)->symmetric);

  auto none = readConfig("null");
  ASSERT_TRUE(static_cast<bool>(none));
  EXPECT_FALSE(none->has_value());
}

TEST(QuantizationConfigTest, MalformedConfigsNameTheField) {
  EXPECT_THAT(errorMessage(readConfig(R"({"quant_method": "gptq", "bits": 4})")),
              HasSubstr("dir/config.json: field "
                        "'quantization_config.group_size' is missing"));
  EXPECT_THAT(errorMessage(readConfig(
                  R"({"quant_method": "gptq", "bits": 3, "group_size": 128})")),
              HasSubstr("'quantization_config.bits' 3 is not supported (llmc "
                        "compiles 4 and 8 bits)"));
  EXPECT_THAT(errorMessage(readConfig(
                  R"({"quant_method": "awq", "bits": 8, "group_size": 128})")),
              HasSubstr("'quantization_config.bits' 8 is not supported (llmc "
                        "compiles 4 bits)"));
  EXPECT_THAT(errorMessage(readConfig(R"({"quant_method": "bitsandbytes"})")),
              HasSubstr("'quantization_config.quant_method' 'bitsandbytes' is "
                        "not supported"));
  EXPECT_THAT(errorMessage(readConfig(R"({"quant_method": "gptq", "bits": 4,
      "group_size": 0})")),
              HasSubstr("'quantization_config.group_size' must be -1 or "
                        "positive, got 0"));
  EXPECT_THAT(
      errorMessage(readConfig(R"({"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"weights": {"num_bits": 8,
        "strategy": "channel"}, "input_activations": {"num_bits": 8}}}})")),
      HasSubstr("'quantization_config.config_groups.group_0.input_activations' "
                "is set"));
  EXPECT_THAT(
      errorMessage(readConfig(R"({"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"weights": {"num_bits": 4,
        "strategy": "group"}}}})")),
      HasSubstr("'quantization_config.config_groups.group_0.weights."
                "group_size' is missing"));
  EXPECT_THAT(errorMessage(readConfig("[1]")),
              HasSubstr("'quantization_config' must be an object"));
}

} // namespace
