//===- MetadataFields.cpp - typed reads of GGUF metadata ------------------===//

#include "frontends/gguf/MetadataFields.h"

namespace llmc::gguf {
namespace {

/// The elements of array `value` as `get` converts them; none when it is not
/// an array or `get` rejects an element.
template <typename T, typename Getter>
std::optional<std::vector<T>> decodeArray(const Value &value, Getter get) {
  if (value.getType() != ValueType::Array)
    return std::nullopt;
  std::vector<T> result;
  result.reserve(value.getArraySize());
  for (uint64_t i = 0; i < value.getArraySize(); ++i) {
    std::optional<T> element = get(value.getElement(i));
    if (!element)
      return std::nullopt;
    result.push_back(*element);
  }
  return result;
}

} // namespace

const Value *MetadataFields::find(llvm::StringRef key, bool required) {
  const Value *value = file.lookup(key);
  if (!value && required)
    fail(key, "is missing");
  return value;
}

void MetadataFields::failType(llvm::StringRef key, llvm::StringRef expected,
                              const Value &value) {
  fail(key, "must be " + expected + ", got " + value.print());
}

int64_t MetadataFields::getInt(llvm::StringRef key,
                               std::optional<int64_t> fallback) {
  const Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or(0);
  if (std::optional<int64_t> result = value->getAsInteger())
    return *result;
  failType(key, "an integer", *value);
  return 0;
}

double MetadataFields::getFloat(llvm::StringRef key,
                                std::optional<double> fallback) {
  const Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or(0);
  if (std::optional<double> result = value->getAsFloat())
    return *result;
  failType(key, "a float", *value);
  return 0;
}

bool MetadataFields::getBool(llvm::StringRef key,
                             std::optional<bool> fallback) {
  const Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or(false);
  if (std::optional<bool> result = value->getAsBool())
    return *result;
  failType(key, "a bool", *value);
  return false;
}

std::string MetadataFields::getString(llvm::StringRef key,
                                      std::optional<llvm::StringRef> fallback) {
  const Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or("").str();
  if (std::optional<llvm::StringRef> result = value->getAsString())
    return result->str();
  failType(key, "a string", *value);
  return {};
}

llvm::ArrayRef<llvm::StringRef>
MetadataFields::getStringArray(llvm::StringRef key) {
  const Value *value = find(key, /*required=*/false);
  if (!value)
    return {};
  if (std::optional<llvm::ArrayRef<llvm::StringRef>> result =
          value->getAsStringArray())
    return *result;
  failType(key, "an array of strings", *value);
  return {};
}

std::vector<int64_t> MetadataFields::getIntArray(llvm::StringRef key) {
  const Value *value = find(key, /*required=*/false);
  if (!value)
    return {};
  if (auto result = decodeArray<int64_t>(
          *value, [](const Value &element) { return element.getAsInteger(); }))
    return std::move(*result);
  failType(key, "an array of integers", *value);
  return {};
}

std::vector<bool> MetadataFields::getBoolArray(llvm::StringRef key) {
  const Value *value = find(key, /*required=*/false);
  if (!value)
    return {};
  if (auto result = decodeArray<bool>(
          *value, [](const Value &element) { return element.getAsBool(); }))
    return std::move(*result);
  failType(key, "an array of bools", *value);
  return {};
}

std::vector<double> MetadataFields::getFloatArray(llvm::StringRef key) {
  const Value *value = find(key, /*required=*/false);
  if (!value)
    return {};
  if (auto result = decodeArray<double>(
          *value, [](const Value &element) { return element.getAsFloat(); }))
    return std::move(*result);
  failType(key, "an array of floats", *value);
  return {};
}

void MetadataFields::fail(llvm::StringRef key, const llvm::Twine &problem) {
  if (!firstError)
    firstError = (file.getPath() + ": metadata '" + key + "' " + problem).str();
}

llvm::Error MetadataFields::takeError() {
  if (!firstError)
    return llvm::Error::success();
  std::string message = std::move(*firstError);
  firstError.reset();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace llmc::gguf
