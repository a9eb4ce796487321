//===- SafetensorsWriter.h - writes safetensors files for tests -*- C++ -*-===//
//
// Tests build their checkpoints (valid, sharded and deliberately broken) in
// the test's temporary directory instead of checking in binary fixtures.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_TEST_SAFETENSORSWRITER_H
#define LLMC_FRONTENDS_HF_TEST_SAFETENSORSWRITER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llmc::hf::test {

/// A tensor to write: its safetensors dtype name, shape and stored bytes.
struct TestTensor {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

/// An F32 tensor holding `values`.
TestTensor makeF32(llvm::StringRef name, std::vector<int64_t> shape,
                   llvm::ArrayRef<float> values);
/// A tensor of `dtype` (`F32`, `BF16`, `I8`, ...) whose `bytes` are zero.
TestTensor makeZeros(llvm::StringRef name, llvm::StringRef dtype,
                     std::vector<int64_t> shape);

/// A safetensors file holding `tensors` packed in order.
std::string serializeSafetensors(llvm::ArrayRef<TestTensor> tensors);
/// A safetensors file from a raw header text and data section, for headers
/// that serializeSafetensors would never write.
std::string frameSafetensors(llvm::StringRef header, llvm::StringRef data);

/// A new, empty directory in the test's temporary directory.
std::string makeTestDir();
/// Writes `contents` to `directory/name` and returns the file's path.
std::string writeFile(llvm::StringRef directory, llvm::StringRef name,
                      llvm::StringRef contents);

} // namespace llmc::hf::test

#endif // LLMC_FRONTENDS_HF_TEST_SAFETENSORSWRITER_H
