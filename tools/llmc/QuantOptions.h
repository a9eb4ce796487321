//===- QuantOptions.h - the quantization options of llmc --------*- C++ -*-===//
//
// -q/--quantize, -g/--q-group-size, --asymmetric and --qtable, shared by
// `llmc convert` (the binary's precision) and `llmc eval` (the weights a
// binary of that precision holds).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_QUANTOPTIONS_H
#define LLMC_TOOLS_LLMC_QUANTOPTIONS_H

#include "backends/common/lowering/LoweringOptions.h"

namespace llmc {

/// Whether --quantize was given.
bool isQuantizeSet();
/// The lowering options the flags describe, validated (the qtable read).
llvm::Expected<lowering::LoweringOptions> getLoweringOptions();

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_QUANTOPTIONS_H
