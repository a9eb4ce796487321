//===- GgufCheckpoint.h - loads a GGUF checkpoint --------------*- C++ -*-===//
//
// A GGUF file as a plugins::Checkpoint: the description from its metadata
// and its memory-mapped tensors, cross-checked so the graph builder can rely
// on every named tensor.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTENDS_GGUF_GGUFCHECKPOINT_H
#define LLMC_FRONTENDS_GGUF_GGUFCHECKPOINT_H

#include "plugins/Plugin.h"

namespace llmc::gguf {

/// Whether `path` is a regular file that starts with the GGUF magic.
bool isGgufFile(llvm::StringRef path);

/// Loads the GGUF file at `path`: GgufFile::open, readModelSpec, then a
/// GgufWeights source. Every tensor the spec names must exist, have a type
/// llmc reads and the shape plugins::getExpectedShape gives; errors name the
/// file and the tensor.
llvm::Expected<plugins::Checkpoint> loadCheckpoint(llvm::StringRef path);

} // namespace llmc::gguf

#endif // LLMC_FRONTENDS_GGUF_GGUFCHECKPOINT_H
