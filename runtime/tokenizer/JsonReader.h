//===- JsonReader.h - typed reads of tokenizer.json sections ----*- C++ -*-===//
//
// Reading a tokenizer.json field by field with an absl::StatusOr per field
// buries the structure under error plumbing. A JsonReader instead returns a
// placeholder for a missing or mistyped field, remembers the first problem
// (naming the file and the JSON path of the field, `model.merges[3]`), and the
// loader checks once per section. Every value is checked before it is read,
// so a hostile file cannot make nlohmann throw.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_JSONREADER_H
#define LLMC_RUNTIME_TOKENIZER_JSONREADER_H

#include "support/Status.h"
#include "support/Strings.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::tokenizer {

using Json = nlohmann::json;

/// `value` as a whole number: an integer in int64's range, or a number with
/// no fractional part (files may write an id as 5.0); nothing otherwise.
std::optional<int64_t> getInteger(const Json &value);

class JsonReader {
public:
  /// `source` names the file in messages.
  explicit JsonReader(std::string_view source) : source(source) {}

  /// Records `problem` with the field at `path` unless an earlier one is
  /// recorded.
  void fail(std::string_view path, std::string_view problem);
  bool failed() const { return firstError.has_value(); }
  /// The first recorded problem (InvalidArgument), or OK.
  absl::Status takeError();
  /// An error naming the file, for problems found outside a field.
  absl::Status makeError(std::string_view problem) const;

  /// `value` if it is an object; records a problem and returns null
  /// otherwise.
  const Json *asObject(const Json &value, std::string_view path);
  /// The field `key` of `object`; null when absent or null.
  const Json *find(const Json &object, std::string_view key) const;

  /// Each getter reads field `key` of the object at `path`: a required one,
  /// or an optional one when given a fallback (returned when the field is
  /// absent or null).
  std::string
  getString(const Json &object, std::string_view key, std::string_view path,
            std::optional<std::string_view> fallback = std::nullopt);
  bool getBool(const Json &object, std::string_view key, std::string_view path,
               std::optional<bool> fallback = std::nullopt);
  int64_t getInt(const Json &object, std::string_view key,
                 std::string_view path,
                 std::optional<int64_t> fallback = std::nullopt);
  /// A required array field; null (with a problem recorded) when missing.
  const Json *getArray(const Json &object, std::string_view key,
                       std::string_view path);
  /// A required object field; null (with a problem recorded) when missing.
  const Json *getObject(const Json &object, std::string_view key,
                        std::string_view path);

  /// The steps of a `Sequence` component: each element of the array field
  /// `key` parsed by `parse(value, reader, path)`, skipping null steps.
  /// std::nullopt after a recorded problem.
  template <typename Step, typename ParseFn>
  std::optional<std::vector<std::unique_ptr<Step>>>
  getSteps(const Json &object, std::string_view key, std::string_view path,
           ParseFn parse) {
    const Json *list = getArray(object, key, path);
    if (!list)
      return std::nullopt;
    std::vector<std::unique_ptr<Step>> steps;
    for (size_t index = 0; index < list->size(); ++index) {
      std::unique_ptr<Step> step =
          parse(&(*list)[index], *this,
                support::strCat(path, ".", key, "[", index, "]"));
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
  getPattern(const Json &object, std::string_view key, std::string_view path);

private:
  const Json *require(const Json &object, std::string_view key,
                      std::string_view path, bool required);
  void failType(std::string_view path, std::string_view expected,
                const Json &value);

  std::string source;
  std::optional<std::string> firstError;
};

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_JSONREADER_H
