//===- HfCheckpoint.h - loads a Hugging Face checkpoint --------*- C++ -*-===//
//
// A Hugging Face checkpoint directory as a plugins::Checkpoint: the
// description from its JSON files and its memory-mapped safetensors weights,
// cross-checked so the graph builder can rely on every named tensor.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_HF_HFCHECKPOINT_H
#define LLMC_FRONTENDS_HF_HFCHECKPOINT_H

#include "plugins/Plugin.h"

namespace llmc::hf {

/// Loads the checkpoint in `directory`: readModelSpec, then the weights
/// (`model.safetensors.index.json` and its shards, else `model.safetensors`).
/// Every tensor the spec names must exist, have a floating-point type and the
/// shape plugins::getExpectedShape gives; errors name the file and the
/// tensor.
llvm::Expected<plugins::Checkpoint> loadCheckpoint(llvm::StringRef directory);

} // namespace llmc::hf

#endif // LLMC_FRONTENDS_HF_HFCHECKPOINT_H
