//===- PostProcessor.h - special tokens added around a sequence -*- C++ -*-===//
//
// The `post_processor` section says which special tokens wrap an encoded
// sequence when the caller asks for them (Llama's BOS). Only the
// single-sequence form matters to a generator.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_TOKENIZER_POSTPROCESSOR_H
#define LLMC_RUNTIME_TOKENIZER_POSTPROCESSOR_H

#include "runtime/tokenizer/JsonReader.h"

#include <cstdint>
#include <vector>

namespace llmc::tokenizer {

struct SpecialTokenTemplate {
  /// Ids before and after the sequence.
  std::vector<int32_t> prefix;
  std::vector<int32_t> suffix;
};

/// The template that `value` (the JSON at `path`) describes: empty for a
/// null or missing section and for ByteLevel (which only trims offsets).
/// Errors are recorded in `reader`.
SpecialTokenTemplate parsePostProcessor(const Json *value, JsonReader &reader,
                                        std::string_view path);

} // namespace llmc::tokenizer

#endif // LLMC_RUNTIME_TOKENIZER_POSTPROCESSOR_H
