//===- JsonFields.h - typed reads of a JSON config object ------*- C++ -*-===//
//
// Reading a config field by field with an llvm::Expected per field buries the
// mapping under error plumbing. A JsonFields reader instead returns a
// placeholder for a missing or mistyped field, remembers the first problem
// (naming the file and the field), and the caller checks once.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_JSONFIELDS_H
#define LLMC_FRONTENDS_HF_JSONFIELDS_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace llmc::hf {

/// Reads the JSON text of `path` and returns its top-level object; an error
/// naming `path` when it cannot be read, is not JSON, or is not an object.
llvm::Expected<llvm::json::Object> readJsonObject(llvm::StringRef path);

class JsonFields {
public:
  /// Fields of `object`, which was read from `file`; `prefix` is prepended to
  /// field names in messages (`rope_scaling.`).
  JsonFields(const llvm::json::Object &object, llvm::StringRef file,
             llvm::StringRef prefix = "")
      : object(object), file(file.str()), prefix(prefix.str()) {}

  /// Whether `key` is present and not null (null means "not set" in Hugging
  /// Face configs).
  bool has(llvm::StringRef key) const;

  /// Each getter reads a required field, or an optional one when given a
  /// fallback (returned when the field is absent or null).
  int64_t getInt(llvm::StringRef key,
                 std::optional<int64_t> fallback = std::nullopt);
  double getNumber(llvm::StringRef key,
                   std::optional<double> fallback = std::nullopt);
  bool getBool(llvm::StringRef key,
               std::optional<bool> fallback = std::nullopt);
  std::string getString(llvm::StringRef key,
                        std::optional<llvm::StringRef> fallback = std::nullopt);
  /// An optional integer or list of integers (token ids); empty when absent.
  std::vector<int64_t> getIntList(llvm::StringRef key);
  /// A required list of numbers (rope factors).
  std::vector<double> getNumberList(llvm::StringRef key);
  /// An optional list of strings (layer types); empty when absent.
  std::vector<std::string> getStringList(llvm::StringRef key);

  /// Records a problem with field `key` unless an earlier one is recorded.
  void fail(llvm::StringRef key, const llvm::Twine &problem);
  /// The first recorded problem, or success.
  llvm::Error takeError();

private:
  /// The value of `key`, or null (recording a problem when `required`).
  const llvm::json::Value *find(llvm::StringRef key, bool required);
  void failType(llvm::StringRef key, llvm::StringRef expected,
                const llvm::json::Value &value);

  const llvm::json::Object &object;
  std::string file;
  std::string prefix;
  std::optional<std::string> firstError;
};

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_JSONFIELDS_H
