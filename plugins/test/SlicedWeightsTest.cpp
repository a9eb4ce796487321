//===- SlicedWeightsTest.cpp - parts of fused tensors ---------------------===//

#include "plugins/SlicedWeights.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace llmc::plugins;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

/// A checkpoint holding `fused`: [6, 2] F32 rows r = {2r, 2r + 1}, stored
/// quantized with one integer per element (its value) and one scale per
/// row (its row index), and `other`.
class FusedSource : public WeightSource {
public:
  FusedSource() {
    for (int i = 0; i < 12; ++i)
      values[i] = static_cast<float>(i);
  }
  std::vector<std::string> getTensorNames() const override {
    return {"fused", "other"};
  }
  llvm::Expected<TensorInfo>
  getTensorInfo(llvm::StringRef name) const override {
    TensorInfo info;
    if (name == "fused")
      info.shape = {6, 2};
    else if (name == "other")
      info.shape = {3};
    else
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no tensor '" + name + "'");
    return info;
  }
  llvm::Expected<llvm::ArrayRef<uint8_t>>
  getTensorData(llvm::StringRef name) const override {
    ++reads;
    return llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(values),
                                   name == "fused" ? sizeof(values) : 12);
  }
  std::string describe() const override { return "fused.safetensors"; }
  std::optional<StoredQuantization>
  getStoredQuantization(llvm::StringRef name) const override {
    if (name != "fused")
      return std::nullopt;
    StoredQuantization quantization;
    quantization.bits = 8;
    quantization.groupSize = 0;
    return quantization;
  }
  llvm::Expected<StoredQuantizedTensor>
  getStoredQuantized(llvm::StringRef name) const override {
    StoredQuantizedTensor tensor;
    tensor.quantization = *getStoredQuantization(name);
    tensor.rows = 6;
    tensor.cols = 2;
    for (int i = 0; i < 12; ++i)
      tensor.values.push_back(static_cast<uint8_t>(i));
    for (int row = 0; row < 6; ++row)
      tensor.scales.push_back(static_cast<float>(row));
    return tensor;
  }
  void releaseTensor(llvm::StringRef name) const override {
    released.push_back(name.str());
  }

  float values[12];
  mutable int reads = 0;
  mutable std::vector<std::string> released;
};

std::vector<float> floatsOf(llvm::ArrayRef<uint8_t> bytes) {
  std::vector<float> result(bytes.size() / sizeof(float));
  std::memcpy(result.data(), bytes.data(), bytes.size());
  return result;
}

/// Two grouped parts: rows 0 and 3 (one per group), and rows 1-2 and 4-5.
std::vector<RowSlice> groupedSlices() {
  return {{getSliceName("fused", "k"), "fused", {{0, 1}, {3, 1}}},
          {getSliceName("fused", "q"), "fused", {{1, 2}, {4, 2}}}};
}

std::unique_ptr<SlicedWeightSource> makeSource(std::vector<RowSlice> slices,
                                               const FusedSource **base) {
  auto fused = std::make_unique<FusedSource>();
  *base = fused.get();
  llvm::Expected<std::unique_ptr<SlicedWeightSource>> source =
      SlicedWeightSource::create(std::move(fused), std::move(slices));
  if (!source) {
    ADD_FAILURE() << llvm::toString(source.takeError());
    return nullptr;
  }
  return std::move(*source);
}

TEST(SlicedWeightsTest, ServesPartsAsTensors) {
  const FusedSource *base;
  std::unique_ptr<SlicedWeightSource> source =
      makeSource(groupedSlices(), &base);
  ASSERT_TRUE(source);
  EXPECT_THAT(source->getTensorNames(),
              ElementsAre("fused", "fused:k", "fused:q", "other"));
  llvm::Expected<TensorInfo> info = source->getTensorInfo("fused:q");
  ASSERT_TRUE(static_cast<bool>(info)) << llvm::toString(info.takeError());
  EXPECT_THAT(info->shape, ElementsAre(4, 2));
  llvm::Expected<llvm::ArrayRef<uint8_t>> q = source->getTensorData("fused:q");
  ASSERT_TRUE(static_cast<bool>(q)) << llvm::toString(q.takeError());
  EXPECT_THAT(floatsOf(*q), ElementsAre(2, 3, 4, 5, 8, 9, 10, 11));
  llvm::Expected<llvm::ArrayRef<uint8_t>> k = source->getTensorData("fused:k");
  ASSERT_TRUE(static_cast<bool>(k));
  EXPECT_THAT(floatsOf(*k), ElementsAre(0, 1, 6, 7));
  EXPECT_EQ(getStoredTensorName(*source, "fused:k"), "fused");
  EXPECT_EQ(getStoredTensorName(*source, "other"), "other");
  // The copy is kept until released; releasing a part releases its source.
  int reads = base->reads;
  ASSERT_TRUE(static_cast<bool>(source->getTensorData("fused:q")));
  EXPECT_EQ(base->reads, reads);
  source->releaseTensor("fused:q");
  EXPECT_THAT(base->released, ElementsAre("fused"));
  ASSERT_TRUE(static_cast<bool>(source->getTensorData("fused:q")));
  EXPECT_EQ(base->reads, reads + 1);
}

TEST(SlicedWeightsTest, SlicesStoredQuantizedRows) {
  const FusedSource *base;
  std::unique_ptr<SlicedWeightSource> source =
      makeSource(groupedSlices(), &base);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->getStoredQuantization("fused:k"));
  llvm::Expected<StoredQuantizedTensor> k = source->getStoredQuantized("fused:k");
  ASSERT_TRUE(static_cast<bool>(k)) << llvm::toString(k.takeError());
  EXPECT_EQ(k->rows, 2);
  EXPECT_EQ(k->cols, 2);
  EXPECT_THAT(k->values, ElementsAre(0, 1, 6, 7));
  EXPECT_THAT(k->scales, ElementsAre(0.0f, 3.0f));
  EXPECT_FALSE(source->getStoredQuantization("other"));
}

std::string createError(std::vector<RowSlice> slices) {
  llvm::Expected<std::unique_ptr<SlicedWeightSource>> source =
      SlicedWeightSource::create(std::make_unique<FusedSource>(),
                                 std::move(slices));
  if (source) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(source.takeError());
}

TEST(SlicedWeightsTest, RefusesSlicesThatDoNotFit) {
  EXPECT_THAT(createError({{"a:q", "missing", {{0, 1}}}}),
              HasSubstr("fused.safetensors: tensor 'a:q' (rows of 'missing') "
                        "cannot be made: the checkpoint has no tensor "
                        "'missing'"));
  EXPECT_THAT(createError({{"fused:q", "fused", {{4, 3}}}}),
              HasSubstr("needs rows [4, 7) of 6"));
  EXPECT_THAT(createError({{"other", "fused", {{0, 6}}}}),
              HasSubstr("tensor 'other' (rows of 'fused') is named twice"));
  // A fused tensor with rows no part takes holds more than the config says.
  EXPECT_THAT(createError({{"fused:q", "fused", {{0, 4}}}}),
              HasSubstr("tensor 'fused' has 6 rows; its parts take 4"));
}

} // namespace
