//===- KvCache.cpp - the host copy of a conversation's K and V ------------===//

#include "runtime/session/KvCache.h"

#include "support/Strings.h"

#include <algorithm>

namespace llmc::session {

KvCache::KvCache(const ModelDims &dims) : dims(dims) {
  std::vector<float> layer(dims.seqLength * dims.getKvRowSize());
  keys.assign(dims.numLayers, layer);
  values.assign(dims.numLayers, layer);
}

top::Tensor KvCache::slice(const std::vector<float> &cache, int64_t begin,
                           int64_t end) const {
  int64_t row = dims.getKvRowSize();
  return top::Tensor::fromF32(
      {1, end - begin, dims.numKvHeads, dims.headDim},
      std::vector<float>(cache.begin() + begin * row,
                         cache.begin() + end * row));
}

top::Tensor KvCache::getKeys(int64_t layer, int64_t begin, int64_t end) const {
  return slice(keys[layer], begin, end);
}

top::Tensor KvCache::getValues(int64_t layer, int64_t begin,
                               int64_t end) const {
  return slice(values[layer], begin, end);
}

absl::Status KvCache::store(int64_t layer, int64_t at, int64_t count,
                            const top::Tensor &newK, const top::Tensor &newV) {
  int64_t row = dims.getKvRowSize();
  if (at < 0 || count < 0 || at + count > dims.seqLength)
    return absl::OutOfRangeError(
        support::strCat("KV cache rows [", at, ", ", at + count,
                        ") lie outside its ", dims.seqLength, " slots"));
  for (const top::Tensor *tensor : {&newK, &newV})
    if (!tensor->isF32() || tensor->getNumElements() < count * row)
      return absl::InvalidArgumentError(support::strCat(
          "new keys or values ", tensor->describe(), " hold fewer than ", count,
          " tokens of ", row, " floats"));
  absl::Span<const float> k = newK.getF32(), v = newV.getF32();
  std::copy(k.begin(), k.begin() + count * row, keys[layer].begin() + at * row);
  std::copy(v.begin(), v.begin() + count * row,
            values[layer].begin() + at * row);
  return absl::OkStatus();
}

void KvCache::clear() {
  for (std::vector<float> &layer : keys)
    std::fill(layer.begin(), layer.end(), 0.0f);
  for (std::vector<float> &layer : values)
    std::fill(layer.begin(), layer.end(), 0.0f);
}

} // namespace llmc::session
