//===- ModelDims.h - the sizes a session schedules pieces by ----*- C++ -*-===//
//
// Everything a Session needs to know about a model: the sizes that fix the
// shapes of its pieces (docs/pieces.md). A checkpoint's ModelSpec with the
// build options, or a binary's manifest, gives them.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_MODELDIMS_H
#define LLMC_RUNTIME_SESSION_MODELDIMS_H

#include "support/Status.h"

#include <cstdint>
#include <vector>

namespace llmc::session {

struct ModelDims {
  /// Limits no real model reaches, checked before anything is sized by a
  /// file's values; they keep every product of sizes below 2^62.
  static constexpr int64_t kMaxLayers = 1 << 12;
  static constexpr int64_t kMaxHeads = 1 << 12;
  static constexpr int64_t kMaxHeadDim = 1 << 12;
  static constexpr int64_t kMaxHiddenSize = 1 << 18;
  static constexpr int64_t kMaxVocabSize = 1 << 22;
  static constexpr int64_t kMaxSeqLength = 1 << 22;

  /// Transformer layers.
  int64_t numLayers = 0;
  /// Key/value heads and the channels of one head.
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  /// D: the hidden size.
  int64_t hiddenSize = 0;
  /// V: the vocabulary size.
  int64_t vocabSize = 0;
  /// S: the KV-cache capacity in tokens (history plus new tokens).
  int64_t seqLength = 0;
  /// L: the tokens one prefill or prefill_kv piece processes.
  int64_t maxInputLength = 0;
  /// Shorter chunk lengths whose prefill pieces the model also has,
  /// ascending, each below L (pieces/ChunkLengths.h).
  std::vector<int64_t> prefillLengths;
  /// Per layer, the positions each query attends to at most, its own
  /// included (pieces/Masks.h); 0 for the whole context. Empty when no
  /// layer has a window.
  std::vector<int64_t> layerWindows;

  /// Fails unless every size is positive and within its limit, L <= S,
  /// the prefill lengths ascend below L, and a session's KV cache fits in
  /// this machine's memory.
  absl::Status validate() const;

  /// Bytes of a session's host copy of the KV cache (K and V, f32).
  uint64_t getHostKvCacheBytes() const;

  /// The sliding window of `layer`, 0 for none.
  int64_t getLayerWindow(int64_t layer) const {
    return layerWindows.empty() ? 0 : layerWindows[layer];
  }

  /// Floats one cached token holds per layer, for K or V: kv_heads x
  /// head_dim.
  int64_t getKvRowSize() const { return numKvHeads * headDim; }
};

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_MODELDIMS_H
