//===- TextRange.h - a stretch of bytes of a text ---------------*- C++ -*-===//

#ifndef LLMC_RUNTIME_TOKENIZER_TEXTRANGE_H
#define LLMC_RUNTIME_TOKENIZER_TEXTRANGE_H

#include "absl/types/span.h"

#include <algorithm>
#include <cstddef>

namespace llmc::tokenizer {

/// Bytes [begin, end) of a text.
struct TextRange {
  size_t begin = 0;
  size_t end = 0;
};

/// Whether bytes [begin, end) share a byte with one of `ranges`.
inline bool overlapsAny(absl::Span<const TextRange> ranges, size_t begin,
                        size_t end) {
  return std::any_of(ranges.begin(), ranges.end(), [&](const TextRange &range) {
    return range.begin < end && begin < range.end;
  });
}

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_TEXTRANGE_H
