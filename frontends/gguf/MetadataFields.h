//===- MetadataFields.h - typed reads of GGUF metadata ---------*- C++ -*-===//
//
// Like the Hugging Face frontend's JsonFields: a getter returns a placeholder
// for a missing or mistyped key and remembers the first problem (naming the
// file and the key), so mapping code reads field by field and checks once.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_METADATAFIELDS_H
#define LLMC_FRONTENDS_GGUF_METADATAFIELDS_H

#include "frontends/gguf/GgufFile.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llmc::gguf {

class MetadataFields {
public:
  explicit MetadataFields(const GgufFile &file) : file(file) {}

  bool has(llvm::StringRef key) const { return file.lookup(key); }

  /// Each getter reads a required key, or an optional one when given a
  /// fallback (returned when the key is absent).
  int64_t getInt(llvm::StringRef key,
                 std::optional<int64_t> fallback = std::nullopt);
  /// f32 or f64.
  double getFloat(llvm::StringRef key,
                  std::optional<double> fallback = std::nullopt);
  bool getBool(llvm::StringRef key,
               std::optional<bool> fallback = std::nullopt);
  std::string getString(llvm::StringRef key,
                        std::optional<llvm::StringRef> fallback = std::nullopt);
  /// An optional array of strings; empty when absent.
  llvm::ArrayRef<llvm::StringRef> getStringArray(llvm::StringRef key);
  /// An optional array of integers (token types, ids); empty when absent.
  std::vector<int64_t> getIntArray(llvm::StringRef key);
  /// An optional array of f32/f64 (token scores); empty when absent.
  std::vector<double> getFloatArray(llvm::StringRef key);
  /// An optional array of bools (per-layer flags); empty when absent.
  std::vector<bool> getBoolArray(llvm::StringRef key);

  /// Records a problem with `key` unless an earlier one is recorded.
  void fail(llvm::StringRef key, const llvm::Twine &problem);
  /// The first recorded problem, or success.
  llvm::Error takeError();

  const GgufFile &getFile() const { return file; }

private:
  /// The value of `key`, or null (recording a problem when `required`).
  const Value *find(llvm::StringRef key, bool required);
  void failType(llvm::StringRef key, llvm::StringRef expected,
                const Value &value);

  const GgufFile &file;
  std::optional<std::string> firstError;
};

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_METADATAFIELDS_H
