//===- StoredBlocks.h - ggml blocks that compile as they are ---*- C++ -*-===//
//
// Q8_0 and Q4_0 blocks are a symmetric group-wise quantization with group 32
// and f16 scales: a block is one group, `x = d * q` with q in [-128, 127]
// (Q8_0) or q - 8 in [-8, 7] (Q4_0). They are served unpacked as such, so a
// weight-only matmul reads ggml's own integers and scales and computes with
// exactly llama.cpp's dequantized weights.
//
// Q4_1 (`x = d * q + m`) is asymmetric with a float offset: it is served as
// its integers q in [0, 15], its scale d and the float zero point -m / d, so
// (q - zp) * d equals llama.cpp's value up to the rounding of m / d (a few
// ulp). The other block types nest scales; they are dequantized instead
// (Dequantize.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_STOREDBLOCKS_H
#define LLMC_FRONTENDS_GGUF_STOREDBLOCKS_H

#include "frontends/gguf/GgmlTypes.h"
#include "plugins/WeightSource.h"

#include <optional>

namespace llmc::gguf {

/// The stored quantization of a [rows, cols] matrix of `type`, when `type`
/// compiles without requantization.
std::optional<plugins::StoredQuantization> getStoredQuantization(GgmlType type);

/// Unpacks the blocks of a [rows, cols] matrix of `type` (one for which
/// getStoredQuantization is set; `blocks` holds rows * cols / 32 blocks).
plugins::StoredQuantizedTensor
unpackBlocks(GgmlType type, const uint8_t *blocks, int64_t rows, int64_t cols);

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_STOREDBLOCKS_H
