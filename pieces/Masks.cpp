//===- Masks.cpp - attention masks the pieces expect ----------------------===//

#include "pieces/Masks.h"

namespace llmc::pieces {

std::vector<float> buildPrefillMask(int64_t length) {
  std::vector<float> mask(length * length, kMaskedScore);
  for (int64_t i = 0; i < length; ++i)
    for (int64_t j = 0; j <= i; ++j)
      mask[i * length + j] = 0.0f;
  return mask;
}

std::vector<float> buildPrefillKVMask(int64_t length, int64_t historySlots,
                                      int64_t history) {
  int64_t keys = historySlots + length;
  std::vector<float> mask(length * keys, kMaskedScore);
  for (int64_t i = 0; i < length; ++i) {
    float *row = mask.data() + i * keys;
    for (int64_t j = 0; j < history; ++j)
      row[j] = 0.0f;
    for (int64_t j = 0; j <= i; ++j)
      row[historySlots + j] = 0.0f;
  }
  return mask;
}

std::vector<float> buildDecodeMask(int64_t cacheSlots, int64_t history) {
  std::vector<float> mask(cacheSlots + 1, kMaskedScore);
  for (int64_t j = 0; j < history; ++j)
    mask[j] = 0.0f;
  mask[cacheSlots] = 0.0f;
  return mask;
}

} // namespace llmc::pieces
