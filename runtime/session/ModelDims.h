//===- ModelDims.h - the sizes a session schedules pieces by ----*- C++ -*-===//
//
// Everything a Session needs to know about a model: the sizes that fix the
// shapes of its pieces (docs/pieces.md). A checkpoint's ModelSpec with the
// build options, or a binary's manifest, gives them.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_RUNTIME_SESSION_MODELDIMS_H
#define LLMC_RUNTIME_SESSION_MODELDIMS_H

#include "llvm/Support/Error.h"

#include <cstdint>

namespace llmc::session {

struct ModelDims {
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

  /// Fails unless every size is positive and L <= S.
  llvm::Error validate() const;

  /// Floats one cached token holds per layer, for K or V: kv_heads x
  /// head_dim.
  int64_t getKvRowSize() const { return numKvHeads * headDim; }
};

} // namespace llmc::session

#endif // LLMC_RUNTIME_SESSION_MODELDIMS_H
