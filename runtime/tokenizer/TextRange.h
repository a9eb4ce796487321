//===- TextRange.h - a stretch of bytes of a text ---------------*- C++ -*-===//

#ifndef LLMC_RUNTIME_TOKENIZER_TEXTRANGE_H
#define LLMC_RUNTIME_TOKENIZER_TEXTRANGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <cstddef>

namespace llmc::tokenizer {

/// Bytes [begin, end) of a text.
struct TextRange {
  size_t begin = 0;
  size_t end = 0;
};

/// Whether bytes [begin, end) share a byte with one of `ranges`.
inline bool overlapsAny(llvm::ArrayRef<TextRange> ranges, size_t begin,
                        size_t end) {
  return llvm::any_of(ranges, [&](const TextRange &range) {
    return range.begin < end && begin < range.end;
  });
}

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_TEXTRANGE_H
