//===- Intrinsics.h - x86 intrinsics and per-function targets ---*- C++ -*-===//
//
// The library is built for baseline x86-64. Every function of a SIMD path
// carries one of the target attributes below, so nothing the compiler emits
// for it can leak into code that runs before dispatch (as it could with
// per-file -m flags, through shared inline functions).
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_INTRINSICS_H
#define LLMC_BACKENDS_HOST_KERNELS_INTRINSICS_H

#if defined(__x86_64__)
// GCC 12 flags the `__Y = __Y` idiom of _mm512_undefined_ps() in inlined
// intrinsics as uninitialized (GCC PR 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#define LLMC_AVX2 __attribute__((target("avx2,fma,f16c")))
#define LLMC_AVX512                                                            \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))
/// AVX-512 with VNNI (VPDPBUSD), for the integer-dot 8- and 4-bit paths.
#define LLMC_AVX512_VNNI                                                       \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,"       \
                        "f16c")))
#define LLMC_INLINE inline __attribute__((always_inline))
#endif

#endif // LLMC_BACKENDS_HOST_KERNELS_INTRINSICS_H
