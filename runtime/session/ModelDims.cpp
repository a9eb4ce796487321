//===- ModelDims.cpp - the sizes a session schedules pieces by ------------===//

#include "runtime/session/ModelDims.h"

namespace llmc::session {

llvm::Error ModelDims::validate() const {
  struct Size {
    const char *name;
    int64_t value;
  };
  for (Size size :
       {Size{"num_layers", numLayers}, Size{"num_kv_heads", numKvHeads},
        Size{"head_dim", headDim}, Size{"hidden_size", hiddenSize},
        Size{"vocab_size", vocabSize}, Size{"seq_length", seqLength},
        Size{"max_input_length", maxInputLength}})
    if (size.value <= 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "model size %s must be positive, not %lld",
                                     size.name,
                                     static_cast<long long>(size.value));
  if (maxInputLength > seqLength)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "max_input_length (%lld) exceeds seq_length (%lld)",
        static_cast<long long>(maxInputLength),
        static_cast<long long>(seqLength));
  return llvm::Error::success();
}

} // namespace llmc::session
