//===- PieceSelection.h - which pieces llmc convert compiles ----*- C++ -*-===//
//
// `--pieces a,b` compiles only the named pieces into a binary of their own,
// for `llmc merge` (a build system compiles each piece as an action of its
// own); `--piece-quantize <piece or glob>=<mode>` pins chosen pieces to
// another mode than -q, in a whole conversion and in a piece's alike.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_PIECESELECTION_H
#define LLMC_TOOLS_LLMC_PIECESELECTION_H

#include "driver/ModelCompiler.h"

namespace llmc {

/// Sets `options.pieces` and `options.pieceModes` from the flags.
llvm::Error applyPieceSelection(driver::ConvertOptions &options);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_PIECESELECTION_H
