//===- GgufValue.h - a GGUF metadata value ---------------------*- C++ -*-===//
//
// GGUF metadata maps string keys to typed values: integers of every width,
// f32/f64, bool, strings and (possibly nested) arrays of them.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_GGUFVALUE_H
#define LLMC_FRONTENDS_GGUF_GGUFVALUE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmc::gguf {

/// The metadata value types (the file's type ids).
enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};

/// `u32`, `string`, `array`, ... for messages.
llvm::StringRef stringifyValueType(ValueType type);
/// Stored bytes of a scalar of `type`; 0 for strings and arrays.
uint64_t getScalarSize(ValueType type);

/// A metadata value, valid while its GgufFile lives: strings point into the
/// file's mapping, and arrays of numbers keep their stored bytes and decode
/// an element when asked, so a vocabulary of scores costs nothing until read.
class Value {
public:
  ValueType getType() const { return type; }

  /// Any integer type whose value fits int64.
  std::optional<int64_t> getAsInteger() const;
  /// f32 or f64.
  std::optional<double> getAsFloat() const;
  std::optional<bool> getAsBool() const;
  std::optional<llvm::StringRef> getAsString() const;

  /// Arrays only: the element type and count, and element `index` (< size).
  ValueType getElementType() const { return elementType; }
  uint64_t getArraySize() const { return arraySize; }
  Value getElement(uint64_t index) const;
  /// The elements of an array of strings, or none for other values.
  std::optional<llvm::ArrayRef<llvm::StringRef>> getAsStringArray() const;

  /// The value in a short human-readable form (arrays abbreviated).
  std::string print() const;

private:
  friend class HeaderParser;

  ValueType type = ValueType::U8;
  /// Scalars: the stored little-endian bytes, zero-extended.
  uint64_t raw = 0;
  llvm::StringRef string;
  ValueType elementType = ValueType::U8;
  uint64_t arraySize = 0;
  /// Arrays of numbers and bools: their stored bytes.
  const uint8_t *elementBytes = nullptr;
  std::vector<llvm::StringRef> strings;
  std::vector<Value> nested;
};

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_GGUFVALUE_H
