//===- QuantOptions.h - the quantization options of llmc --------*- C++ -*-===//
//
// -q/--quantize, -g/--q-group-size, --asymmetric, --qtable and
// --calibration-table, shared by
// `llmc convert` (the binary's precision) and `llmc eval` (the weights a
// binary of that precision holds).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_TOOLS_LLMC_QUANTOPTIONS_H
#define LLMC_TOOLS_LLMC_QUANTOPTIONS_H

#include "backends/common/lowering/LoweringOptions.h"
#include "plugins/ChipDescriptor.h"

namespace llmc {

/// Whether --quantize was given.
bool isQuantizeSet();
/// The lowering options the flags describe, validated (the qtable and the
/// calibration table read). INT8 without --calibration-table calibrates
/// with `calibrateDefault`, which convert provides; eval has none and
/// reports the missing table. With `chip`, every mode the options use is
/// first checked to be one the chip compiles, so that a mode it lacks is
/// refused before anything is calibrated.
llvm::Expected<lowering::LoweringOptions> getLoweringOptions(
    llvm::function_ref<llvm::Expected<quant::CalibrationTable>()>
        calibrateDefault = nullptr,
    const plugins::ChipDescriptor *chip = nullptr);

} // namespace llmc

#endif // LLMC_TOOLS_LLMC_QUANTOPTIONS_H
