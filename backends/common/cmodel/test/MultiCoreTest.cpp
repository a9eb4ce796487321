//===- MultiCoreTest.cpp - version 2 streams: sections of several cores ---===//
//
// A projection split by output columns across two cores gives the bits one
// core gives; each core has its own local memory; a section's modelled
// time is its slowest core's, at least its DDR bytes over the shared
// bandwidth, plus the barrier; malformed sections trap.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

namespace llmc::cmodel {
namespace {

using test::Harness;

constexpr int64_t kM = 3, kK = 40, kN = 24;

/// The small chip with two cores.
plugins::ChipDescriptor getTwoCoreChip() {
  plugins::ChipDescriptor chip = test::getSmallChip();
  chip.id = "two_cores";
  chip.cores = 2;
  return chip;
}

/// One core's queues: columns [n0, n0 + count) of y = x w^T, over 4 lanes.
cmd::CoreCommands projectColumns(const cmd::GlobalTensor &x,
                                 const cmd::GlobalTensor &w,
                                 const cmd::GlobalTensor &y, int64_t n0,
                                 int64_t count) {
  StreamBuilder b("core");
  cmd::LocalTensor xl =
      localTensor(0, 4, 0, kM, kK, cmd::DTYPE_F32, cmd::LAYOUT_REPLICATED);
  cmd::LocalTensor wl =
      localTensor(0, 4, 1024, count, kK, cmd::DTYPE_F32, cmd::LAYOUT_ROWS);
  cmd::LocalTensor yl =
      localTensor(0, 4, 4096, kM, count, cmd::DTYPE_F32, cmd::LAYOUT_COLS);
  cmd::GlobalTensor wPart = w;
  wPart.set_offset(w.offset() + n0 * kK * 4);
  wPart.set_rows(count);
  cmd::GlobalTensor yPart = y;
  yPart.set_offset(y.offset() + n0 * 4);
  yPart.set_cols(count);
  yPart.set_row_stride_bytes(kN * 4);
  uint32_t lx = b.load(x, xl);
  uint32_t lw = b.load(wPart, wl);
  uint32_t product = b.matMul(xl, wl, yl, {lx, lw});
  b.store(yl, yPart, {product});
  cmd::CommandStream stream = b.take();
  cmd::CoreCommands core;
  core.mutable_dma_queue()->Swap(stream.mutable_dma_queue());
  core.mutable_compute_queue()->Swap(stream.mutable_compute_queue());
  return core;
}

cmd::CommandStream sections(std::vector<std::vector<cmd::CoreCommands>> all) {
  cmd::CommandStream stream;
  stream.set_version(2);
  stream.set_name("split");
  for (std::vector<cmd::CoreCommands> &cores : all) {
    cmd::Section *section = stream.add_sections();
    for (cmd::CoreCommands &core : cores)
      *section->add_cores() = std::move(core);
  }
  return stream;
}

class MultiCoreTest : public ::testing::Test {
protected:
  MultiCoreTest() : h(getTwoCoreChip()) {
    x = h.put(cmd::DTYPE_F32, kM, kK, test::randomValues(kM * kK, 1));
    w = h.put(cmd::DTYPE_F32, kN, kK, test::randomValues(kN * kK, 2));
  }

  std::vector<float> run(const cmd::CommandStream &stream,
                         const cmd::GlobalTensor &y) {
    absl::StatusOr<RunStats> result = h.getModel().run(stream);
    if (!result.ok()) {
      ADD_FAILURE() << result.status().message();
      return {};
    }
    stats = *result;
    return h.get(y);
  }

  Harness h;
  cmd::GlobalTensor x, w;
  RunStats stats;
};

TEST_F(MultiCoreTest, SplitProjectionGivesTheOneCoreBits) {
  cmd::GlobalTensor whole = h.reserve(cmd::DTYPE_F32, kM, kN);
  std::vector<float> one =
      run(sections({{projectColumns(x, w, whole, 0, kN)}}), whole);
  RunStats oneCore = stats;
  cmd::GlobalTensor split = h.reserve(cmd::DTYPE_F32, kM, kN);
  std::vector<float> two =
      run(sections({{projectColumns(x, w, split, 0, 16),
                     projectColumns(x, w, split, 16, kN - 16)}}),
          split);
  ASSERT_EQ(one.size(), size_t(kM * kN));
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * 4));
  EXPECT_EQ(stats.macs, oneCore.macs);
  EXPECT_EQ(stats.dmaCommands, 2 * oneCore.dmaCommands);
}

TEST_F(MultiCoreTest, SectionTimeIsTheSlowestCorePlusTheBarrier) {
  cmd::GlobalTensor y = h.reserve(cmd::DTYPE_F32, kM, kN);
  TimeModel time(getTwoCoreChip());
  auto coreCycles = [&](int64_t count) {
    run(sections({{projectColumns(x, w, y, 0, count)}}), y);
    return stats.totalCycles;
  };
  uint64_t big = coreCycles(16), small = coreCycles(8);
  run(sections(
          {{projectColumns(x, w, y, 0, 16), projectColumns(x, w, y, 16, 8)}}),
      y);
  EXPECT_EQ(stats.syncCycles, time.getCoreSyncCycles());
  EXPECT_EQ(stats.totalCycles, std::max(big, small) + stats.syncCycles);
  // Sections run one after another.
  run(sections(
          {{projectColumns(x, w, y, 0, 16)}, {projectColumns(x, w, y, 16, 8)}}),
      y);
  EXPECT_EQ(stats.totalCycles, big + small);
  EXPECT_EQ(stats.syncCycles, 0u);
}

TEST_F(MultiCoreTest, CoresShareTheDdrBandwidth) {
  // Two cores each loading 8 KiB per lane, with nothing else to do: no
  // faster than all the bytes over the chip's bandwidth.
  Harness big(getTwoCoreChip(), 2, 1 << 20);
  cmd::GlobalTensor source = big.reserve(cmd::DTYPE_F32, 4, 2048);
  auto loads = [&] {
    StreamBuilder b("core");
    b.load(source, localTensor(0, 4, 0, 4, 2048, cmd::DTYPE_F32));
    cmd::CommandStream stream = b.take();
    cmd::CoreCommands core;
    core.mutable_dma_queue()->Swap(stream.mutable_dma_queue());
    return core;
  };
  absl::StatusOr<RunStats> result =
      big.getModel().run(sections({{loads(), loads()}}));
  ASSERT_TRUE(result.ok()) << result.status().message();
  TimeModel time(getTwoCoreChip());
  uint64_t shared = uint64_t(2 * 4 * 2048 * 4 / time.getDdrBytesPerCycle());
  EXPECT_EQ(result->ddrBytes, 2u * 4 * 2048 * 4);
  EXPECT_EQ(result->totalCycles, shared + time.getCoreSyncCycles());
}

TEST_F(MultiCoreTest, EachCoreHasItsOwnLocalMemory) {
  // Core 0 loads x; core 1 computes from the same address without loading.
  StreamBuilder first("core0");
  cmd::LocalTensor xl =
      localTensor(0, 4, 0, kM, kK, cmd::DTYPE_F32, cmd::LAYOUT_REPLICATED);
  first.load(x, xl);
  StreamBuilder second("core1");
  second.unary(
      cmd::RELU, xl,
      localTensor(0, 4, 1024, kM, kK, cmd::DTYPE_F32, cmd::LAYOUT_REPLICATED));
  auto core = [](StreamBuilder &b) {
    cmd::CommandStream stream = b.take();
    cmd::CoreCommands commands;
    commands.mutable_dma_queue()->Swap(stream.mutable_dma_queue());
    commands.mutable_compute_queue()->Swap(stream.mutable_compute_queue());
    return commands;
  };
  std::string message;
  EXPECT_EQ(
      test::getTrapKind(
          h.getModel().run(sections({{core(first), core(second)}})).status(),
          &message),
      TrapKind::UninitializedRead);
  EXPECT_NE(message.find("section 0, core 1: "), std::string::npos) << message;
}

TEST_F(MultiCoreTest, MalformedSectionsTrap) {
  cmd::GlobalTensor y = h.reserve(cmd::DTYPE_F32, kM, kN);
  auto trap = [&](const cmd::CommandStream &stream) {
    std::string message;
    absl::StatusOr<RunStats> result = h.getModel().run(stream);
    EXPECT_EQ(test::getTrapKind(result.status(), &message),
              TrapKind::BadStream);
    return message;
  };
  cmd::CommandStream three =
      sections({{projectColumns(x, w, y, 0, 8), projectColumns(x, w, y, 8, 8),
                 projectColumns(x, w, y, 16, 8)}});
  EXPECT_EQ(trap(three), "section 0 of stream 'split' has 3 cores; two_cores "
                         "has 2");
  cmd::CommandStream old = sections({{projectColumns(x, w, y, 0, kN)}});
  old.set_version(1);
  EXPECT_EQ(trap(old), "stream 'split' has sections, which need version 2");
  cmd::CommandStream mixed = old;
  mixed.set_version(2);
  *mixed.add_dma_queue() = mixed.sections(0).cores(0).dma_queue(0);
  EXPECT_EQ(trap(mixed),
            "stream 'split' has version 2 but queues outside its sections");
  mixed.set_version(3);
  EXPECT_EQ(trap(mixed),
            "stream 'split' has version 3; this cmodel runs versions 1 and 2");
}

} // namespace
} // namespace llmc::cmodel
