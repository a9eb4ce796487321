//===- Cv186xDescriptor.h - the CV186AH chip as data ------------*- C++ -*-===//

#ifndef LLMC_BACKENDS_CV186X_CV186XDESCRIPTOR_H
#define LLMC_BACKENDS_CV186X_CV186XDESCRIPTOR_H

#include "plugins/ChipDescriptor.h"

namespace llmc::cv186x {

/// The figures of Sophgo's CV186AH (TPU-MLIR's `cv186x`), the BM1688's
/// architecture at a smaller size; the comments in the source say where
/// each figure comes from.
const plugins::ChipDescriptor &getDescriptor();

} // namespace llmc::cv186x

#endif // LLMC_BACKENDS_CV186X_CV186XDESCRIPTOR_H
