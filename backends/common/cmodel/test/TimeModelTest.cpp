//===- TimeModelTest.cpp - modelled cycles against the chip's figures -----===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>

namespace llmc::cmodel {
namespace {

using test::Harness;

TEST(TimeModelTest, Bm1684xRates) {
  plugins::ChipDescriptor chip = test::getBm1684xLikeChip();
  TimeModel time(chip);
  EXPECT_DOUBLE_EQ(time.getDdrBytesPerCycle(), 64.0); // 64 GB/s at 1 GHz.
  EXPECT_EQ(time.getDmaLatencyCycles(), 250u);        // 250 ns.
  // 16 TFLOPS = 8 T MAC/s over 1 G cycles and 64 lanes.
  EXPECT_DOUBLE_EQ(time.getMacsPerCycle(cmd::DTYPE_F16), 125.0);
  EXPECT_DOUBLE_EQ(time.getMacsPerCycle(cmd::DTYPE_BF16), 125.0);
  EXPECT_DOUBLE_EQ(time.getMacsPerCycle(cmd::DTYPE_F32), 15.625);
  EXPECT_DOUBLE_EQ(time.getVectorElementsPerCycle(cmd::DTYPE_F16), 32.0);
  EXPECT_DOUBLE_EQ(time.getVectorElementsPerCycle(cmd::DTYPE_F32), 16.0);
}

TEST(TimeModelTest, DmaBoundStreamTakesBytesOverBandwidth) {
  // 64 loads of 64 KiB into every lane's half of local memory, with nothing
  // to wait for: the time is the bytes over 64 GB/s plus the latencies.
  Harness h(test::getBm1684xLikeChip(), 2, 32 << 20);
  int64_t rows = 64, cols = 32 * 1024; // f16: 64 rows of 64 KiB.
  cmd::GlobalTensor source = h.reserve(cmd::DTYPE_F16, rows, cols);
  uint64_t bytes = 0;
  for (int i = 0; i < 64; ++i) {
    // Alternate two buffers of 64 KiB per lane.
    h.getBuilder().load(source,
                        localTensor(0, 64, (i % 2) * 65536, rows, cols,
                                    cmd::DTYPE_F16, cmd::LAYOUT_ROWS, 1));
    bytes += rows * cols * 2;
  }
  LLMC_ASSERT_RUN(h, stats);
  double seconds = double(bytes) / 64e9;
  EXPECT_NEAR(stats.seconds, seconds, seconds * 0.01);
  EXPECT_EQ(stats.totalCycles, 64 * (250 + bytes / 64 / 64));
  EXPECT_EQ(stats.dmaCycles, stats.totalCycles);
  EXPECT_EQ(stats.computeCycles, 0u);
  EXPECT_EQ(stats.bytesLoaded, bytes);
  EXPECT_EQ(stats.ddrBytes, bytes);
}

TEST(TimeModelTest, StridedRowsMoveWholeBursts) {
  // 16 rows of 32 bytes out of 4 KiB rows: each costs a 64-byte burst.
  Harness h(test::getBm1684xLikeChip());
  cmd::GlobalTensor narrow =
      globalTensor(cmd::REGION_IO, 0, 16, 16, cmd::DTYPE_F16, 4096);
  h.getBuilder().load(narrow, localTensor(0, 16, 0, 16, 16, cmd::DTYPE_F16));
  LLMC_ASSERT_RUN(h, stats);
  EXPECT_EQ(stats.ddrBytes, 16u * 64);
  EXPECT_EQ(stats.bytesLoaded, 16u * 32);
  EXPECT_EQ(stats.totalCycles, 250u + 16);
}

TEST(TimeModelTest, GatherReadsOnlyThePickedRows) {
  // 4 rows of 256 bytes picked out of a 1000-row table, plus 16 bytes of
  // indices: the table's size does not matter.
  Harness h(test::getBm1684xLikeChip());
  cmd::GlobalTensor table =
      globalTensor(cmd::REGION_IO, 0, 1000, 64, cmd::DTYPE_F32);
  cmd::GlobalTensor index =
      globalTensor(cmd::REGION_IO, 256000, 1, 4, cmd::DTYPE_I32);
  h.getBuilder().gather(table, index,
                        localTensor(0, 4, 0, 4, 64, cmd::DTYPE_F32));
  LLMC_ASSERT_RUN(h, stats);
  EXPECT_EQ(stats.ddrBytes, 4u * 256 + 16);
  EXPECT_EQ(stats.totalCycles, 250u + 17);
}

TEST(TimeModelTest, MatMulCyclesFollowThePeak) {
  // Per lane 16 x 64 outputs of K = 1024: 1 Mi MACs at 125 per cycle.
  Harness h(test::getBm1684xLikeChip(), 2, 16 << 20);
  int64_t m = 16, n = 64 * 64, k = 1024;
  cmd::LocalTensor x =
      h.local(cmd::DTYPE_F16, m, k, cmd::LAYOUT_REPLICATED, 0, 64);
  cmd::LocalTensor w = h.local(cmd::DTYPE_F16, n, k, cmd::LAYOUT_ROWS, 0, 64);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F16, m, n, cmd::LAYOUT_COLS, 0, 64);
  StreamBuilder &b = h.getBuilder();
  uint32_t lx = b.load(h.reserve(cmd::DTYPE_F16, m, k), x);
  uint32_t lw = b.load(h.reserve(cmd::DTYPE_F16, n, k), w);
  b.matMul(x, w, y, {lx, lw});
  LLMC_ASSERT_RUN(h, stats);
  uint64_t macsPerLane = uint64_t(m) * 64 * k;
  uint64_t matmul = 32 + (macsPerLane + 124) / 125;
  EXPECT_EQ(stats.computeCycles, matmul);
  EXPECT_EQ(stats.macs, macsPerLane * 64);
  // The matmul starts when the later load ends.
  EXPECT_EQ(stats.totalCycles, stats.dmaCycles + matmul);
}

TEST(TimeModelTest, QueuesOverlap) {
  // Loads of the next tile while the current one computes (double
  // buffering): the run takes about the longer queue, not their sum.
  Harness h(test::getBm1684xLikeChip());
  int64_t rows = 64, cols = 4096;
  StreamBuilder &b = h.getBuilder();
  cmd::GlobalTensor source = h.reserve(cmd::DTYPE_F16, rows, cols);
  cmd::LocalTensor tiles[2] = {
      localTensor(0, 64, 0, rows, cols, cmd::DTYPE_F16),
      localTensor(0, 64, 8192, rows, cols, cmd::DTYPE_F16)};
  cmd::LocalTensor outs[2] = {
      localTensor(0, 64, 16384, rows, cols, cmd::DTYPE_F16),
      localTensor(0, 64, 24576, rows, cols, cmd::DTYPE_F16)};
  std::vector<uint32_t> computes;
  for (int i = 0; i < 16; ++i) {
    std::vector<uint32_t> waits;
    if (i >= 2)
      waits.push_back(computes[i - 2]); // The tile's previous reader.
    uint32_t load = b.load(source, tiles[i % 2], waits);
    cmd::Compute gelu = makeCompute(cmd::GELU, {tiles[i % 2]}, {outs[i % 2]});
    computes.push_back(b.compute(gelu, {load}));
  }
  LLMC_ASSERT_RUN(h, stats);
  uint64_t longer = std::max(stats.dmaCycles, stats.computeCycles);
  EXPECT_LT(stats.totalCycles, stats.dmaCycles + stats.computeCycles);
  EXPECT_LE(stats.totalCycles, longer * 11 / 10);
  EXPECT_GE(stats.totalCycles, longer);
}

} // namespace
} // namespace llmc::cmodel
