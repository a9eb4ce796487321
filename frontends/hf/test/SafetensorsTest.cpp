//===- SafetensorsTest.cpp - safetensors files, single and sharded --------===//

#include "frontends/hf/Safetensors.h"

#include "frontends/hf/test/ErrorMessage.h"
#include "frontends/hf/test/SafetensorsWriter.h"
#include "tests/TestData.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace llmc::hf;
using namespace llmc::hf::test;
using llmc::plugins::TensorInfo;
using llmc::plugins::WeightType;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

template <typename T>
TestTensor makeTensor(llvm::StringRef name, llvm::StringRef dtype,
                      std::vector<T> values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return {
      name.str(), dtype.str(), {static_cast<int64_t>(values.size())}, bytes};
}

class SafetensorsTest : public ::testing::Test {
protected:
  /// Writes `contents` as `name` in the test's directory.
  std::string write(llvm::StringRef name, llvm::StringRef contents) {
    return writeFile(dir, name, contents);
  }
  /// The error of opening `contents` as a single file.
  std::string openError(llvm::StringRef contents) {
    path = write("model.safetensors", contents);
    return errorMessage(SafetensorsSource::openFile(path));
  }

  std::string dir = makeTestDir();
  std::string path;
};

std::vector<float> readF32(const SafetensorsSource &source,
                           llvm::StringRef name, size_t count) {
  std::vector<float> values(count);
  if (llvm::Error error = source.readAsF32(name, values))
    ADD_FAILURE() << llvm::toString(std::move(error));
  return values;
}

TEST_F(SafetensorsTest, ReadsEveryStoredType) {
  path = write("model.safetensors",
               serializeSafetensors({
                   makeF32("f32", {2, 2}, {1.5f, -2.0f, 0.25f, 8.0f}),
                   makeTensor<uint16_t>("f16", "F16", {0x3c00, 0xc000}),
                   makeTensor<uint16_t>("bf16", "BF16", {0x3f80, 0x4049}),
                   makeTensor<int8_t>("i8", "I8", {-1, 127}),
                   makeTensor<uint8_t>("u8", "U8", {255}),
                   makeTensor<int16_t>("i16", "I16", {-300}),
                   makeTensor<int32_t>("i32", "I32", {70000}),
                   makeTensor<int64_t>("i64", "I64", {-5}),
               }));
  auto source = SafetensorsSource::openFile(path);
  ASSERT_TRUE(static_cast<bool>(source)) << llvm::toString(source.takeError());
  EXPECT_THAT(
      (*source)->getTensorNames(),
      ElementsAre("bf16", "f16", "f32", "i16", "i32", "i64", "i8", "u8"));
  EXPECT_EQ((*source)->describe(), path);
  EXPECT_EQ((*source)->getTensorFile("f32"), path);

  llvm::Expected<TensorInfo> info = (*source)->getTensorInfo("f32");
  ASSERT_TRUE(static_cast<bool>(info)) << llvm::toString(info.takeError());
  EXPECT_EQ(info->type, WeightType::F32);
  EXPECT_THAT(info->shape, ElementsAre(2, 2));
  EXPECT_EQ(cantFail((*source)->getTensorInfo("bf16")).type, WeightType::BF16);
  EXPECT_EQ(cantFail((*source)->getTensorInfo("u8")).type, WeightType::U8);

  EXPECT_THAT(readF32(**source, "f32", 4),
              ElementsAre(1.5f, -2.0f, 0.25f, 8.0f));
  EXPECT_THAT(readF32(**source, "f16", 2), ElementsAre(1.0f, -2.0f));
  EXPECT_THAT(readF32(**source, "bf16", 2), ElementsAre(1.0f, 3.140625f));
  EXPECT_THAT(readF32(**source, "i8", 2), ElementsAre(-1.0f, 127.0f));
  EXPECT_THAT(readF32(**source, "u8", 1), ElementsAre(255.0f));
  EXPECT_THAT(readF32(**source, "i16", 1), ElementsAre(-300.0f));
  EXPECT_THAT(readF32(**source, "i32", 1), ElementsAre(70000.0f));
  EXPECT_THAT(readF32(**source, "i64", 1), ElementsAre(-5.0f));

  auto data = (*source)->getTensorData("f16");
  ASSERT_TRUE(static_cast<bool>(data)) << llvm::toString(data.takeError());
  EXPECT_THAT(*data, ElementsAre(0x00, 0x3c, 0x00, 0xc0));
}

TEST_F(SafetensorsTest, UnknownTensorNamesFileAndTensor) {
  path = write("model.safetensors",
               serializeSafetensors({makeF32("a", {1}, {1.0f})}));
  auto source = SafetensorsSource::openFile(path);
  ASSERT_TRUE(static_cast<bool>(source)) << llvm::toString(source.takeError());
  EXPECT_THAT(errorMessage((*source)->getTensorInfo("b")),
              AllOf(HasSubstr(path), HasSubstr("'b'")));
  EXPECT_THAT(errorMessage((*source)->getTensorData("b")),
              AllOf(HasSubstr(path), HasSubstr("'b'")));
  EXPECT_TRUE((*source)->getTensorFile("b").empty());
}

TEST_F(SafetensorsTest, IgnoresMetadataAndAcceptsEmptyTensors) {
  path = write("model.safetensors",
               frameSafetensors(R"({"__metadata__": {"format": "pt"},
                   "empty": {"dtype": "F32", "shape": [0, 4],
                             "data_offsets": [4, 4]},
                   "w": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]}})",
                                std::string(4, '\0')));
  auto source = SafetensorsSource::openFile(path);
  ASSERT_TRUE(static_cast<bool>(source)) << llvm::toString(source.takeError());
  EXPECT_THAT((*source)->getTensorNames(), ElementsAre("empty", "w"));
  EXPECT_EQ(cantFail((*source)->getTensorInfo("empty")).getNumElements(), 0);
  EXPECT_THAT(readF32(**source, "w", 1), ElementsAre(0.0f));
}

TEST_F(SafetensorsTest, ReadsReferenceCheckpointInPlace) {
  std::string file =
      llmc::test::getRefdataPath("models/tiny-llama/model.safetensors");
  auto source = SafetensorsSource::openFile(file);
  ASSERT_TRUE(static_cast<bool>(source)) << llvm::toString(source.takeError());
  EXPECT_EQ((*source)->getTensorNames().size(), 39u);
  // Expected values were read from the file with Python's struct module.
  std::vector<float> norm = readF32(**source, "model.norm.weight", 256);
  EXPECT_FLOAT_EQ(norm[0], 1.180605411529541f);
  EXPECT_FLOAT_EQ(norm[255], 1.03807532787323f);
  // The bytes are the mapping itself, not a copy per call.
  auto first = (*source)->getTensorData("lm_head.weight");
  auto second = (*source)->getTensorData("lm_head.weight");
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(first->data(), second->data());
  EXPECT_EQ(first->size(), 512u * 256u * 4u);
}

TEST_F(SafetensorsTest, ReleasedTensorsReadBackTheSame) {
  // A mapped file (the reference model) gives its pages back; a small file,
  // read into the heap, must keep its bytes (dropping heap pages would zero
  // them).
  std::vector<float> small(3000);
  for (auto [i, value] : llvm::enumerate(small))
    value = 0.5f + float(i);
  std::string smallFile =
      write("small.safetensors",
            serializeSafetensors({makeF32("small", {3000}, small)}));
  struct Case {
    std::string file, tensor;
    size_t count;
  };
  for (const Case &c :
       {Case{llmc::test::getRefdataPath("models/tiny-llama/model.safetensors"),
             "lm_head.weight", 512u * 256u},
        Case{smallFile, "small", small.size()}}) {
    auto source = SafetensorsSource::openFile(c.file);
    ASSERT_TRUE(static_cast<bool>(source))
        << llvm::toString(source.takeError());
    std::vector<float> before = readF32(**source, c.tensor, c.count);
    (*source)->releaseTensor(c.tensor);
    EXPECT_EQ(readF32(**source, c.tensor, c.count), before) << c.file;
  }
}

//===----------------------------------------------------------------------===//
// Sharded checkpoints
//===----------------------------------------------------------------------===//

constexpr llvm::StringLiteral kIndex = R"({
  "metadata": {"total_size": 16},
  "weight_map": {
    "a": "model-00001-of-00002.safetensors",
    "b": "model-00001-of-00002.safetensors",
    "c": "model-00002-of-00002.safetensors"
  }
})";

TEST_F(SafetensorsTest, ReadsShardsThroughTheIndex) {
  write("model-00001-of-00002.safetensors",
        serializeSafetensors(
            {makeF32("a", {2}, {1.0f, 2.0f}), makeF32("b", {1}, {3.0f})}));
  std::string second =
      write("model-00002-of-00002.safetensors",
            serializeSafetensors(
                {makeF32("c", {1}, {4.0f}), makeF32("unlisted", {1}, {5.0f})}));
  std::string index = write("model.safetensors.index.json", kIndex);
  auto source = SafetensorsSource::openSharded(index);
  ASSERT_TRUE(static_cast<bool>(source)) << llvm::toString(source.takeError());
  EXPECT_EQ((*source)->describe(), index);
  EXPECT_THAT((*source)->getTensorNames(), ElementsAre("a", "b", "c"));
  EXPECT_EQ((*source)->getTensorFile("c"), second);
  EXPECT_THAT(readF32(**source, "a", 2), ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(readF32(**source, "b", 1), ElementsAre(3.0f));
  EXPECT_THAT(readF32(**source, "c", 1), ElementsAre(4.0f));
}

TEST_F(SafetensorsTest, MissingShardNamesIndexShardAndTensor) {
  write("model-00001-of-00002.safetensors",
        serializeSafetensors(
            {makeF32("a", {1}, {1.0f}), makeF32("b", {1}, {3.0f})}));
  std::string index = write("model.safetensors.index.json", kIndex);
  EXPECT_THAT(errorMessage(SafetensorsSource::openSharded(index)),
              AllOf(HasSubstr(index),
                    HasSubstr("model-00002-of-00002.safetensors"),
                    HasSubstr("'c'"), HasSubstr("cannot read")));
}

TEST_F(SafetensorsTest, TensorMissingFromItsShard) {
  std::string first = write("model-00001-of-00002.safetensors",
                            serializeSafetensors({makeF32("a", {1}, {1.0f})}));
  write("model-00002-of-00002.safetensors",
        serializeSafetensors({makeF32("c", {1}, {4.0f})}));
  std::string index = write("model.safetensors.index.json", kIndex);
  EXPECT_THAT(errorMessage(SafetensorsSource::openSharded(index)),
              AllOf(HasSubstr(first + ": tensor 'b'"), HasSubstr(index),
                    HasSubstr("missing")));
}

TEST_F(SafetensorsTest, IndexWithoutWeightMap) {
  std::string index =
      write("model.safetensors.index.json", R"({"metadata": {}})");
  EXPECT_THAT(errorMessage(SafetensorsSource::openSharded(index)),
              AllOf(HasSubstr(index), HasSubstr("'weight_map'")));
}

TEST_F(SafetensorsTest, IndexShardOutsideTheCheckpoint) {
  for (llvm::StringRef shard : {"../secrets.safetensors", "/etc/passwd",
                                "sub/../../x.safetensors"}) {
    std::string index = write("model.safetensors.index.json",
                              R"({"weight_map": {"a": ")" + shard.str() +
                                  R"("}})");
    EXPECT_THAT(errorMessage(SafetensorsSource::openSharded(index)),
                AllOf(HasSubstr(index), HasSubstr("tensor 'a'"),
                      HasSubstr("names '" + shard.str() +
                                "', outside the checkpoint's directory")));
  }
}

TEST_F(SafetensorsTest, IndexEntryNotAFileName) {
  std::string index =
      write("model.safetensors.index.json", R"({"weight_map": {"a": 7}})");
  EXPECT_THAT(errorMessage(SafetensorsSource::openSharded(index)),
              AllOf(HasSubstr(index), HasSubstr("tensor 'a'")));
}

//===----------------------------------------------------------------------===//
// Malformed files: each error names the file and, where there is one, the
// tensor.
//===----------------------------------------------------------------------===//

TEST_F(SafetensorsTest, MissingFile) {
  path = dir + "/absent.safetensors";
  EXPECT_THAT(errorMessage(SafetensorsSource::openFile(path)),
              AllOf(HasSubstr(path), HasSubstr("cannot read")));
}

TEST_F(SafetensorsTest, TruncatedBeforeHeaderLength) {
  std::string message = openError(llvm::StringRef("\x10\x00\x00", 3));
  EXPECT_THAT(message, AllOf(HasSubstr(path), HasSubstr("truncated")));
}

TEST_F(SafetensorsTest, HeaderLengthBeyondFile) {
  std::string file = frameSafetensors("{}", "");
  file[0] = 100;
  EXPECT_THAT(openError(file),
              AllOf(HasSubstr(path), HasSubstr("header length 100 exceeds "
                                               "the file (10 bytes)")));
}

TEST_F(SafetensorsTest, HeaderLengthBeyondTheFormatsLimit) {
  // Checked before the length is compared with the file, so even a file
  // that long would not have its JSON parsed.
  std::string file = frameSafetensors("{}", "");
  file[0] = 0;
  file[1] = static_cast<char>(0xe2);
  file[2] = static_cast<char>(0xf5);
  file[3] = 0x05; // 100'000'256 bytes
  EXPECT_THAT(openError(file),
              AllOf(HasSubstr(path),
                    HasSubstr("header length 100000256 exceeds the format's "
                              "limit of 100000000 bytes")));
}

TEST_F(SafetensorsTest, HeaderNotJson) {
  EXPECT_THAT(openError(frameSafetensors(R"({"w": {"dtype": )", "")),
              AllOf(HasSubstr(path), HasSubstr("not valid JSON")));
}

TEST_F(SafetensorsTest, HeaderNotAnObject) {
  EXPECT_THAT(openError(frameSafetensors("[1, 2]", "")),
              AllOf(HasSubstr(path), HasSubstr("not a JSON object")));
}

TEST_F(SafetensorsTest, EntryNotAnObject) {
  EXPECT_THAT(openError(frameSafetensors(R"({"w": 3})", "")),
              AllOf(HasSubstr(path), HasSubstr("tensor 'w'")));
}

TEST_F(SafetensorsTest, UnknownDtype) {
  EXPECT_THAT(
      openError(frameSafetensors(
          R"({"w": {"dtype": "F64", "shape": [1],
                            "data_offsets": [0, 8]}})",
          std::string(8, '\0'))),
      AllOf(HasSubstr(path), HasSubstr("tensor 'w': unsupported dtype 'F64'")));
}

TEST_F(SafetensorsTest, MissingDtype) {
  EXPECT_THAT(openError(frameSafetensors(
                  R"({"w": {"shape": [1], "data_offsets": [0, 4]}})",
                  std::string(4, '\0'))),
              AllOf(HasSubstr(path), HasSubstr("tensor 'w': missing 'dtype'")));
}

TEST_F(SafetensorsTest, NegativeShape) {
  EXPECT_THAT(openError(frameSafetensors(
                  R"({"w": {"dtype": "F32", "shape": [2, -1],
                            "data_offsets": [0, 0]}})",
                  "")),
              AllOf(HasSubstr(path), HasSubstr("tensor 'w': shape [2,-1]")));
}

TEST_F(SafetensorsTest, ShapeTooLarge) {
  EXPECT_THAT(
      openError(frameSafetensors(
          R"({"w": {"dtype": "F32",
                            "shape": [4294967296, 4294967296],
                            "data_offsets": [0, 0]}})",
          "")),
      AllOf(HasSubstr(path), HasSubstr("tensor 'w'"), HasSubstr("too large")));
}

TEST_F(SafetensorsTest, MalformedDataOffsets) {
  EXPECT_THAT(openError(frameSafetensors(
                  R"({"w": {"dtype": "F32", "shape": [1],
                            "data_offsets": [0]}})",
                  std::string(4, '\0'))),
              AllOf(HasSubstr(path), HasSubstr("tensor 'w': 'data_offsets'")));
}

TEST_F(SafetensorsTest, DataOffsetsBeginAfterEnd) {
  EXPECT_THAT(openError(frameSafetensors(
                  R"({"w": {"dtype": "F32", "shape": [1],
                            "data_offsets": [8, 4]}})",
                  std::string(8, '\0'))),
              AllOf(HasSubstr(path),
                    HasSubstr("tensor 'w': data_offsets [8,4] begin after")));
}

TEST_F(SafetensorsTest, TruncatedDataSection) {
  std::string file = serializeSafetensors(
      {makeZeros("model.layers.0.mlp.gate_proj.weight", "F32", {4}),
       makeZeros("model.layers.0.mlp.up_proj.weight", "F32", {4})});
  file.resize(file.size() - 4);
  EXPECT_THAT(openError(file),
              HasSubstr(path + ": tensor 'model.layers.0.mlp.up_proj.weight': "
                               "data_offsets [16,32] exceed the data section "
                               "(28 bytes)"));
}

TEST_F(SafetensorsTest, ByteCountDisagreesWithDtypeAndShape) {
  EXPECT_THAT(openError(frameSafetensors(
                  R"({"w": {"dtype": "F32", "shape": [2, 2],
                            "data_offsets": [0, 8]}})",
                  std::string(8, '\0'))),
              AllOf(HasSubstr(path), HasSubstr("tensor 'w'"),
                    HasSubstr("hold 8 bytes"), HasSubstr("need 16")));
}

TEST_F(SafetensorsTest, OverlappingTensors) {
  EXPECT_THAT(openError(frameSafetensors(
                  R"({"a": {"dtype": "F32", "shape": [4],
                            "data_offsets": [0, 16]},
                      "b": {"dtype": "F32", "shape": [4],
                            "data_offsets": [8, 24]}})",
                  std::string(24, '\0'))),
              HasSubstr(path + ": tensors 'a' (data_offsets [0,16]) and 'b' "
                               "(data_offsets [8,24]) overlap"));
}

} // namespace
