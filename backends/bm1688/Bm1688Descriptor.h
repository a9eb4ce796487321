//===- Bm1688Descriptor.h - the BM1688 chip as data -------------*- C++ -*-===//

#ifndef LLMC_BACKENDS_BM1688_BM1688DESCRIPTOR_H
#define LLMC_BACKENDS_BM1688_BM1688DESCRIPTOR_H

#include "plugins/ChipDescriptor.h"

namespace llmc::bm1688 {

/// The figures of Sophgo's BM1688, from TPU-MLIR's backend for it and the
/// public product brief; the comments in the source say which is which.
const plugins::ChipDescriptor &getDescriptor();

} // namespace llmc::bm1688

#endif // LLMC_BACKENDS_BM1688_BM1688DESCRIPTOR_H
