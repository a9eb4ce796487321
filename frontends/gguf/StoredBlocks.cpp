//===- StoredBlocks.cpp - ggml blocks that compile as they are ------------===//

#include "frontends/gguf/StoredBlocks.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

namespace llmc::gguf {

static constexpr int64_t kBlock = 32;

std::optional<plugins::StoredQuantization>
getStoredQuantization(GgmlType type) {
  if (type != GgmlType::Q8_0 && type != GgmlType::Q4_0)
    return std::nullopt;
  plugins::StoredQuantization stored;
  stored.bits = type == GgmlType::Q8_0 ? 8 : 4;
  stored.groupSize = kBlock;
  stored.asymmetric = false;
  stored.scaleType = plugins::WeightType::F16;
  return stored;
}

plugins::StoredQuantizedTensor
unpackBlocks(GgmlType type, const uint8_t *blocks, int64_t rows, int64_t cols) {
  std::optional<plugins::StoredQuantization> stored =
      getStoredQuantization(type);
  if (!stored)
    llvm_unreachable("unpackBlocks needs a Q8_0 or Q4_0 tensor");
  plugins::StoredQuantizedTensor tensor;
  tensor.quantization = *stored;
  tensor.rows = rows;
  tensor.cols = cols;
  int64_t count = rows * cols;
  tensor.values.resize(count);
  tensor.scales.resize(count / kBlock);
  int64_t blockBytes = getGgmlTypeTraits(type).blockBytes;
  for (int64_t index = 0; index < count / kBlock; ++index) {
    const uint8_t *block = blocks + index * blockBytes;
    tensor.scales[index] =
        halfToFloat(static_cast<uint16_t>(block[0] | (block[1] << 8)));
    uint8_t *values = tensor.values.data() + index * kBlock;
    const uint8_t *qs = block + 2;
    if (type == GgmlType::Q8_0) {
      std::copy(qs, qs + kBlock, values);
      continue;
    }
    // Byte j holds element j in its low nibble and j + 16 in its high one;
    // q - 8 is stored in two's complement.
    for (int64_t j = 0; j < kBlock / 2; ++j) {
      values[j] = static_cast<uint8_t>((qs[j] & 0x0F) - 8);
      values[j + kBlock / 2] = static_cast<uint8_t>((qs[j] >> 4) - 8);
    }
  }
  return tensor;
}

} // namespace llmc::gguf
