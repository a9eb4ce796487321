//===- Masks.cpp - attention masks the pieces expect ----------------------===//

#include "pieces/Masks.h"

#include <algorithm>

namespace llmc::pieces {
namespace {

/// The first position a query at `position` may see.
int64_t getFirstVisible(int64_t position, int64_t window) {
  return window > 0 ? std::max<int64_t>(0, position - window + 1) : 0;
}

} // namespace

std::vector<float> buildPrefillMask(int64_t length, int64_t window) {
  std::vector<float> mask(length * length, kMaskedScore);
  for (int64_t i = 0; i < length; ++i)
    for (int64_t j = getFirstVisible(i, window); j <= i; ++j)
      mask[i * length + j] = 0.0f;
  return mask;
}

std::vector<float> buildPrefillKVMask(int64_t length, int64_t historySlots,
                                      int64_t history, int64_t window) {
  int64_t keys = historySlots + length;
  std::vector<float> mask(length * keys, kMaskedScore);
  for (int64_t i = 0; i < length; ++i) {
    float *row = mask.data() + i * keys;
    // The query's position is history + i; new key j is at history + j.
    int64_t first = getFirstVisible(history + i, window);
    for (int64_t j = first; j < history; ++j)
      row[j] = 0.0f;
    for (int64_t j = std::max<int64_t>(0, first - history); j <= i; ++j)
      row[historySlots + j] = 0.0f;
  }
  return mask;
}

std::vector<float> buildDecodeMask(int64_t cacheSlots, int64_t history,
                                   int64_t window) {
  std::vector<float> mask(cacheSlots + 1, kMaskedScore);
  for (int64_t j = getFirstVisible(history, window); j < history; ++j)
    mask[j] = 0.0f;
  mask[cacheSlots] = 0.0f;
  return mask;
}

} // namespace llmc::pieces
