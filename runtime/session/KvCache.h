//===- KvCache.h - the host copy of a conversation's K and V ----*- C++ -*-===//
//
// Per layer, the rotated keys and the values of every token of the
// conversation so far, [S, kv_heads, head_dim] each. Block pieces read a
// prefix of it as their history and return the rows of their new tokens,
// which the session writes back at the history length.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_KVCACHE_H
#define LLMC_RUNTIME_SESSION_KVCACHE_H

#include "runtime/session/ModelDims.h"

#include "dialects/top/Interpreter/Tensor.h"

#include <vector>

namespace llmc::session {

class KvCache {
public:
  explicit KvCache(const ModelDims &dims);

  /// Rows [begin, end) of layer `layer`'s keys or values, as a
  /// [1, end - begin, kv_heads, head_dim] piece input (history_k,
  /// history_v, or the rows of them a runner that keeps history lacks).
  top::Tensor getKeys(int64_t layer, int64_t begin, int64_t end) const;
  top::Tensor getValues(int64_t layer, int64_t begin, int64_t end) const;

  /// Writes the first `count` token rows of a piece's new_k and new_v
  /// outputs at slot `at` of layer `layer`. Fails when the outputs hold
  /// fewer rows or the rows do not fit.
  absl::Status store(int64_t layer, int64_t at, int64_t count,
                     const top::Tensor &newK, const top::Tensor &newV);

  /// Zeroes every slot.
  void clear();

private:
  top::Tensor slice(const std::vector<float> &cache, int64_t begin,
                    int64_t end) const;

  ModelDims dims;
  /// Indexed by layer: [S, kv_heads, head_dim] floats.
  std::vector<std::vector<float>> keys, values;
};

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_KVCACHE_H
