//===- DerivedWeightTest.cpp - derived tensor names and their source ------===//

#include "backends/common/quant/DerivedWeightSource.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace llmc;
using namespace llmc::quant;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

/// An in-memory source of F32 tensors.
class MemorySource : public plugins::WeightSource {
public:
  void add(std::string name, llvm::SmallVector<int64_t> shape,
           std::vector<float> values) {
    tensors[name] = {{plugins::WeightType::F32, std::move(shape)},
                     std::move(values)};
  }
  std::vector<std::string> getTensorNames() const override {
    std::vector<std::string> names;
    for (const auto &entry : tensors)
      names.push_back(entry.getKey().str());
    llvm::sort(names);
    return names;
  }
  llvm::Expected<plugins::TensorInfo>
  getTensorInfo(llvm::StringRef name) const override {
    auto found = tensors.find(name);
    if (found == tensors.end())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no tensor '" + name + "'");
    return found->second.info;
  }
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override {
    auto found = tensors.find(name);
    if (found == tensors.end())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no tensor '" + name + "'");
    const std::vector<float> &values = found->second.values;
    return llvm::ArrayRef(reinterpret_cast<const uint8_t *>(values.data()),
                          values.size() * 4);
  }
  std::string describe() const override { return "memory"; }
  void releaseTensor(llvm::StringRef name) const override {
    released.push_back(name.str());
  }

  mutable std::vector<std::string> released;

private:
  struct Tensor {
    plugins::TensorInfo info;
    std::vector<float> values;
  };
  llvm::StringMap<Tensor> tensors;
};

std::vector<float> floatsOf(llvm::ArrayRef<uint8_t> bytes) {
  std::vector<float> values(bytes.size() / 4);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

TEST(DerivedWeightNameTest, FormatsAndParses) {
  DerivedWeightName name{"model.layers.0.mlp.up_proj.weight",
                         Derivation::quantized({4, 64, true, FloatType::BF16}),
                         WeightPart::Scale};
  EXPECT_EQ(name.str(),
            "model.layers.0.mlp.up_proj.weight#w4_g64_asym_bf16.scale");
  std::optional<DerivedWeightName> parsed =
      DerivedWeightName::parse(name.str());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->source, name.source);
  EXPECT_EQ(parsed->derivation, name.derivation);
  EXPECT_EQ(parsed->part, WeightPart::Scale);

  parsed = DerivedWeightName::parse("lm_head.weight#w8_ch_sym_f16");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->derivation.scheme->groupSize, 0);
  EXPECT_FALSE(parsed->part);
  parsed = DerivedWeightName::parse("norm.weight#bf16");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->derivation, Derivation::rounded(FloatType::BF16));

  // Float zero points (stored GGUF Q4_1) have their own spelling.
  parsed = DerivedWeightName::parse("blk.0.ffn_up.weight#w4_g32_asymf_f16.zp");
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->derivation.scheme->asymmetric);
  EXPECT_TRUE(parsed->derivation.scheme->floatZeroPoints);
  EXPECT_EQ(parsed->derivation.str(), "w4_g32_asymf_f16");
}

TEST(DerivedWeightNameTest, RejectsWhatIsNotDerived) {
  for (llvm::StringRef name :
       {"model.norm.weight", "w#f32", "w#f16.scale", "w#w4_g64_sym_f16.zp",
        "w#w4_g064_sym_f16", "w#w3_g64_sym_f16", "w#w4_g0_sym_f16",
        "w#w4_g64_sym_f64", "w#w4_g64_sym_f16.bias", "#f16", "w#w4_g64_sym"})
    EXPECT_FALSE(DerivedWeightName::parse(name)) << name.str();
}

//===----------------------------------------------------------------------===//
// The source
//===----------------------------------------------------------------------===//

class DerivedWeightSourceTest : public ::testing::Test {
protected:
  void SetUp() override {
    base.add("w", {2, 8},
             {0.5f, -1.25f, 0.1f, 0.0f, 2.0f, -0.3f, 0.75f, -2.1f, //
              0.02f, 0.04f, -0.01f, 0.03f, 0.2f, 0.1f, 0.3f, 0.25f});
    base.add("norm", {3}, {0.1f, 1.0f, -3.0f});
  }
  MemorySource base;
};

TEST_F(DerivedWeightSourceTest, ServesQuantizedParts) {
  DerivedWeightSource source(base);
  llvm::Expected<plugins::TensorInfo> info =
      source.getTensorInfo("w#w4_g4_sym_f32.qweight");
  ASSERT_TRUE(static_cast<bool>(info)) << llvm::toString(info.takeError());
  EXPECT_EQ(info->type, plugins::WeightType::U8);
  EXPECT_THAT(info->shape, ElementsAre(2, 4)) << "two 4-bit values per byte";
  llvm::Expected<llvm::ArrayRef<uint8_t>> qweight =
      source.getTensorData("w#w4_g4_sym_f32.qweight");
  ASSERT_TRUE(static_cast<bool>(qweight));
  // 3, -8 | 1, 0 | 6, -1 | 2, -6 and 3, 7 | -2, 5 | 4, 2 | 6, 5.
  EXPECT_THAT(*qweight, ElementsAre(0x83, 0x01, 0xf6, 0xa2, //
                                    0x73, 0x5e, 0x24, 0x56));
  llvm::Expected<llvm::ArrayRef<uint8_t>> scale =
      source.getTensorData("w#w4_g4_sym_f32.scale");
  ASSERT_TRUE(static_cast<bool>(scale));
  EXPECT_THAT(floatsOf(*scale), ElementsAre(0x1.4109bp-3f, 0x1.5f15f2p-2f,
                                            0x1.802d32p-8f, 0x1.99999ap-5f));
}

TEST_F(DerivedWeightSourceTest, ReleaseDropsDerivedTensorsAndForwards) {
  DerivedWeightSource source(base);
  llvm::Expected<llvm::ArrayRef<uint8_t>> first =
      source.getTensorData("w#w4_g4_sym_f32.qweight");
  ASSERT_TRUE(static_cast<bool>(first));
  std::vector<uint8_t> bytes(first->begin(), first->end());
  source.releaseTensor("w");
  EXPECT_THAT(base.released, ElementsAre("w"));
  // Computed again, the same bytes.
  llvm::Expected<llvm::ArrayRef<uint8_t>> again =
      source.getTensorData("w#w4_g4_sym_f32.qweight");
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(std::vector<uint8_t>(again->begin(), again->end()), bytes);
}

TEST(DerivedWeightSourceBlocksTest, QuantizesLargeTensorsByBlocksOfRows) {
  // More rows than one block of 2^22 elements holds: the source quantizes
  // block by block and must give the bytes of quantizing it whole, and
  // name a bad value by its row in the whole tensor.
  const int64_t rows = 4200, cols = 1024;
  std::vector<float> values(rows * cols);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  for (float &value : values)
    value = normal(rng);
  MemorySource base;
  base.add("big", {rows, cols}, values);
  DerivedWeightSource source(base);
  QuantScheme scheme{4, 64, false, FloatType::BF16};
  llvm::Expected<QuantizedTensor> whole = quantize(values, rows, cols, scheme);
  ASSERT_TRUE(static_cast<bool>(whole));
  llvm::Expected<llvm::ArrayRef<uint8_t>> qweight =
      source.getTensorData("big#w4_g64_sym_bf16.qweight");
  ASSERT_TRUE(static_cast<bool>(qweight)) << llvm::toString(qweight.takeError());
  EXPECT_EQ(std::vector<uint8_t>(qweight->begin(), qweight->end()),
            packInt4(whole->values, rows, cols));

  values[4100 * cols + 7] = std::nanf("");
  MemorySource bad;
  bad.add("big", {rows, cols}, values);
  DerivedWeightSource badSource(bad);
  llvm::Expected<llvm::ArrayRef<uint8_t>> error =
      badSource.getTensorData("big#w4_g64_sym_bf16.qweight");
  ASSERT_FALSE(static_cast<bool>(error));
  EXPECT_THAT(llvm::toString(error.takeError()),
              HasSubstr("non-finite value at [4100, 7]"));
}

TEST_F(DerivedWeightSourceTest, ServesEightBitAndZeroPoints) {
  DerivedWeightSource source(base);
  llvm::Expected<plugins::TensorInfo> info =
      source.getTensorInfo("w#w8_g4_asym_f16.zp");
  ASSERT_TRUE(static_cast<bool>(info));
  EXPECT_EQ(info->type, plugins::WeightType::U8);
  EXPECT_THAT(info->shape, ElementsAre(2, 2));
  llvm::Expected<llvm::ArrayRef<uint8_t>> zp =
      source.getTensorData("w#w8_g4_asym_f16.zp");
  ASSERT_TRUE(static_cast<bool>(zp));
  EXPECT_THAT(*zp, ElementsAre(182, 131, 51, 0));
  info = source.getTensorInfo("w#w8_g4_asym_f16.scale");
  ASSERT_TRUE(static_cast<bool>(info));
  EXPECT_EQ(info->type, plugins::WeightType::F16);
  info = source.getTensorInfo("w#w8_ch_sym_f16.qweight");
  ASSERT_TRUE(static_cast<bool>(info));
  EXPECT_EQ(info->type, plugins::WeightType::I8);
  EXPECT_THAT(info->shape, ElementsAre(2, 8));
}

TEST_F(DerivedWeightSourceTest, ServesReferenceValuesAsF32) {
  DerivedWeightSource source(base);
  llvm::Expected<llvm::ArrayRef<uint8_t>> dequantized =
      source.getTensorData("w#w4_g4_sym_f32");
  ASSERT_TRUE(static_cast<bool>(dequantized));
  std::vector<float> values = floatsOf(*dequantized);
  ASSERT_EQ(values.size(), 16u);
  EXPECT_EQ(values[1], -8 * 0x1.4109bp-3f);
  EXPECT_EQ(values[0], 3 * 0x1.4109bp-3f);
  llvm::Expected<llvm::ArrayRef<uint8_t>> rounded =
      source.getTensorData("norm#f16");
  ASSERT_TRUE(static_cast<bool>(rounded));
  EXPECT_THAT(floatsOf(*rounded), ElementsAre(0.0999755859375f, 1.0f, -3.0f));
  // Base names pass through.
  llvm::Expected<llvm::ArrayRef<uint8_t>> plain = source.getTensorData("norm");
  ASSERT_TRUE(static_cast<bool>(plain));
  EXPECT_THAT(floatsOf(*plain), ElementsAre(0.1f, 1.0f, -3.0f));
}

TEST_F(DerivedWeightSourceTest, KernelsQuantizeAsTheirRowsOfAllTheRest) {
  // w's values as a convolution kernel [2, 2, 2, 2]: the matrix [2, 8].
  std::vector<float> values(16);
  std::memcpy(values.data(),
              llvm::cantFail(base.getTensorData("w")).data(), 64);
  base.add("kernel", {2, 2, 2, 2}, values);
  DerivedWeightSource source(base);
  llvm::Expected<plugins::TensorInfo> info =
      source.getTensorInfo("kernel#w4_g4_sym_f32.qweight");
  ASSERT_TRUE(static_cast<bool>(info)) << llvm::toString(info.takeError());
  EXPECT_THAT(info->shape, ElementsAre(2, 4));
  llvm::Expected<llvm::ArrayRef<uint8_t>> kernel =
      source.getTensorData("kernel#w4_g4_sym_f32.qweight");
  llvm::Expected<llvm::ArrayRef<uint8_t>> matrix =
      source.getTensorData("w#w4_g4_sym_f32.qweight");
  ASSERT_TRUE(kernel && matrix);
  EXPECT_EQ(kernel->vec(), matrix->vec());
}

TEST_F(DerivedWeightSourceTest, ListsAddedNamesAndReportsBadOnes) {
  DerivedWeightSource source(base);
  EXPECT_FALSE(
      static_cast<bool>(source.addDerivedName("w#w4_g4_sym_f16.qweight")));
  EXPECT_THAT(source.getTensorNames(),
              ElementsAre("norm", "w", "w#w4_g4_sym_f16.qweight"));
  EXPECT_THAT(llvm::toString(source.addDerivedName("w")),
              HasSubstr("not a derived tensor name"));
  EXPECT_THAT(llvm::toString(source.addDerivedName("w#w4_g3_sym_f16.scale")),
              HasSubstr("group size 3 does not divide K = 8"));
  EXPECT_THAT(llvm::toString(source.addDerivedName("norm#w8_ch_sym_f16")),
              HasSubstr("rank 1"));
  EXPECT_THAT(llvm::toString(source.getTensorData("nope#f16").takeError()),
              HasSubstr("no tensor 'nope'"));
}

} // namespace
