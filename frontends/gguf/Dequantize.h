//===- Dequantize.h - ggml block quantizations to float32 ------*- C++ -*-===//
//
// Converts the block-quantized ggml types that LLM checkpoints use to
// float32 with exactly ggml's arithmetic (its `dequantize_row_<type>`), so a
// model run on the dequantized weights sees the values llama.cpp sees.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_DEQUANTIZE_H
#define LLMC_FRONTENDS_GGUF_DEQUANTIZE_H

#include "frontends/gguf/GgmlTypes.h"

#include <cstdint>

namespace llmc::gguf {

/// Whether dequantize handles `type`: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 (blocks of
/// 32) and the K-quants Q4_K, Q5_K, Q6_K (super-blocks of 256).
bool isDequantizable(GgmlType type);

/// Converts `count` elements stored as `type` at `blocks` (`count` a multiple
/// of the type's block size) to float32 in `out`.
void dequantize(GgmlType type, const uint8_t *blocks, int64_t count,
                float *out);

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_DEQUANTIZE_H
