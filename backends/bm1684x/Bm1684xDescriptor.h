//===- Bm1684xDescriptor.h - the BM1684X chip as data ----------*- C++ -*-===//

#ifndef LLMC_BACKENDS_BM1684X_BM1684XDESCRIPTOR_H
#define LLMC_BACKENDS_BM1684X_BM1684XDESCRIPTOR_H

#include "plugins/ChipDescriptor.h"

namespace llmc::bm1684x {

/// The figures of Sophgo's BM1684X, from its public product brief and the
/// TPU-MLIR documentation.
const plugins::ChipDescriptor &getDescriptor();

} // namespace llmc::bm1684x

#endif // LLMC_BACKENDS_BM1684X_BM1684XDESCRIPTOR_H
