//===- Tolerance.h - how close a lowering must compute ----------*- C++ -*-===//
//
// The numerical contract of the common lowering patterns, per precision:
// how close every output of a lowered piece, run on a chip's cmodel, must
// come to the top interpreter running the same piece on the weights the
// binary holds (quantized weights dequantized, float weights rounded),
// computing in f32. Every chip plugin's conformance test holds it to these
// figures (backends/common/compile/test:piece_parity_test); a chip whose
// patterns compute differently declares and tests its own.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_TOLERANCE_H
#define LLMC_BACKENDS_COMMON_LOWERING_TOLERANCE_H

#include "backends/common/lowering/LoweringOptions.h"

namespace llmc::lowering {

/// The lowest cosine similarity a float output of a piece lowered in
/// `mode` may have against the reference. Token outputs must be equal.
double getMinPieceCosine(QuantMode mode);

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_TOLERANCE_H
