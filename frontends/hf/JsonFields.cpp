//===- JsonFields.cpp - typed reads of a JSON config object ---------------===//

#include "frontends/hf/JsonFields.h"

#include "llvm/Support/MemoryBuffer.h"

namespace llmc::hf {

llvm::Expected<llvm::json::Object> readJsonObject(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!text)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + ": cannot read: " + text.getError().message());
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*text)->getBuffer());
  if (!value)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + ": not valid JSON: " + llvm::toString(value.takeError()));
  llvm::json::Object *object = value->getAsObject();
  if (!object)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": not a JSON object");
  return std::move(*object);
}

bool JsonFields::has(llvm::StringRef key) const {
  const llvm::json::Value *value = object.get(key);
  return value && value->kind() != llvm::json::Value::Null;
}

const llvm::json::Value *JsonFields::find(llvm::StringRef key, bool required) {
  if (has(key))
    return object.get(key);
  if (required)
    fail(key, "is missing");
  return nullptr;
}

void JsonFields::failType(llvm::StringRef key, llvm::StringRef expected,
                          const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  fail(key, "must be " + expected + ", got " + text);
}

int64_t JsonFields::getInt(llvm::StringRef key,
                           std::optional<int64_t> fallback) {
  const llvm::json::Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or(0);
  if (std::optional<int64_t> result = value->getAsInteger())
    return *result;
  failType(key, "an integer", *value);
  return 0;
}

double JsonFields::getNumber(llvm::StringRef key,
                             std::optional<double> fallback) {
  const llvm::json::Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or(0);
  if (std::optional<double> result = value->getAsNumber())
    return *result;
  failType(key, "a number", *value);
  return 0;
}

bool JsonFields::getBool(llvm::StringRef key, std::optional<bool> fallback) {
  const llvm::json::Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or(false);
  if (std::optional<bool> result = value->getAsBoolean())
    return *result;
  failType(key, "true or false", *value);
  return false;
}

std::string JsonFields::getString(llvm::StringRef key,
                                  std::optional<llvm::StringRef> fallback) {
  const llvm::json::Value *value = find(key, !fallback);
  if (!value)
    return fallback.value_or("").str();
  if (std::optional<llvm::StringRef> result = value->getAsString())
    return result->str();
  failType(key, "a string", *value);
  return {};
}

std::vector<int64_t> JsonFields::getIntList(llvm::StringRef key) {
  const llvm::json::Value *value = find(key, /*required=*/false);
  if (!value)
    return {};
  if (std::optional<int64_t> single = value->getAsInteger())
    return {*single};
  std::vector<int64_t> result;
  if (const llvm::json::Array *list = value->getAsArray()) {
    for (const llvm::json::Value &element : *list) {
      std::optional<int64_t> id = element.getAsInteger();
      if (!id)
        break;
      result.push_back(*id);
    }
    if (result.size() == list->size())
      return result;
  }
  failType(key, "an integer or a list of integers", *value);
  return {};
}

std::vector<double> JsonFields::getNumberList(llvm::StringRef key) {
  const llvm::json::Value *value = find(key, /*required=*/true);
  if (!value)
    return {};
  std::vector<double> result;
  if (const llvm::json::Array *list = value->getAsArray()) {
    for (const llvm::json::Value &element : *list) {
      std::optional<double> number = element.getAsNumber();
      if (!number)
        break;
      result.push_back(*number);
    }
    if (result.size() == list->size())
      return result;
  }
  failType(key, "a list of numbers", *value);
  return {};
}

std::vector<std::string> JsonFields::getStringList(llvm::StringRef key) {
  const llvm::json::Value *value = find(key, /*required=*/false);
  if (!value)
    return {};
  std::vector<std::string> result;
  if (const llvm::json::Array *list = value->getAsArray()) {
    for (const llvm::json::Value &element : *list) {
      std::optional<llvm::StringRef> text = element.getAsString();
      if (!text)
        break;
      result.push_back(text->str());
    }
    if (result.size() == list->size())
      return result;
  }
  failType(key, "a list of strings", *value);
  return {};
}

void JsonFields::fail(llvm::StringRef key, const llvm::Twine &problem) {
  if (!firstError)
    firstError =
        (llvm::Twine(file) + ": field '" + prefix + key + "' " + problem).str();
}

llvm::Error JsonFields::takeError() {
  if (!firstError)
    return llvm::Error::success();
  llvm::Error error =
      llvm::createStringError(llvm::inconvertibleErrorCode(), *firstError);
  firstError.reset();
  return error;
}

} // namespace llmc::hf
