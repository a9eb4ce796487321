//===- StreamRelocation.h - one layer's stream for another ------*- C++ -*-===//
//
// Block pieces of equal layers differ only in which weights they read, so
// the compiler generates one layer's streams and relocates them: every
// coeff access inside one of its weights moves by the same distance into
// the corresponding weight of the target layer. Merging compiled
// pieces moves each piece's weights from its own file's coeff section into
// the merged one the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_COMPILE_STREAMRELOCATION_H
#define LLMC_BACKENDS_COMMON_COMPILE_STREAMRELOCATION_H

#include "backends/common/codegen/GlobalViews.h"
#include "backends/common/compile/PieceCompiler.h"
#include "backends/common/cmodel/command_stream.pb.h"

namespace llmc::compile {

/// Coeff bytes [begin, end) that move by `delta`.
struct CoeffMove {
  uint64_t begin = 0, end = 0;
  int64_t delta = 0;
};

/// `stream` with every coeff access that starts inside one of `moves`
/// moved by its delta; the moves must not overlap.
cmd::CommandStream relocateCoeff(const cmd::CommandStream &stream,
                                 std::vector<CoeffMove> moves);

/// `stream` (reading `from` weights) rewritten to read `to` (the same
/// weights of another layer, in the same order), at `offsets`.
cmd::CommandStream relocateStream(const cmd::CommandStream &stream,
                                  llvm::ArrayRef<WeightUse> from,
                                  llvm::ArrayRef<WeightUse> to,
                                  const codegen::WeightOffsets &offsets);

} // namespace llmc::compile

#endif // LLMC_BACKENDS_COMMON_COMPILE_STREAMRELOCATION_H
