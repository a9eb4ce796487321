//===- JsonReader.cpp - typed reads of tokenizer.json sections ------------===//

#include "runtime/tokenizer/JsonReader.h"

namespace llmc::tokenizer {

/// The JSON path of field `key` of the object at `path`.
static std::string fieldPath(const llvm::Twine &path, llvm::StringRef key) {
  std::string prefix = path.str();
  return prefix.empty() ? key.str() : prefix + "." + key.str();
}

void JsonReader::fail(const llvm::Twine &path, const llvm::Twine &problem) {
  if (!firstError)
    firstError = (source + ": " + path + " " + problem).str();
}

llvm::Error JsonReader::takeError() {
  if (!firstError)
    return llvm::Error::success();
  std::string message = std::move(*firstError);
  firstError.reset();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error JsonReader::makeError(const llvm::Twine &problem) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 source + ": " + problem);
}

void JsonReader::failType(const llvm::Twine &path, llvm::StringRef expected,
                          const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  if (text.size() > 60)
    text = text.substr(0, 57) + "...";
  fail(path, "must be " + expected + ", got " + text);
}

const llvm::json::Object *JsonReader::asObject(const llvm::json::Value &value,
                                               const llvm::Twine &path) {
  if (const llvm::json::Object *object = value.getAsObject())
    return object;
  failType(path, "an object", value);
  return nullptr;
}

const llvm::json::Value *JsonReader::find(const llvm::json::Object &object,
                                          llvm::StringRef key) const {
  const llvm::json::Value *value = object.get(key);
  if (!value || value->kind() == llvm::json::Value::Null)
    return nullptr;
  return value;
}

const llvm::json::Value *JsonReader::require(const llvm::json::Object &object,
                                             llvm::StringRef key,
                                             const llvm::Twine &path,
                                             bool required) {
  const llvm::json::Value *value = find(object, key);
  if (!value && required)
    fail(fieldPath(path, key), "is missing");
  return value;
}

std::string JsonReader::getString(const llvm::json::Object &object,
                                  llvm::StringRef key, const llvm::Twine &path,
                                  std::optional<llvm::StringRef> fallback) {
  const llvm::json::Value *value = require(object, key, path, !fallback);
  if (!value)
    return fallback.value_or("").str();
  if (std::optional<llvm::StringRef> result = value->getAsString())
    return result->str();
  failType(fieldPath(path, key), "a string", *value);
  return {};
}

bool JsonReader::getBool(const llvm::json::Object &object, llvm::StringRef key,
                         const llvm::Twine &path,
                         std::optional<bool> fallback) {
  const llvm::json::Value *value = require(object, key, path, !fallback);
  if (!value)
    return fallback.value_or(false);
  if (std::optional<bool> result = value->getAsBoolean())
    return *result;
  failType(fieldPath(path, key), "true or false", *value);
  return false;
}

int64_t JsonReader::getInt(const llvm::json::Object &object,
                           llvm::StringRef key, const llvm::Twine &path,
                           std::optional<int64_t> fallback) {
  const llvm::json::Value *value = require(object, key, path, !fallback);
  if (!value)
    return fallback.value_or(0);
  if (std::optional<int64_t> result = value->getAsInteger())
    return *result;
  failType(fieldPath(path, key), "an integer", *value);
  return 0;
}

const llvm::json::Array *JsonReader::getArray(const llvm::json::Object &object,
                                              llvm::StringRef key,
                                              const llvm::Twine &path) {
  const llvm::json::Value *value = require(object, key, path, true);
  if (!value)
    return nullptr;
  if (const llvm::json::Array *array = value->getAsArray())
    return array;
  failType(fieldPath(path, key), "an array", *value);
  return nullptr;
}

const llvm::json::Object *
JsonReader::getObject(const llvm::json::Object &object, llvm::StringRef key,
                      const llvm::Twine &path) {
  const llvm::json::Value *value = require(object, key, path, true);
  if (!value)
    return nullptr;
  return asObject(*value, fieldPath(path, key));
}

std::optional<std::pair<std::string, bool>>
JsonReader::getPattern(const llvm::json::Object &object, llvm::StringRef key,
                       const llvm::Twine &path) {
  const llvm::json::Object *pattern = getObject(object, key, path);
  if (!pattern)
    return std::nullopt;
  for (auto [name, isRegex] :
       {std::pair<llvm::StringRef, bool>{"String", false}, {"Regex", true}})
    if (find(*pattern, name))
      return std::make_pair(getString(*pattern, name, fieldPath(path, key)),
                            isRegex);
  fail(fieldPath(path, key), "must hold \"String\" or \"Regex\"");
  return std::nullopt;
}

} // namespace llmc::tokenizer
