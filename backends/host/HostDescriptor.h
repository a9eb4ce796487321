//===- HostDescriptor.h - the host CPU as a chip ----------------*- C++ -*-===//
//
// The host CPU as a compilation target: it computes in global memory (no
// local memory to tile for), so codegen writes host programs, which the
// host device runs natively with SIMD kernels and threads.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_HOSTDESCRIPTOR_H
#define LLMC_BACKENDS_HOST_HOSTDESCRIPTOR_H

#include "plugins/ChipDescriptor.h"

namespace llmc::host {

const plugins::ChipDescriptor &getDescriptor();

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_HOSTDESCRIPTOR_H
