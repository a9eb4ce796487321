//===- CpuFeatures.cpp - what the host CPU can run ------------------------===//

#include "backends/host/kernels/CpuFeatures.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#include <sched.h>
#endif

namespace llmc::host {

#if defined(__x86_64__)
static void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4]) {
  __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
}

// xgetbv is an AVX-era instruction; encoded by hand so that this file needs
// no target attribute (it only runs after cpuid reported OSXSAVE).
static uint64_t readXcr0() {
  uint32_t eax, edx;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
  return (uint64_t(edx) << 32) | eax;
}

static CpuFeatures probe() {
  CpuFeatures f;
  uint32_t r[4];
  cpuid(0, 0, r);
  uint32_t maxLeaf = r[0];
  if (maxLeaf < 1)
    return f;
  cpuid(1, 0, r);
  bool osxsave = r[2] & (1u << 27);
  bool avx = r[2] & (1u << 28);
  bool fma = r[2] & (1u << 12);
  bool f16c = r[2] & (1u << 29);
  if (!osxsave || !avx)
    return f;
  uint64_t xcr0 = readXcr0();
  // SSE and AVX state (bits 1, 2); AVX-512 adds the opmask and both halves
  // of the upper ZMM state (5, 6, 7); AMX the tile config and data (17, 18).
  bool osAvx = (xcr0 & 0x6) == 0x6;
  bool osAvx512 = osAvx && (xcr0 & 0xe0) == 0xe0;
  bool osAmx = (xcr0 & 0x60000) == 0x60000;
  if (!osAvx)
    return f;
  f.fma = fma;
  f.f16c = f16c;
  if (maxLeaf < 7)
    return f;
  cpuid(7, 0, r);
  uint32_t maxSubleaf = r[0];
  uint32_t ebx = r[1], ecx = r[2], edx = r[3];
  f.avx2 = ebx & (1u << 5);
  if (osAvx512) {
    f.avx512f = ebx & (1u << 16);
    f.avx512bw = ebx & (1u << 30);
    f.avx512vl = ebx & (1u << 31);
    f.avx512vnni = ecx & (1u << 11);
    f.avx512fp16 = edx & (1u << 23);
    if (maxSubleaf >= 1) {
      cpuid(7, 1, r);
      f.avx512bf16 = r[0] & (1u << 5);
    }
  }
  // Linux also wants arch_prctl(ARCH_REQ_XCOMP_PERM) before the first tile
  // instruction; whoever uses AMX asks for it then.
  if (osAmx) {
    f.amxBf16 = edx & (1u << 22);
    f.amxTile = edx & (1u << 24);
    f.amxInt8 = edx & (1u << 25);
  }
  return f;
}
#elif defined(__aarch64__)
static CpuFeatures probe() {
  CpuFeatures f;
  f.neon = true;
  return f;
}
#else
static CpuFeatures probe() { return CpuFeatures(); }
#endif

const CpuFeatures &CpuFeatures::host() {
  static const CpuFeatures features = probe();
  return features;
}

std::string CpuFeatures::describe() const {
  std::string out;
  auto add = [&](bool present, const char *name) {
    if (!present)
      return;
    if (!out.empty())
      out += ' ';
    out += name;
  };
  add(avx2, "avx2");
  add(fma, "fma");
  add(f16c, "f16c");
  add(avx512f, "avx512f");
  add(avx512bw, "avx512bw");
  add(avx512vl, "avx512vl");
  add(avx512vnni, "avx512vnni");
  add(avx512bf16, "avx512bf16");
  add(avx512fp16, "avx512fp16");
  add(amxTile, "amx-tile");
  add(amxBf16, "amx-bf16");
  add(amxInt8, "amx-int8");
  add(neon, "neon");
  return out;
}

bool isIsaSupported(Isa isa) {
  const CpuFeatures &f = CpuFeatures::host();
  bool avx2 = f.avx2 && f.fma && f.f16c;
  switch (isa) {
  case Isa::Scalar:
    return true;
  case Isa::Avx2:
    return avx2;
  case Isa::Avx512:
    return avx2 && f.avx512f && f.avx512bw && f.avx512vl;
  case Isa::Avx512Vnni:
    return isIsaSupported(Isa::Avx512) && f.avx512vnni;
  case Isa::Neon:
    return f.neon;
  }
  return false;
}

Isa clampIsa(Isa isa) {
  // Support is monotonic along kIsas: the last supported path up to `isa`.
  Isa best = Isa::Scalar;
  for (Isa candidate : kIsas) {
    if (isIsaSupported(candidate))
      best = candidate;
    if (candidate == isa)
      break;
  }
  return best;
}

Isa selectIsa() {
  Isa best = clampIsa(std::end(kIsas)[-1]);
  const char *requested = std::getenv("LLMC_HOST_ISA");
  if (!requested || !*requested)
    return best;
  for (Isa isa : kIsas)
    if (std::strcmp(requested, getIsaName(isa)) == 0)
      return clampIsa(isa);
  return best; // An unknown name asks for nothing.
}

const char *getIsaName(Isa isa) {
  switch (isa) {
  case Isa::Scalar:
    return "scalar";
  case Isa::Avx2:
    return "avx2";
  case Isa::Avx512:
    return "avx512";
  case Isa::Avx512Vnni:
    return "avx512vnni";
  case Isa::Neon:
    return "neon";
  }
  return "unknown";
}

/// The integer in a one-line /sys file, or -1.
static long readSysNumber(const std::string &path) {
  std::ifstream file(path);
  long value = -1;
  if (!(file >> value))
    return -1;
  return value;
}

unsigned getPhysicalCoreCount() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
    return 1;
  unsigned cpus = 0;
  std::set<std::pair<long, long>> cores;
  bool topology = true;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed))
      continue;
    ++cpus;
    std::string base =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    long package = readSysNumber(base + "physical_package_id");
    long core = readSysNumber(base + "core_id");
    if (package < 0 || core < 0)
      topology = false;
    cores.insert({package, core});
  }
  unsigned count = topology ? static_cast<unsigned>(cores.size()) : cpus;
  return count ? count : 1;
}

} // namespace llmc::host
