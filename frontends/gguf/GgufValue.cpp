//===- GgufValue.cpp - a GGUF metadata value ------------------------------===//

#include "frontends/gguf/GgufValue.h"

#include "llvm/Support/ErrorHandling.h"

#include <cassert>
#include <cstring>
#include <limits>

namespace llmc::gguf {

uint64_t getScalarSize(ValueType type) {
  switch (type) {
  case ValueType::U8:
  case ValueType::I8:
  case ValueType::Bool: return 1;
  case ValueType::U16:
  case ValueType::I16: return 2;
  case ValueType::U32:
  case ValueType::I32:
  case ValueType::F32: return 4;
  case ValueType::U64:
  case ValueType::I64:
  case ValueType::F64: return 8;
  case ValueType::String:
  case ValueType::Array: return 0;
  }
  llvm_unreachable("unknown value type");
}

llvm::StringRef stringifyValueType(ValueType type) {
  switch (type) {
  case ValueType::U8: return "u8";
  case ValueType::I8: return "i8";
  case ValueType::U16: return "u16";
  case ValueType::I16: return "i16";
  case ValueType::U32: return "u32";
  case ValueType::I32: return "i32";
  case ValueType::F32: return "f32";
  case ValueType::Bool: return "bool";
  case ValueType::String: return "string";
  case ValueType::Array: return "array";
  case ValueType::U64: return "u64";
  case ValueType::I64: return "i64";
  case ValueType::F64: return "f64";
  }
  llvm_unreachable("unknown value type");
}

std::optional<int64_t> Value::getAsInteger() const {
  switch (type) {
  case ValueType::U8:
  case ValueType::U16:
  case ValueType::U32: return static_cast<int64_t>(raw);
  case ValueType::I8: return static_cast<int8_t>(raw);
  case ValueType::I16: return static_cast<int16_t>(raw);
  case ValueType::I32: return static_cast<int32_t>(raw);
  case ValueType::I64: return static_cast<int64_t>(raw);
  case ValueType::U64:
    if (raw > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return std::nullopt;
    return static_cast<int64_t>(raw);
  default: return std::nullopt;
  }
}

std::optional<double> Value::getAsFloat() const {
  if (type == ValueType::F32) {
    uint32_t bits = static_cast<uint32_t>(raw);
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  if (type == ValueType::F64) {
    double value;
    std::memcpy(&value, &raw, sizeof(value));
    return value;
  }
  return std::nullopt;
}

std::optional<bool> Value::getAsBool() const {
  if (type != ValueType::Bool)
    return std::nullopt;
  return raw != 0;
}

std::optional<llvm::StringRef> Value::getAsString() const {
  if (type != ValueType::String)
    return std::nullopt;
  return string;
}

std::optional<llvm::ArrayRef<llvm::StringRef>>
Value::getAsStringArray() const {
  if (type != ValueType::Array || elementType != ValueType::String)
    return std::nullopt;
  return llvm::ArrayRef(strings);
}

Value Value::getElement(uint64_t index) const {
  assert(type == ValueType::Array && index < arraySize && "not an element");
  if (elementType == ValueType::Array)
    return nested[index];
  Value element;
  element.type = elementType;
  if (elementType == ValueType::String) {
    element.string = strings[index];
    return element;
  }
  uint64_t size = getScalarSize(elementType);
  for (uint64_t byte = 0; byte < size; ++byte)
    element.raw |= uint64_t(elementBytes[index * size + byte]) << (8 * byte);
  return element;
}

std::string Value::print() const {
  if (type == ValueType::Array)
    return "array of " + std::to_string(arraySize) + " " +
           stringifyValueType(elementType).str();
  if (type == ValueType::String)
    return "string '" + string.str() + "'";
  std::string text = stringifyValueType(type).str() + " ";
  if (std::optional<int64_t> integer = getAsInteger())
    return text + std::to_string(*integer);
  if (std::optional<double> number = getAsFloat())
    return text + std::to_string(*number);
  if (type == ValueType::Bool)
    return text + (raw ? "true" : "false");
  return text + std::to_string(raw);
}

} // namespace llmc::gguf
