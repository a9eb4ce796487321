//===- CpuFeaturesTest.cpp - feature probing and Isa selection ------------===//

#include "backends/host/kernels/CpuFeatures.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <sched.h>
#include <thread>

namespace llmc::host {
namespace {

TEST(CpuFeaturesTest, DescribeListsPresentFeatures) {
  const CpuFeatures &f = CpuFeatures::host();
  std::string text = f.describe();
  EXPECT_EQ(text.find("avx2") != std::string::npos, f.avx2);
  EXPECT_EQ(text.find("avx512f") != std::string::npos, f.avx512f);
  // AVX-512 sub-features imply the foundation.
  if (f.avx512bw || f.avx512vl || f.avx512bf16) {
    EXPECT_TRUE(f.avx512f);
  }
  CpuFeatures none;
  EXPECT_EQ(none.describe(), "");
}

TEST(CpuFeaturesTest, EnvironmentLowersTheIsa) {
  const char *saved = std::getenv("LLMC_HOST_ISA");
  std::string restore = saved ? saved : "";
  unsetenv("LLMC_HOST_ISA");
  Isa best = selectIsa();
  EXPECT_TRUE(isIsaSupported(best));
  EXPECT_EQ(clampIsa(Isa::Avx512Vnni), best);
  setenv("LLMC_HOST_ISA", "scalar", 1);
  EXPECT_EQ(selectIsa(), Isa::Scalar);
  // Each path of this architecture, never raised above the host's.
  bool aboveBest = false;
  for (Isa isa : kIsas) {
    setenv("LLMC_HOST_ISA", getIsaName(isa), 1);
    EXPECT_EQ(selectIsa(), aboveBest ? best : isa) << getIsaName(isa);
    aboveBest = aboveBest || isa == best;
  }
  // Another architecture's path, or an unknown one, asks for nothing.
#if defined(__aarch64__)
  setenv("LLMC_HOST_ISA", "avx2", 1);
#else
  setenv("LLMC_HOST_ISA", "neon", 1);
#endif
  EXPECT_EQ(selectIsa(), best);
  setenv("LLMC_HOST_ISA", "bogus", 1);
  EXPECT_EQ(selectIsa(), best);
  if (saved)
    setenv("LLMC_HOST_ISA", restore.c_str(), 1);
  else
    unsetenv("LLMC_HOST_ISA");
  EXPECT_STREQ(getIsaName(Isa::Avx2), "avx2");
  EXPECT_STREQ(getIsaName(Isa::Avx512Vnni), "avx512vnni");
  EXPECT_STREQ(getIsaName(Isa::Neon), "neon");
}

TEST(CpuFeaturesTest, PhysicalCoresAreAtMostTheAllowedCpus) {
  unsigned cores = getPhysicalCoreCount();
  EXPECT_GE(cores, 1u);
  EXPECT_LE(cores, std::thread::hardware_concurrency());
  // Restricted to one CPU, the process has one core whatever the machine.
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  int first = 0;
  while (!CPU_ISSET(first, &saved))
    ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  EXPECT_EQ(getPhysicalCoreCount(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
}

} // namespace
} // namespace llmc::host
