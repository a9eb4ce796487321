//===- GgufFile.h - a memory-mapped GGUF file ------------------*- C++ -*-===//
//
// GGUF (llama.cpp's single-file checkpoint format), versions 2 and 3, little
// endian:
//
//   "GGUF" | u32 version | u64 tensor count | u64 metadata count
//   metadata: string key | u32 value type | value            (repeated)
//   tensors:  string name | u32 n_dims | u64 ne[n_dims] | u32 ggml type
//             | u64 offset                                   (repeated)
//   padding to `general.alignment` (default 32) | tensor data
//
// where a string is a u64 length and that many bytes, and an array value is
// a u32 element type, a u64 count and the elements. Everything is validated
// when the file is opened, so later reads cannot leave the mapping; tensor
// bytes stay in the mapping until a caller touches them.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_GGUFFILE_H
#define LLMC_FRONTENDS_GGUF_GGUFFILE_H

#include "frontends/gguf/GgmlTypes.h"
#include "frontends/gguf/GgufValue.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmc::gguf {

/// One tensor's header entry, validated against the file.
struct TensorEntry {
  std::string name;
  GgmlType type = GgmlType::F32;
  /// ggml's dimension order: ne[0] is the fastest-varying (a row's length).
  llvm::SmallVector<int64_t, 4> ne;
  /// Byte offset in the file (data section start plus the stored offset).
  uint64_t fileOffset = 0;
  uint64_t numBytes = 0;
  /// The product of ne (checked against overflow when the file is read).
  int64_t numElements = 0;

  /// The row-major shape (ne reversed), as other frontends report shapes.
  llvm::SmallVector<int64_t> getShape() const;
};

class GgufFile {
public:
  /// Maps and validates the file at `path`.
  static llvm::Expected<std::unique_ptr<GgufFile>> open(llvm::StringRef path);
  /// Validates `buffer`, the whole contents of a file called `path` in
  /// messages.
  static llvm::Expected<std::unique_ptr<GgufFile>>
  parse(llvm::StringRef path, std::unique_ptr<llvm::MemoryBuffer> buffer);

  llvm::StringRef getPath() const { return path; }
  uint32_t getVersion() const { return version; }
  uint64_t getAlignment() const { return alignment; }
  uint64_t getDataOffset() const { return dataOffset; }

  /// The value of metadata `key`, or null.
  const Value *lookup(llvm::StringRef key) const;
  /// Every metadata key in file order.
  llvm::ArrayRef<std::string> getKeys() const { return keys; }

  /// Every tensor in file order.
  llvm::ArrayRef<TensorEntry> getTensors() const { return tensors; }
  /// The tensor called `name`, or null.
  const TensorEntry *findTensor(llvm::StringRef name) const;
  /// The stored bytes of `tensor` (one of getTensors()).
  llvm::ArrayRef<uint8_t> getBytes(const TensorEntry &tensor) const;

private:
  friend class HeaderParser;
  GgufFile() = default;

  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  uint32_t version = 0;
  uint64_t alignment = 32;
  uint64_t dataOffset = 0;
  std::vector<std::string> keys;
  llvm::StringMap<Value> metadata;
  std::vector<TensorEntry> tensors;
  llvm::StringMap<size_t> tensorIndex;
};

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_GGUFFILE_H
