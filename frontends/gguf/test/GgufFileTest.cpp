//===- GgufFileTest.cpp - the GGUF parser on valid and broken files -------===//

#include "frontends/gguf/GgufFile.h"

#include "frontends/gguf/test/ErrorMessage.h"
#include "frontends/gguf/test/GgufBuilder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace llmc::gguf;
using namespace llmc::gguf::test;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

llvm::Expected<std::unique_ptr<GgufFile>> parse(const std::string &bytes) {
  return GgufFile::parse("test.gguf", llvm::MemoryBuffer::getMemBufferCopy(
                                          bytes, "test.gguf"));
}

std::unique_ptr<GgufFile> parseOk(const std::string &bytes) {
  llvm::Expected<std::unique_ptr<GgufFile>> file = parse(bytes);
  if (!file) {
    ADD_FAILURE() << llvm::toString(file.takeError());
    return nullptr;
  }
  return std::move(*file);
}

/// The error of parsing `bytes`, which must start with the file name.
std::string parseError(const std::string &bytes) {
  std::string message = errorMessage(parse(bytes));
  EXPECT_THAT(message, StartsWith("test.gguf: ")) << message;
  return message;
}

TEST(GgufFileTest, ReadsEveryValueType) {
  std::string nested = encodeArray(kU8, 2, std::string("\x01\x02", 2)) +
                       encodeArray(kU8, 0, "");
  std::unique_ptr<GgufFile> file = parseOk(
      GgufBuilder()
          .addRaw("u8", kU8, "\xc8")
          .addRaw("i8", kI8, "\xfb")
          .addRaw("u16", kU16, std::string("\x34\x12", 2))
          .addRaw("i16", kI16, std::string("\xfe\xff", 2))
          .addU32("u32", 4000000000u)
          .addRaw("i32", kI32, encodeU32(static_cast<uint32_t>(-7)))
          .addF32("f32", 0.5f)
          .addBool("bool", true)
          .addString("string", "héllo")
          .addRaw("u64", kU64, encodeU64(~0ull))
          .addRaw("i64", kI64, encodeU64(static_cast<uint64_t>(-9)))
          .addRaw("f64", kF64, encodeU64(0x400921fb54442d18ull))
          .addI32s("i32s", {3, -4})
          .addStrings("strings", {"a", "", "bc"})
          .addRaw("nested", kArray, encodeArray(kArray, 2, nested))
          .build());
  ASSERT_TRUE(file);
  EXPECT_EQ(file->getVersion(), 3u);
  EXPECT_EQ(file->getAlignment(), 32u);
  EXPECT_EQ(file->getKeys().size(), 15u);
  EXPECT_EQ(file->getKeys().front(), "u8");
  auto integer = [&](llvm::StringRef key) {
    return file->lookup(key)->getAsInteger();
  };
  EXPECT_EQ(integer("u8"), 200);
  EXPECT_EQ(integer("i8"), -5);
  EXPECT_EQ(integer("u16"), 0x1234);
  EXPECT_EQ(integer("i16"), -2);
  EXPECT_EQ(integer("u32"), 4000000000);
  EXPECT_EQ(integer("i32"), -7);
  EXPECT_EQ(integer("u64"), std::nullopt) << "beyond int64";
  EXPECT_EQ(integer("i64"), -9);
  EXPECT_EQ(integer("f32"), std::nullopt);
  EXPECT_EQ(file->lookup("f32")->getAsFloat(), 0.5);
  EXPECT_EQ(file->lookup("f64")->getAsFloat(), 3.141592653589793);
  EXPECT_EQ(file->lookup("u8")->getAsFloat(), std::nullopt);
  EXPECT_EQ(file->lookup("bool")->getAsBool(), true);
  EXPECT_EQ(file->lookup("string")->getAsString(), "héllo");
  EXPECT_EQ(file->lookup("u64")->print(), "u64 18446744073709551615");
  EXPECT_EQ(file->lookup("missing"), nullptr);

  const Value &ints = *file->lookup("i32s");
  EXPECT_EQ(ints.getType(), ValueType::Array);
  EXPECT_EQ(ints.getElementType(), ValueType::I32);
  ASSERT_EQ(ints.getArraySize(), 2u);
  EXPECT_EQ(ints.getElement(1).getAsInteger(), -4);
  EXPECT_EQ(ints.print(), "array of 2 i32");
  EXPECT_THAT(*file->lookup("strings")->getAsStringArray(),
              ElementsAre("a", "", "bc"));
  EXPECT_EQ(ints.getAsStringArray(), std::nullopt);
  const Value &outer = *file->lookup("nested");
  ASSERT_EQ(outer.getArraySize(), 2u);
  Value first = outer.getElement(0);
  EXPECT_EQ(first.getElementType(), ValueType::U8);
  ASSERT_EQ(first.getArraySize(), 2u);
  EXPECT_EQ(first.getElement(1).getAsInteger(), 2);
  EXPECT_EQ(outer.getElement(1).getArraySize(), 0u);
}

TEST(GgufFileTest, LaysOutTensorsAfterTheAlignedHeader) {
  std::string q8(34 * 2, '\x01');
  std::unique_ptr<GgufFile> file =
      parseOk(GgufBuilder()
                  .setVersion(2)
                  .setAlignment(64)
                  .addF32Tensor("norm", {3}, {1.0f, 2.0f, 3.0f})
                  .addTensor("q", /*Q8_0=*/8, {32, 2}, q8)
                  .addTensor("empty", /*F16=*/1, {0, 5}, "")
                  .build());
  ASSERT_TRUE(file);
  EXPECT_EQ(file->getVersion(), 2u);
  EXPECT_EQ(file->getAlignment(), 64u);
  EXPECT_EQ(file->getDataOffset() % 64, 0u);
  ASSERT_EQ(file->getTensors().size(), 3u);
  const TensorEntry *q = file->findTensor("q");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->type, GgmlType::Q8_0);
  EXPECT_THAT(q->ne, ElementsAre(32, 2));
  EXPECT_THAT(q->getShape(), ElementsAre(2, 32));
  EXPECT_EQ(q->numElements, 64);
  EXPECT_EQ(q->fileOffset, file->getDataOffset() + 64);
  EXPECT_EQ(file->getBytes(*q).size(), q8.size());
  EXPECT_EQ(file->getBytes(*q)[0], 1);
  const TensorEntry &norm = file->getTensors().front();
  EXPECT_EQ(norm.fileOffset, file->getDataOffset());
  float second;
  std::memcpy(&second, file->getBytes(norm).data() + 4, 4);
  EXPECT_EQ(second, 2.0f);
  EXPECT_EQ(file->findTensor("empty")->numBytes, 0u);
  EXPECT_EQ(file->findTensor("absent"), nullptr);
}

TEST(GgufFileTest, OpensFilesAndNamesUnreadableOnes) {
  std::string path = writeTempFile(
      "model.gguf", GgufBuilder().addF32Tensor("t", {1}, {4.0f}).build());
  llvm::Expected<std::unique_ptr<GgufFile>> file = GgufFile::open(path);
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  EXPECT_EQ((*file)->getPath(), path);
  EXPECT_THAT(errorMessage(GgufFile::open(path + ".absent")),
              AllOf(StartsWith(path + ".absent: cannot read"),
                    HasSubstr("No such file")));
}

//===----------------------------------------------------------------------===//
// Malformed headers
//===----------------------------------------------------------------------===//

TEST(GgufFileTest, RejectsBadMagicAndVersions) {
  EXPECT_THAT(parseError("GGU"), HasSubstr("not a GGUF file"));
  EXPECT_THAT(parseError("GGML" + encodeU32(3)), HasSubstr("not a GGUF file"));
  EXPECT_THAT(parseError("GGUF"),
              HasSubstr("header: version (4 bytes at offset 4) exceeds the "
                        "file (4 bytes)"));
  EXPECT_THAT(parseError(GgufBuilder().setVersion(1).build()),
              HasSubstr("GGUF version 1 is not supported"));
  EXPECT_THAT(parseError(GgufBuilder().setVersion(0x03000000).build()),
              HasSubstr("big-endian GGUF is not supported"));
  EXPECT_THAT(parseError("GGUF" + encodeU32(3) + encodeU64(0)),
              HasSubstr("metadata count (8 bytes at offset 16) exceeds"));
}

TEST(GgufFileTest, RejectsCountsBeyondTheFile) {
  std::string header = "GGUF" + encodeU32(3);
  EXPECT_THAT(parseError(header + encodeU64(0) + encodeU64(1000)),
              HasSubstr("metadata count 1000 exceeds the file (0 bytes left)"));
  EXPECT_THAT(parseError(header + encodeU64(~0ull) + encodeU64(0)),
              HasSubstr("tensor count 18446744073709551615 exceeds the file"));
  EXPECT_THAT(parseError(GgufBuilder()
                             .addRaw("key", kString, encodeU64(1ull << 40))
                             .build()),
              HasSubstr("metadata 'key': string (1099511627776 bytes at "
                        "offset 47) exceeds the file"));
  EXPECT_THAT(
      parseError(GgufBuilder()
                     .addRaw("scores", kArray, encodeArray(kF32, 1ull << 62, ""))
                     .build()),
      HasSubstr("metadata 'scores': array of 4611686018427387904 f32 elements "
                "exceeds the file"));
  std::string shortValue = GgufBuilder().addRaw("key", kU32, "\x01\x02").build();
  shortValue.resize(41);
  EXPECT_THAT(parseError(shortValue),
              HasSubstr("metadata 'key': u32 (4 bytes at offset 39) exceeds "
                        "the file (41 bytes)"));
  // A key whose length runs past the end names the entry by its index.
  std::string file = "GGUF" + encodeU32(3) + encodeU64(0) + encodeU64(2) +
                     encodeString("a") + encodeU32(kU32) + encodeU32(1) +
                     encodeU64(1ull << 40) + std::string(16, '\0');
  EXPECT_THAT(parseError(file),
              HasSubstr("metadata entry 1: key (1099511627776 bytes at offset "
                        "49) exceeds the file (65 bytes)"));
}

TEST(GgufFileTest, RejectsUnknownValueTypesAndDeepNesting) {
  EXPECT_THAT(parseError(GgufBuilder().addRaw("key", 13, "xxxx").build()),
              HasSubstr("metadata 'key': unknown value type 13"));
  EXPECT_THAT(
      parseError(GgufBuilder().addRaw("key", kArray, encodeArray(99, 0, ""))
                     .build()),
      HasSubstr("metadata 'key': unknown array element type 99"));
  std::string deep = encodeArray(kU8, 0, "");
  for (int i = 0; i < 8; ++i)
    deep = encodeArray(kArray, 1, deep);
  EXPECT_THAT(parseError(GgufBuilder().addRaw("deep", kArray, deep).build()),
              HasSubstr("metadata 'deep': arrays are nested more than 8 deep"));
  EXPECT_THAT(parseError(GgufBuilder().addU32("k", 1).addU32("k", 2).build()),
              HasSubstr("metadata 'k': appears twice"));
}

TEST(GgufFileTest, RejectsBadAlignments) {
  EXPECT_THAT(parseError(GgufBuilder().addF32("general.alignment", 32).build()),
              HasSubstr("metadata 'general.alignment': must be a u32, got "
                        "f32 32"));
  EXPECT_THAT(parseError(GgufBuilder().addU32("general.alignment", 48).build()),
              HasSubstr("must be a power of two, got 48"));
  EXPECT_THAT(parseError(GgufBuilder().addU32("general.alignment", 0).build()),
              HasSubstr("must be a power of two, got 0"));
}

TEST(GgufFileTest, RejectsBadTensorEntries) {
  auto withTensor = [](uint32_t type, std::vector<uint64_t> ne,
                       std::string bytes = "") {
    return GgufBuilder().addTensor("w", type, std::move(ne), std::move(bytes))
        .build();
  };
  EXPECT_THAT(parseError(withTensor(0, {1, 1, 1, 1, 1})),
              HasSubstr("tensor 'w': has 5 dimensions; ggml allows at most 4"));
  EXPECT_THAT(parseError(withTensor(0, {1ull << 63})),
              HasSubstr("tensor 'w': ne[0] = 9223372036854775808 is out of "
                        "range"));
  EXPECT_THAT(parseError(withTensor(4, {32})),
              HasSubstr("tensor 'w': unknown ggml type id 4"));
  EXPECT_THAT(parseError(withTensor(1000, {32})),
              HasSubstr("unknown ggml type id 1000"));
  EXPECT_THAT(parseError(withTensor(/*Q4_0=*/2, {48}, std::string(36, '\0'))),
              HasSubstr("tensor 'w': row length ne[0] = 48 is not a multiple "
                        "of the q4_0 block size 32"));
  EXPECT_THAT(parseError(withTensor(0, {1ull << 62, 1ull << 62})),
              HasSubstr("tensor 'w': its size overflows"));
  EXPECT_THAT(parseError(withTensor(0, {4}, "abc")),
              HasSubstr("tensor 'w': data at offset 0 (16 bytes) exceeds the "
                        "file's data section (3 bytes)"));
  EXPECT_THAT(parseError(GgufBuilder()
                             .addF32Tensor("w", {1}, {1.0f})
                             .addF32Tensor("w", {1}, {1.0f})
                             .build()),
              HasSubstr("tensor 'w': appears twice"));
  std::string truncated = withTensor(0, {4}, std::string(16, '\0'));
  truncated.resize(48);
  EXPECT_THAT(parseError(truncated),
              HasSubstr("tensor 'w': ggml type (4 bytes at offset 45) exceeds "
                        "the file (48 bytes)"));
}

TEST(GgufFileTest, RejectsMisplacedTensorData) {
  std::string four(16, '\0');
  EXPECT_THAT(parseError(GgufBuilder()
                             .addF32Tensor("a", {4}, {1, 2, 3, 4})
                             .addTensor("b", 0, {4}, four, /*offset=*/8)
                             .build()),
              HasSubstr("tensor 'b': data offset 8 is not a multiple of the "
                        "alignment 32"));
  EXPECT_THAT(parseError(GgufBuilder()
                             .addF32Tensor("a", {4}, {1, 2, 3, 4})
                             .addTensor("b", 0, {4}, four, /*offset=*/64)
                             .build()),
              HasSubstr("tensor 'b': data at offset 64 (16 bytes) exceeds"));
  EXPECT_THAT(parseError(GgufBuilder()
                             .addF32Tensor("a", {4}, {1, 2, 3, 4})
                             .addTensor("b", 0, {4}, four, ~0ull - 31)
                             .build()),
              HasSubstr("tensor 'b': data at offset 18446744073709551584"));
  EXPECT_THAT(parseError(GgufBuilder()
                             .addF32Tensor("a", {16}, std::vector<float>(16))
                             .addTensor("b", 0, {4}, four, /*offset=*/32)
                             .build()),
              HasSubstr("tensor 'b': its data overlaps tensor 'a'"));
}

} // namespace
