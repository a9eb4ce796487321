//===- CpuFeatures.h - what the host CPU can run ----------------*- C++ -*-===//
//
// The kernel library is built for any x86-64 and compiles its SIMD paths
// per function (target attributes), so it must ask the CPU at run time which
// of them it may call. A feature counts only when the OS also saves its
// registers on context switch (XCR0), which a VM or an old kernel may not.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_HOST_KERNELS_CPUFEATURES_H
#define LLMC_BACKENDS_HOST_KERNELS_CPUFEATURES_H

#include <string>

namespace llmc::host {

/// The instruction-set extensions of the host that the kernels care about.
struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512vnni = false;
  bool avx512bf16 = false, avx512fp16 = false;
  bool amxTile = false, amxBf16 = false, amxInt8 = false;
  /// Advanced SIMD, which every aarch64 CPU has.
  bool neon = false;

  /// Read once with cpuid and xgetbv (OS-enabled register state checked:
  /// XCR0 bits for AVX, AVX-512 and AMX) on x86-64.
  static const CpuFeatures &host();

  /// The names of the present features, space separated
  /// ("avx2 fma f16c avx512f ...").
  std::string describe() const;
};

/// The SIMD paths of the kernels.
enum class Isa { Scalar, Avx2, Avx512, Avx512Vnni, Neon };
/// The paths of the architecture the library is built for, in increasing
/// order.
#if defined(__aarch64__)
inline constexpr Isa kIsas[] = {Isa::Scalar, Isa::Neon};
#else
inline constexpr Isa kIsas[] = {Isa::Scalar, Isa::Avx2, Isa::Avx512,
                                Isa::Avx512Vnni};
#endif

/// Whether the host can run `isa`'s path: Avx2 needs AVX2, FMA and F16C;
/// Avx512 needs those and AVX-512 F, BW and VL; Avx512Vnni (the Avx512
/// path with 8- and 4-bit products by integer dot products) also
/// AVX512-VNNI; Neon an aarch64 build (Advanced SIMD is part of its
/// baseline).
bool isIsaSupported(Isa isa);

/// The best Isa the host supports, unless the environment variable
/// LLMC_HOST_ISA (scalar|avx2|avx512|avx512vnni on x86-64, scalar|neon on
/// aarch64) asks for a lower one (tests use it to cover every path). The
/// variable is read on every call.
Isa selectIsa();

/// `isa`, lowered to the best one the host supports (the best of all for
/// a path of another architecture).
Isa clampIsa(Isa isa);

/// "scalar", "avx2", "avx512", "avx512vnni" or "neon".
const char *getIsaName(Isa isa);

/// The physical cores the process may run on: the CPUs of its affinity
/// mask, counting the hardware threads of one core (SMT siblings) once, as
/// Linux's topology files in /sys describe them. Compute-bound kernels gain
/// nothing from a core's second thread, which shares its vector units. The
/// allowed CPUs when the topology cannot be read; at least 1.
unsigned getPhysicalCoreCount();

} // namespace llmc::host

#endif // LLMC_BACKENDS_HOST_KERNELS_CPUFEATURES_H
