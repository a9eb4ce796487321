//===- ComputePeak.h - the f32 throughput prefill compares with -*- C++ -*-===//
//
// Prefill is a chain of matrix products, bound by the float32 FMA rate of
// the cores; the host benchmarks measure that rate in the same run, as they
// measure the read bandwidth for decode (ReadBandwidth.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_BENCH_COMPUTEPEAK_H
#define LLMC_BACKENDS_HOST_KERNELS_BENCH_COMPUTEPEAK_H

#include "backends/host/kernels/WorkerPool.h"

namespace llmc::host {

/// Float32 GFLOP/s of the pool's threads running independent chains of
/// fused multiply-adds in the widest vectors the host has (AVX-512, else
/// AVX2 with FMA; 0 on a host with neither), best of runs.
double measureFmaPeak(WorkerPool &pool);

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_KERNELS_BENCH_COMPUTEPEAK_H
