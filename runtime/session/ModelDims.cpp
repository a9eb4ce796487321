//===- ModelDims.cpp - the sizes a session schedules pieces by ------------===//

#include "runtime/session/ModelDims.h"

#include "pieces/ChunkLengths.h"
#include "runtime/session/HostMemory.h"

namespace llmc::session {

static llvm::Error dimsError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error ModelDims::validate() const {
  struct Size {
    const char *name;
    int64_t value;
    int64_t limit;
  };
  for (Size size : {Size{"num_layers", numLayers, kMaxLayers},
                    Size{"num_kv_heads", numKvHeads, kMaxHeads},
                    Size{"head_dim", headDim, kMaxHeadDim},
                    Size{"hidden_size", hiddenSize, kMaxHiddenSize},
                    Size{"vocab_size", vocabSize, kMaxVocabSize},
                    Size{"seq_length", seqLength, kMaxSeqLength},
                    Size{"max_input_length", maxInputLength, kMaxSeqLength}}) {
    if (size.value <= 0)
      return dimsError("model size " + llvm::Twine(size.name) +
                       " must be positive, not " + llvm::Twine(size.value));
    if (size.value > size.limit)
      return dimsError("model size " + llvm::Twine(size.name) + " (" +
                       llvm::Twine(size.value) + ") exceeds llmc's limit of " +
                       llvm::Twine(size.limit));
  }
  if (maxInputLength > seqLength)
    return dimsError("max_input_length (" + llvm::Twine(maxInputLength) +
                     ") exceeds seq_length (" + llvm::Twine(seqLength) + ")");
  if (!layerWindows.empty() &&
      static_cast<int64_t>(layerWindows.size()) != numLayers)
    return dimsError("the sliding windows are given for " +
                     llvm::Twine(layerWindows.size()) + " layers, not " +
                     llvm::Twine(numLayers));
  for (int64_t window : layerWindows)
    if (window < 0)
      return dimsError("a sliding window must not be negative, not " +
                       llvm::Twine(window));
  if (std::optional<std::string> problem =
          pieces::checkPrefillLengths(prefillLengths, maxInputLength))
    return dimsError(*problem);
  return checkFitsInMemory("the KV cache of seq_length " +
                               llvm::Twine(seqLength) + " (" +
                               llvm::Twine(numLayers) + " layers)",
                           getHostKvCacheBytes());
}

uint64_t ModelDims::getHostKvCacheBytes() const {
  return 2 * uint64_t(numLayers) * uint64_t(seqLength) *
         uint64_t(getKvRowSize()) * sizeof(float);
}

} // namespace llmc::session
