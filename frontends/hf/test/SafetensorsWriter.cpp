//===- SafetensorsWriter.cpp - writes safetensors files for tests ---------===//

#include "frontends/hf/test/SafetensorsWriter.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>

namespace llmc::hf::test {

TestTensor makeF32(llvm::StringRef name, std::vector<int64_t> shape,
                   llvm::ArrayRef<float> values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return {name.str(), "F32", std::move(shape), std::move(bytes)};
}

TestTensor makeZeros(llvm::StringRef name, llvm::StringRef dtype,
                     std::vector<int64_t> shape) {
  int64_t size = dtype.ends_with("8")    ? 1
                 : dtype.ends_with("16") ? 2
                 : dtype.ends_with("64") ? 8
                                         : 4;
  for (int64_t dim : shape)
    size *= dim;
  return {name.str(), dtype.str(), std::move(shape), std::string(size, '\0')};
}

std::string serializeSafetensors(llvm::ArrayRef<TestTensor> tensors) {
  llvm::json::Object header;
  header["__metadata__"] = llvm::json::Object{{"format", "pt"}};
  std::string data;
  for (const TestTensor &tensor : tensors) {
    int64_t begin = data.size();
    data += tensor.bytes;
    header[tensor.name] = llvm::json::Object{
        {"dtype", tensor.dtype},
        {"shape", llvm::json::Array(tensor.shape)},
        {"data_offsets",
         llvm::json::Array{begin, static_cast<int64_t>(data.size())}}};
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(header));
  return frameSafetensors(text, data);
}

std::string frameSafetensors(llvm::StringRef header, llvm::StringRef data) {
  std::string file(8, '\0');
  llvm::support::endian::write64le(file.data(), header.size());
  return file + header.str() + data.str();
}

std::string makeTestDir() {
  const ::testing::TestInfo *test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  llvm::SmallString<256> prefix(::testing::TempDir());
  // Parameterized tests' names hold '/'.
  std::string name =
      std::string(test->test_suite_name()) + "." + test->name();
  std::replace(name.begin(), name.end(), '/', '.');
  llvm::sys::path::append(prefix, name);
  llvm::SmallString<256> directory;
  std::error_code error =
      llvm::sys::fs::createUniqueDirectory(prefix, directory);
  EXPECT_FALSE(error) << prefix.str().str() << ": " << error.message();
  return std::string(directory);
}

std::string writeFile(llvm::StringRef directory, llvm::StringRef name,
                      llvm::StringRef contents) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, name);
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  EXPECT_FALSE(error) << path.str().str() << ": " << error.message();
  os << contents;
  return std::string(path);
}

} // namespace llmc::hf::test
