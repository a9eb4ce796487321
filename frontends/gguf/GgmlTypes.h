//===- GgmlTypes.h - the tensor element types of ggml ----------*- C++ -*-===//
//
// A GGUF tensor names its element type by a ggml type id. Most ids are block
// quantizations: a block of `blockSize` consecutive elements of a row is
// stored in `blockBytes` bytes (scales and packed codes together). Knowing
// every id's block geometry lets the parser check tensor sizes even for types
// llmc cannot compute with, so such files fail only when those tensors are
// used.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_GGMLTYPES_H
#define LLMC_FRONTENDS_GGUF_GGMLTYPES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace llmc::gguf {

/// ggml's type ids (ggml.h `enum ggml_type`); gaps are ids ggml retired.
enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
};

/// The storage geometry of a ggml type.
struct GgmlTypeTraits {
  /// ggml's lower-case name (`q4_0`), for messages.
  llvm::StringLiteral name;
  /// Elements per block (1 for plain types).
  int64_t blockSize;
  /// Bytes per block.
  int64_t blockBytes;
};

/// The type with id `id`, if ggml defines one.
std::optional<GgmlType> lookupGgmlType(uint32_t id);

const GgmlTypeTraits &getGgmlTypeTraits(GgmlType type);

inline llvm::StringRef stringifyGgmlType(GgmlType type) {
  return getGgmlTypeTraits(type).name;
}

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_GGMLTYPES_H
