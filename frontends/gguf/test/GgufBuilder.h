//===- GgufBuilder.h - writes GGUF files for tests -------------*- C++ -*-===//
//
// Tests build their GGUF files (valid and deliberately broken) in memory
// instead of checking in binary fixtures. Values are encoded exactly as the
// format stores them, so a test can also write what no valid writer would.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_TEST_GGUFBUILDER_H
#define LLMC_FRONTENDS_GGUF_TEST_GGUFBUILDER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmc::gguf::test {

/// Little-endian encodings of stored values.
std::string encodeU32(uint32_t value);
std::string encodeU64(uint64_t value);
std::string encodeF32(float value);
/// A GGUF string: u64 length and the bytes.
std::string encodeString(llvm::StringRef text);
/// An array payload: u32 element type, u64 count, the encoded elements.
std::string encodeArray(uint32_t elementType, uint64_t count,
                        llvm::StringRef elements);

/// Metadata value type ids, as stored.
enum : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

class GgufBuilder {
public:
  GgufBuilder &setVersion(uint32_t value) {
    version = value;
    return *this;
  }
  /// The alignment tensors are laid out with; also written as
  /// `general.alignment` when not the default 32.
  GgufBuilder &setAlignment(uint32_t value);

  /// A metadata entry of type id `type` whose stored value is `payload`.
  GgufBuilder &addRaw(llvm::StringRef key, uint32_t type, std::string payload);
  GgufBuilder &addU32(llvm::StringRef key, uint32_t value);
  GgufBuilder &addF32(llvm::StringRef key, float value);
  GgufBuilder &addBool(llvm::StringRef key, bool value);
  GgufBuilder &addString(llvm::StringRef key, llvm::StringRef value);
  GgufBuilder &addStrings(llvm::StringRef key,
                          llvm::ArrayRef<std::string> values);
  GgufBuilder &addI32s(llvm::StringRef key, llvm::ArrayRef<int32_t> values);
  GgufBuilder &addF32s(llvm::StringRef key, llvm::ArrayRef<float> values);
  GgufBuilder &addBools(llvm::StringRef key, llvm::ArrayRef<bool> values);

  /// A tensor of ggml type id `type` with dimensions `ne` (ggml order, ne[0]
  /// first) and stored `bytes`, placed at the next aligned data offset.
  /// A given `offset` is written as is (and the bytes only if they fit the
  /// data written so far), for broken layouts.
  GgufBuilder &addTensor(llvm::StringRef name, uint32_t type,
                         std::vector<uint64_t> ne, std::string bytes,
                         std::optional<uint64_t> offset = std::nullopt);
  /// An F32 tensor holding `values`.
  GgufBuilder &addF32Tensor(llvm::StringRef name, std::vector<uint64_t> ne,
                            llvm::ArrayRef<float> values);

  /// The file's bytes.
  std::string build() const;

private:
  struct Tensor {
    std::string name;
    uint32_t type;
    std::vector<uint64_t> ne;
    std::string bytes;
    uint64_t offset;
  };
  uint32_t version = 3;
  uint32_t alignment = 32;
  std::vector<std::string> metadata;
  std::vector<Tensor> tensors;
  uint64_t dataEnd = 0;
};

/// Writes `contents` to a new file called `name` in the test's temporary
/// directory and returns its path.
std::string writeTempFile(llvm::StringRef name, llvm::StringRef contents);

} // namespace llmc::gguf::test

#endif // LLMC_FRONTENDS_GGUF_TEST_GGUFBUILDER_H
