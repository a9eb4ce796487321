//===- GgufBuilder.cpp - writes GGUF files for tests ----------------------===//

#include "frontends/gguf/test/GgufBuilder.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>

namespace llmc::gguf::test {

std::string encodeU32(uint32_t value) {
  std::string bytes(4, '\0');
  for (int i = 0; i < 4; ++i)
    bytes[i] = static_cast<char>(value >> (8 * i));
  return bytes;
}

std::string encodeU64(uint64_t value) {
  return encodeU32(static_cast<uint32_t>(value)) +
         encodeU32(static_cast<uint32_t>(value >> 32));
}

std::string encodeF32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return encodeU32(bits);
}

std::string encodeString(llvm::StringRef text) {
  return encodeU64(text.size()) + text.str();
}

std::string encodeArray(uint32_t elementType, uint64_t count,
                        llvm::StringRef elements) {
  return encodeU32(elementType) + encodeU64(count) + elements.str();
}

GgufBuilder &GgufBuilder::setAlignment(uint32_t value) {
  alignment = value;
  return addU32("general.alignment", value);
}

GgufBuilder &GgufBuilder::addRaw(llvm::StringRef key, uint32_t type,
                                 std::string payload) {
  metadata.push_back(encodeString(key) + encodeU32(type) + payload);
  return *this;
}

GgufBuilder &GgufBuilder::addU32(llvm::StringRef key, uint32_t value) {
  return addRaw(key, kU32, encodeU32(value));
}

GgufBuilder &GgufBuilder::addF32(llvm::StringRef key, float value) {
  return addRaw(key, kF32, encodeF32(value));
}

GgufBuilder &GgufBuilder::addBool(llvm::StringRef key, bool value) {
  return addRaw(key, kBool, std::string(1, value ? 1 : 0));
}

GgufBuilder &GgufBuilder::addString(llvm::StringRef key,
                                    llvm::StringRef value) {
  return addRaw(key, kString, encodeString(value));
}

GgufBuilder &GgufBuilder::addStrings(llvm::StringRef key,
                                     llvm::ArrayRef<std::string> values) {
  std::string elements;
  for (const std::string &value : values)
    elements += encodeString(value);
  return addRaw(key, kArray, encodeArray(kString, values.size(), elements));
}

GgufBuilder &GgufBuilder::addBools(llvm::StringRef key,
                                   llvm::ArrayRef<bool> values) {
  std::string elements;
  for (bool value : values)
    elements += static_cast<char>(value ? 1 : 0);
  return addRaw(key, kArray, encodeArray(kBool, values.size(), elements));
}

GgufBuilder &GgufBuilder::addI32s(llvm::StringRef key,
                                  llvm::ArrayRef<int32_t> values) {
  std::string elements;
  for (int32_t value : values)
    elements += encodeU32(static_cast<uint32_t>(value));
  return addRaw(key, kArray, encodeArray(kI32, values.size(), elements));
}

GgufBuilder &GgufBuilder::addF32s(llvm::StringRef key,
                                  llvm::ArrayRef<float> values) {
  std::string elements;
  for (float value : values)
    elements += encodeF32(value);
  return addRaw(key, kArray, encodeArray(kF32, values.size(), elements));
}

GgufBuilder &GgufBuilder::addTensor(llvm::StringRef name, uint32_t type,
                                    std::vector<uint64_t> ne, std::string bytes,
                                    std::optional<uint64_t> offset) {
  uint64_t at = offset.value_or(llvm::alignTo(dataEnd, alignment));
  if (!offset)
    dataEnd = at + bytes.size();
  tensors.push_back({name.str(), type, std::move(ne), std::move(bytes), at});
  return *this;
}

GgufBuilder &GgufBuilder::addF32Tensor(llvm::StringRef name,
                                       std::vector<uint64_t> ne,
                                       llvm::ArrayRef<float> values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return addTensor(name, /*F32=*/0, std::move(ne), std::move(bytes));
}

std::string GgufBuilder::build() const {
  std::string file = "GGUF" + encodeU32(version) + encodeU64(tensors.size()) +
                     encodeU64(metadata.size());
  for (const std::string &entry : metadata)
    file += entry;
  for (const Tensor &tensor : tensors) {
    file += encodeString(tensor.name) + encodeU32(tensor.ne.size());
    for (uint64_t dim : tensor.ne)
      file += encodeU64(dim);
    file += encodeU32(tensor.type) + encodeU64(tensor.offset);
  }
  size_t dataStart = llvm::alignTo(file.size(), alignment);
  file.resize(dataStart + dataEnd, '\0');
  for (const Tensor &tensor : tensors)
    if (tensor.offset <= dataEnd &&
        tensor.bytes.size() <= dataEnd - tensor.offset)
      std::copy(tensor.bytes.begin(), tensor.bytes.end(),
                file.begin() + dataStart + tensor.offset);
  return file;
}

std::string writeTempFile(llvm::StringRef name, llvm::StringRef contents) {
  llvm::SmallString<256> path(::testing::TempDir());
  const ::testing::TestInfo *test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  llvm::sys::path::append(path, std::string(test->test_suite_name()) + "." +
                                    test->name() + "." + name.str());
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  EXPECT_FALSE(error) << path.str().str() << ": " << error.message();
  os << contents;
  return std::string(path);
}

} // namespace llmc::gguf::test
