//===- StoredBlocks.cpp - ggml blocks that compile as they are ------------===//

#include "frontends/gguf/StoredBlocks.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

namespace llmc::gguf {

static constexpr int64_t kBlock = 32;

static float readHalf(const uint8_t *bytes) {
  return halfToFloat(static_cast<uint16_t>(bytes[0] | (bytes[1] << 8)));
}

std::optional<plugins::StoredQuantization>
getStoredQuantization(GgmlType type) {
  if (type != GgmlType::Q8_0 && type != GgmlType::Q4_0 &&
      type != GgmlType::Q4_1)
    return std::nullopt;
  plugins::StoredQuantization stored;
  stored.bits = type == GgmlType::Q8_0 ? 8 : 4;
  stored.groupSize = kBlock;
  stored.asymmetric = type == GgmlType::Q4_1;
  stored.floatZeroPoints = type == GgmlType::Q4_1;
  stored.scaleType = plugins::WeightType::F16;
  return stored;
}

plugins::StoredQuantizedTensor
unpackBlocks(GgmlType type, const uint8_t *blocks, int64_t rows, int64_t cols) {
  std::optional<plugins::StoredQuantization> stored =
      getStoredQuantization(type);
  if (!stored)
    llvm_unreachable("unpackBlocks needs a Q8_0, Q4_0 or Q4_1 tensor");
  plugins::StoredQuantizedTensor tensor;
  tensor.quantization = *stored;
  tensor.rows = rows;
  tensor.cols = cols;
  int64_t count = rows * cols;
  tensor.values.resize(count);
  tensor.scales.resize(count / kBlock);
  if (stored->floatZeroPoints)
    tensor.floatZeroPoints.resize(count / kBlock);
  int64_t blockBytes = getGgmlTypeTraits(type).blockBytes;
  for (int64_t index = 0; index < count / kBlock; ++index) {
    const uint8_t *block = blocks + index * blockBytes;
    float d = readHalf(block);
    tensor.scales[index] = d;
    uint8_t *values = tensor.values.data() + index * kBlock;
    if (type == GgmlType::Q8_0) {
      std::copy(block + 2, block + 2 + kBlock, values);
      continue;
    }
    // Byte j holds element j in its low nibble and j + 16 in its high one.
    // Q4_0 stores q - 8 (in two's complement); Q4_1 stores q, and
    // d * q + m = (q - zp) * d with zp = -m / d. A Q4_1 block of one value
    // (d = 0, every q = 0) keeps m as its scale with zp = -1.
    bool offset = type == GgmlType::Q4_1;
    const uint8_t *qs = block + (offset ? 4 : 2);
    int bias = offset ? 0 : 8;
    for (int64_t j = 0; j < kBlock / 2; ++j) {
      values[j] = static_cast<uint8_t>((qs[j] & 0x0F) - bias);
      values[j + kBlock / 2] = static_cast<uint8_t>((qs[j] >> 4) - bias);
    }
    if (offset) {
      float m = readHalf(block + 2);
      tensor.floatZeroPoints[index] = d != 0.0f ? -m / d : -1.0f;
      if (d == 0.0f)
        tensor.scales[index] = m;
    }
  }
  return tensor;
}

} // namespace llmc::gguf
