//===- JsonReader.cpp - typed reads of tokenizer.json sections ------------===//

#include "runtime/tokenizer/JsonReader.h"

#include <cmath>
#include <limits>

namespace llmc::tokenizer {

/// The JSON path of field `key` of the object at `path`.
static std::string fieldPath(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : support::strCat(path, ".", key);
}

std::optional<int64_t> getInteger(const Json &value) {
  if (value.is_number_unsigned()) {
    uint64_t number = value.get<uint64_t>();
    if (number > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return std::nullopt;
    return static_cast<int64_t>(number);
  }
  if (value.is_number_integer())
    return value.get<int64_t>();
  if (!value.is_number_float())
    return std::nullopt;
  double number = value.get<double>(), whole = 0;
  // [-2^63, 2^63): the doubles that convert to int64 exactly.
  if (std::modf(number, &whole) != 0.0 || !(number >= -0x1p63) ||
      !(number < 0x1p63))
    return std::nullopt;
  return static_cast<int64_t>(number);
}

void JsonReader::fail(std::string_view path, std::string_view problem) {
  if (!firstError)
    firstError = support::strCat(source, ": ", path, " ", problem);
}

absl::Status JsonReader::takeError() {
  if (!firstError)
    return absl::OkStatus();
  std::string message = std::move(*firstError);
  firstError.reset();
  return absl::InvalidArgumentError(message);
}

absl::Status JsonReader::makeError(std::string_view problem) const {
  return absl::InvalidArgumentError(support::strCat(source, ": ", problem));
}

void JsonReader::failType(std::string_view path, std::string_view expected,
                          const Json &value) {
  // The parser checked the strings' UTF-8, so dumping cannot throw.
  std::string text = value.dump();
  if (text.size() > 60)
    text = text.substr(0, 57) + "...";
  fail(path, support::strCat("must be ", expected, ", got ", text));
}

const Json *JsonReader::asObject(const Json &value, std::string_view path) {
  if (value.is_object())
    return &value;
  failType(path, "an object", value);
  return nullptr;
}

const Json *JsonReader::find(const Json &object, std::string_view key) const {
  auto it = object.find(key);
  if (it == object.end() || it->is_null())
    return nullptr;
  return &*it;
}

const Json *JsonReader::require(const Json &object, std::string_view key,
                                std::string_view path, bool required) {
  const Json *value = find(object, key);
  if (!value && required)
    fail(fieldPath(path, key), "is missing");
  return value;
}

std::string JsonReader::getString(const Json &object, std::string_view key,
                                  std::string_view path,
                                  std::optional<std::string_view> fallback) {
  const Json *value = require(object, key, path, !fallback);
  if (!value)
    return std::string(fallback.value_or(""));
  if (value->is_string())
    return value->get<std::string>();
  failType(fieldPath(path, key), "a string", *value);
  return {};
}

bool JsonReader::getBool(const Json &object, std::string_view key,
                         std::string_view path, std::optional<bool> fallback) {
  const Json *value = require(object, key, path, !fallback);
  if (!value)
    return fallback.value_or(false);
  if (value->is_boolean())
    return value->get<bool>();
  failType(fieldPath(path, key), "true or false", *value);
  return false;
}

int64_t JsonReader::getInt(const Json &object, std::string_view key,
                           std::string_view path,
                           std::optional<int64_t> fallback) {
  const Json *value = require(object, key, path, !fallback);
  if (!value)
    return fallback.value_or(0);
  if (std::optional<int64_t> result = getInteger(*value))
    return *result;
  failType(fieldPath(path, key), "an integer", *value);
  return 0;
}

const Json *JsonReader::getArray(const Json &object, std::string_view key,
                                 std::string_view path) {
  const Json *value = require(object, key, path, true);
  if (!value)
    return nullptr;
  if (value->is_array())
    return value;
  failType(fieldPath(path, key), "an array", *value);
  return nullptr;
}

const Json *JsonReader::getObject(const Json &object, std::string_view key,
                                  std::string_view path) {
  const Json *value = require(object, key, path, true);
  if (!value)
    return nullptr;
  return asObject(*value, fieldPath(path, key));
}

std::optional<std::pair<std::string, bool>>
JsonReader::getPattern(const Json &object, std::string_view key,
                       std::string_view path) {
  const Json *pattern = getObject(object, key, path);
  if (!pattern)
    return std::nullopt;
  for (auto [name, isRegex] :
       {std::pair<std::string_view, bool>{"String", false}, {"Regex", true}})
    if (find(*pattern, name))
      return std::make_pair(getString(*pattern, name, fieldPath(path, key)),
                            isRegex);
  fail(fieldPath(path, key), "must hold \"String\" or \"Regex\"");
  return std::nullopt;
}

} // namespace llmc::tokenizer
