//===- Tolerance.h - how close a lowering must compute ----------*- C++ -*-===//
//
// The numerical contract of the common lowering patterns, per precision:
// how close every output of a lowered op or piece, run on a chip's device,
// must come to the top interpreter running the same op or piece on the
// weights the binary holds (quantized weights dequantized, float weights
// rounded), computing in f32. Every chip plugin's conformance tests hold it
// to these figures: per op (backends/common/compile/test:op_conformance_test,
// one golden function per op) and per piece
// (backends/common/compile/test:piece_parity_test); a chip whose patterns
// compute differently declares and tests its own.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_TOLERANCE_H
#define LLMC_BACKENDS_COMMON_LOWERING_TOLERANCE_H

#include "backends/common/lowering/LoweringOptions.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace llmc::lowering {

/// How close the float outputs of one op, lowered alone, must come to the
/// reference. Integer outputs (indices, ids) must be equal in every mode.
struct OpTolerance {
  /// The lowest cosine similarity of each float output with the reference.
  double minCosine = 1;
  /// The largest |got - want| over each float output, relative to its
  /// largest |want|.
  double maxRelativeError = 0;
  /// Where the error comes from, for messages.
  llvm::StringRef reason;
};

/// The tolerance of top op `topOpName` (`top.MatMul`) lowered by the common
/// patterns in `mode`, or std::nullopt when none is declared (an op no chip
/// generates code for yet), on a chip that takes x in 8 bits per block
/// against 4-bit weights when `eightBitXWith4BitWeights`
/// (ChipDescriptor::eightBitXWith4BitWeights).
std::optional<OpTolerance>
getOpTolerance(llvm::StringRef topOpName, QuantMode mode,
               bool eightBitXWith4BitWeights = false);

/// The lowest cosine similarity a float output of a piece lowered in
/// `mode` may have against the reference. Token outputs must be equal.
double getMinPieceCosine(QuantMode mode);

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_TOLERANCE_H
