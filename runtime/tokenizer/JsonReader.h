//===- JsonReader.h - typed reads of tokenizer.json sections ----*- C++ -*-===//
//
// Reading a tokenizer.json field by field with an llvm::Expected per field
// buries the structure under error plumbing. A JsonReader instead returns a
// placeholder for a missing or mistyped field, remembers the first problem
// (naming the file and the JSON path of the field, `model.merges[3]`), and the
// loader checks once per section.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_JSONREADER_H
#define LLMC_RUNTIME_TOKENIZER_JSONREADER_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmc::tokenizer {

class JsonReader {
public:
  /// `source` names the file in messages.
  explicit JsonReader(llvm::StringRef source) : source(source.str()) {}

  /// Records `problem` with the field at `path` unless an earlier one is
  /// recorded.
  void fail(const llvm::Twine &path, const llvm::Twine &problem);
  bool failed() const { return firstError.has_value(); }
  /// The first recorded problem, or success.
  llvm::Error takeError();
  /// An error naming the file, for problems found outside a field.
  llvm::Error makeError(const llvm::Twine &problem) const;

  /// `value` as an object; records a problem and returns null otherwise.
  const llvm::json::Object *asObject(const llvm::json::Value &value,
                                     const llvm::Twine &path);
  /// The field `key` of `object`; null when absent or null.
  const llvm::json::Value *find(const llvm::json::Object &object,
                                llvm::StringRef key) const;

  /// Each getter reads field `key` of the object at `path`: a required one,
  /// or an optional one when given a fallback (returned when the field is
  /// absent or null).
  std::string getString(const llvm::json::Object &object, llvm::StringRef key,
                        const llvm::Twine &path,
                        std::optional<llvm::StringRef> fallback = std::nullopt);
  bool getBool(const llvm::json::Object &object, llvm::StringRef key,
               const llvm::Twine &path,
               std::optional<bool> fallback = std::nullopt);
  int64_t getInt(const llvm::json::Object &object, llvm::StringRef key,
                 const llvm::Twine &path,
                 std::optional<int64_t> fallback = std::nullopt);
  /// A required array field; null (with a problem recorded) when missing.
  const llvm::json::Array *getArray(const llvm::json::Object &object,
                                    llvm::StringRef key,
                                    const llvm::Twine &path);
  /// A required object field; null (with a problem recorded) when missing.
  const llvm::json::Object *getObject(const llvm::json::Object &object,
                                      llvm::StringRef key,
                                      const llvm::Twine &path);

  /// The steps of a `Sequence` component: each element of the array field
  /// `key` parsed by `parse(value, reader, path)`, skipping null steps.
  /// std::nullopt after a recorded problem.
  template <typename Step, typename ParseFn>
  std::optional<std::vector<std::unique_ptr<Step>>>
  getSteps(const llvm::json::Object &object, llvm::StringRef key,
           const llvm::Twine &path, ParseFn parse) {
    const llvm::json::Array *list = getArray(object, key, path);
    if (!list)
      return std::nullopt;
    std::vector<std::unique_ptr<Step>> steps;
    for (auto [index, item] : llvm::enumerate(*list)) {
      std::unique_ptr<Step> step =
          parse(&item, *this, path + "." + key + "[" + llvm::Twine(index) + "]");
      if (failed())
        return std::nullopt;
      if (step)
        steps.push_back(std::move(step));
    }
    return steps;
  }

  /// The text of a pattern object `{"String": s}` or `{"Regex": r}` at
  /// `path`, with whether it is a regex.
  std::optional<std::pair<std::string, bool>>
  getPattern(const llvm::json::Object &object, llvm::StringRef key,
             const llvm::Twine &path);

private:
  const llvm::json::Value *require(const llvm::json::Object &object,
                                   llvm::StringRef key, const llvm::Twine &path,
                                   bool required);
  void failType(const llvm::Twine &path, llvm::StringRef expected,
                const llvm::json::Value &value);

  std::string source;
  std::optional<std::string> firstError;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_JSONREADER_H
