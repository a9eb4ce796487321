//===- PieceOptions.h - the model and shape options of llmc ----*- C++ -*-===//
//
// -m/--model, -s/--seq-length and --max-input-length, shared by every
// subcommand that builds pieces.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_PIECEOPTIONS_H
#define LLMC_TOOLS_LLMC_PIECEOPTIONS_H

#include "frontends/llm/ModelLoading.h"

namespace llmc {

/// The shapes -s, --max-input-length, --prefill-lengths, --sample-top-k and
/// --penalty-window ask for; fails on prefill lengths that do not parse.
llvm::Expected<llm::BuildOptions> getBuildOptions();
/// Loads the checkpoint of -m for pieces built with `options`, printing what
/// its frontend warns about.
llvm::Expected<LoadedModel> loadSelectedModel(const plugins::Registry &registry,
                                              const llm::BuildOptions &options);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_PIECEOPTIONS_H
