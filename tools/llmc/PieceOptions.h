//===- PieceOptions.h - the model and shape options of llmc ----*- C++ -*-===//
//
// -m/--model, -s/--seq-length and --max-input-length, shared by every
// subcommand that builds pieces.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_PIECEOPTIONS_H
#define LLMC_TOOLS_LLMC_PIECEOPTIONS_H

#include "frontends/llm/GraphBuilder.h"

namespace llmc {

llm::BuildOptions getBuildOptions();
llvm::StringRef getModelPath();

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_PIECEOPTIONS_H
