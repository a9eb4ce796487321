//===- ModelDims.cpp - the sizes a session schedules pieces by ------------===//

#include "runtime/session/ModelDims.h"

#include "pieces/ChunkLengths.h"
#include "runtime/session/HostMemory.h"
#include "support/Strings.h"

namespace llmc::session {

using support::strCat;

static absl::Status dimsError(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

absl::Status ModelDims::validate() const {
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
      return dimsError(strCat("model size ", size.name,
                              " must be positive, not ", size.value));
    if (size.value > size.limit)
      return dimsError(strCat("model size ", size.name, " (", size.value,
                              ") exceeds llmc's limit of ", size.limit));
  }
  if (maxInputLength > seqLength)
    return dimsError(strCat("max_input_length (", maxInputLength,
                            ") exceeds seq_length (", seqLength, ")"));
  if (!layerWindows.empty() &&
      static_cast<int64_t>(layerWindows.size()) != numLayers)
    return dimsError(strCat("the sliding windows are given for ",
                            layerWindows.size(), " layers, not ", numLayers));
  for (int64_t window : layerWindows)
    if (window < 0)
      return dimsError(
          strCat("a sliding window must not be negative, not ", window));
  if (std::optional<std::string> problem =
          pieces::checkPrefillLengths(prefillLengths, maxInputLength))
    return dimsError(*problem);
  return checkFitsInMemory(strCat("the KV cache of seq_length ", seqLength,
                                  " (", numLayers, " layers)"),
                           getHostKvCacheBytes());
}

uint64_t ModelDims::getHostKvCacheBytes() const {
  return 2 * uint64_t(numLayers) * uint64_t(seqLength) *
         uint64_t(getKvRowSize()) * sizeof(float);
}

} // namespace llmc::session
