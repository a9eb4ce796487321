//===- TrapTest.cpp - the cmodel stops every stream that would misbehave --===//
//
// Local-memory overflow, out-of-bounds access and missing synchronisation
// (the done-when of the cmodel), and the other traps: each test builds the
// smallest stream that commits the fault, checks the trap's kind and that
// its message names the command, and where it makes sense shows that the
// corrected stream runs.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

namespace llmc::cmodel {
namespace {

using test::Harness;

/// Expects `h`'s stream to trap with `kind` and a message containing each
/// of `fragments`.
void expectTrap(Harness &h, TrapKind kind,
                std::initializer_list<const char *> fragments) {
  std::string message;
  EXPECT_EQ(test::getTrapKind(h.run().status(), &message), kind)
      << getTrapKindName(kind) << " expected; got: " << message;
  for (const char *fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "'" << fragment << "' not in: " << message;
}

std::vector<float> zeros(size_t count) { return std::vector<float>(count, 0); }

//===----------------------------------------------------------------------===//
// Local-memory overflow, lanes, alignment
//===----------------------------------------------------------------------===//

TEST(TrapTest, LocalMemoryOverflow) {
  // 64 rows of 512 bytes on one lane: 32 KiB of a 16 KiB lane.
  Harness h(test::getSmallChip());
  h.load(h.put(cmd::DTYPE_F32, 64, 128, zeros(64 * 128)),
         localTensor(0, 1, 0, 64, 128, cmd::DTYPE_F32));
  expectTrap(h, TrapKind::LocalOverflow,
             {"command 1 (dma #0, LOAD)", "[0, 32768)", "16384"});
}

TEST(TrapTest, LocalMemoryOverflowAtTheEnd) {
  // Fits in size, but starts too late: two 64-byte rows from 16320.
  Harness h(test::getSmallChip());
  cmd::LocalTensor x = localTensor(0, 4, 0, 8, 16, cmd::DTYPE_F32);
  uint32_t load = h.load(h.put(cmd::DTYPE_F32, 8, 16, zeros(128)), x);
  cmd::LocalTensor y = localTensor(0, 4, 16320, 8, 16, cmd::DTYPE_F32);
  h.getBuilder().unary(cmd::SILU, x, y, {load});
  expectTrap(h, TrapKind::LocalOverflow,
             {"command 2 (compute #0, SILU)", "output 0", "[16320, 16448)"});
}

TEST(TrapTest, LanesBeyondTheChip) {
  Harness h(test::getSmallChip());
  h.load(h.put(cmd::DTYPE_F32, 8, 16, zeros(128)),
         localTensor(2, 3, 0, 8, 16, cmd::DTYPE_F32));
  expectTrap(h, TrapKind::LaneRange, {"lanes [2, 5)", "4 lanes"});
}

TEST(TrapTest, MisalignedAddressAndStride) {
  for (auto [address, stride] : {std::pair(32, 64), std::pair(0, 96)}) {
    Harness h(test::getSmallChip());
    h.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)),
           localTensor(0, 1, address, 4, 16, cmd::DTYPE_F32, cmd::LAYOUT_ROWS,
                       0, stride));
    expectTrap(h, TrapKind::Misaligned, {"multiples of the 64 EU bytes"});
  }
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

TEST(TrapTest, LoadBeyondItsRegion) {
  Harness h(test::getSmallChip(), 2, /*ioBytes=*/4096);
  // 4 rows of 1 KiB from offset 1024: the last row ends at 5120.
  h.load(globalTensor(cmd::REGION_IO, 1024, 4, 256, cmd::DTYPE_F32),
         localTensor(0, 4, 0, 4, 256, cmd::DTYPE_F32));
  expectTrap(
      h, TrapKind::OutOfBounds,
      {"command 1 (dma #0, LOAD)", "[1024, 5120)", "region io", "4096 bytes"});
}

TEST(TrapTest, StridedStoreBeyondItsRegion) {
  Harness h(test::getSmallChip(), 2, /*ioBytes=*/4096);
  cmd::LocalTensor x = h.local(cmd::DTYPE_F16, 4, 32, cmd::LAYOUT_ROWS, 0, 4);
  uint32_t load = h.load(h.put(cmd::DTYPE_F16, 4, 32, zeros(128)), x);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F16, 4, 32, cmd::LAYOUT_ROWS, 0, 4);
  uint32_t copy = h.getBuilder().unary(cmd::COPY, x, y, {load});
  // Rows 1 KiB apart from 1024: the fourth starts at 4096, the end.
  h.getBuilder().store(
      y, globalTensor(cmd::REGION_IO, 1024, 4, 32, cmd::DTYPE_F16, 1024),
      {copy});
  expectTrap(h, TrapKind::OutOfBounds,
             {"command 3 (dma #1, STORE)", "[1024, 4160)"});
}

TEST(TrapTest, UnallocatedRegion) {
  Harness h(test::getSmallChip());
  h.load(globalTensor(cmd::REGION_COEFF, 0, 1, 16, cmd::DTYPE_F32),
         localTensor(0, 1, 0, 1, 16, cmd::DTYPE_F32));
  expectTrap(h, TrapKind::OutOfBounds, {"region coeff", "0 bytes"});
}

TEST(TrapTest, StoreIntoReadOnlyWeights) {
  Harness h(test::getSmallChip());
  std::vector<uint8_t> weights(4096);
  h.getModel().global().attachReadOnly(cmd::REGION_COEFF, weights);
  cmd::LocalTensor x = localTensor(0, 1, 0, 1, 16, cmd::DTYPE_F32);
  uint32_t load =
      h.load(globalTensor(cmd::REGION_COEFF, 0, 1, 16, cmd::DTYPE_F32), x);
  cmd::LocalTensor y = localTensor(0, 1, 64, 1, 16, cmd::DTYPE_F32);
  uint32_t copy = h.getBuilder().unary(cmd::COPY, x, y, {load});
  h.getBuilder().store(
      y, globalTensor(cmd::REGION_COEFF, 64, 1, 16, cmd::DTYPE_F32), {copy});
  expectTrap(h, TrapKind::ReadOnly, {"read-only region coeff"});
}

//===----------------------------------------------------------------------===//
// Missing synchronisation
//===----------------------------------------------------------------------===//

/// Loads a tile and runs SILU on it, waiting for the load or not.
void loadThenCompute(bool wait) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor x = h.local(cmd::DTYPE_F16, 8, 32, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F16, 8, 32, cmd::LAYOUT_ROWS, 0, 4);
  uint32_t load = h.load(h.put(cmd::DTYPE_F16, 8, 32, zeros(256)), x);
  std::vector<uint32_t> waits;
  if (wait)
    waits.push_back(load);
  h.getBuilder().unary(cmd::SILU, x, y, waits);
  if (wait) {
    LLMC_ASSERT_RUN(h, stats);
    EXPECT_EQ(stats.computeCommands, 1u);
    return;
  }
  expectTrap(h, TrapKind::MissingSync,
             {"command 2 (compute #0, SILU) reads local bytes",
              "last written by command 1 (dma #0, LOAD)", "does not wait for"});
}

TEST(TrapTest, ComputeReadingALoadItDoesNotWaitFor) { loadThenCompute(false); }
TEST(TrapTest, ComputeWaitingForItsLoadRuns) { loadThenCompute(true); }

/// A double-buffer mistake: the second load overwrites the tile the
/// compute still reads, unless it waits for the compute.
void loadOverwritingAReadTile(bool wait) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor tile =
      h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor out = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  StreamBuilder &b = h.getBuilder();
  uint32_t first = b.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), tile);
  uint32_t use = b.unary(cmd::RELU, tile, out, {first});
  std::vector<uint32_t> waits;
  if (wait)
    waits.push_back(use);
  b.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), tile, waits);
  if (wait) {
    LLMC_ASSERT_RUN(h, stats);
    return;
  }
  // Which of the two detects the race depends on the modelled timing; the
  // message names both.
  expectTrap(h, TrapKind::MissingSync,
             {"command 3 (dma #1, LOAD)", "command 2 (compute #0, RELU)",
              "does not wait for"});
}

TEST(TrapTest, LoadOverwritingATileStillRead) {
  loadOverwritingAReadTile(false);
}
TEST(TrapTest, LoadWaitingForTheReaderRuns) { loadOverwritingAReadTile(true); }

TEST(TrapTest, StoreOfAResultItDoesNotWaitFor) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor x = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  uint32_t load = h.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), x);
  h.getBuilder().unary(cmd::RELU, x, y, {load});
  h.getBuilder().store(y, h.reserve(cmd::DTYPE_F32, 4, 16));
  // The store runs (in modelled time) before the RELU writes: a read of
  // unwritten memory, reported as the race it is.
  expectTrap(h, TrapKind::MissingSync,
             {"command 3 (dma #1, STORE) reads",
              "which command 2 (compute #0, RELU) writes"});
}

/// Ordering through a chain: C2 follows C1 on its queue and C1 waited for
/// the load of A, so C2 may read A without waiting itself; but the DMA that
/// reloads A must wait for C2, the last reader, not just for C1.
void transitiveOrder(bool waitForLastReader) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor a = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor b1 = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor b2 = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  StreamBuilder &b = h.getBuilder();
  uint32_t loadA = b.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), a);
  uint32_t c1 = b.unary(cmd::RELU, a, b1, {loadA});
  uint32_t c2 = b.unary(cmd::SILU, a, b2);
  b.store(b1, h.reserve(cmd::DTYPE_F32, 4, 16), {c1});
  b.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), a,
         {waitForLastReader ? c2 : c1});
  if (waitForLastReader) {
    LLMC_ASSERT_RUN(h, stats);
    return;
  }
  expectTrap(h, TrapKind::MissingSync,
             {"command 5 (dma #2, LOAD) writes",
              "command 3 (compute #1, SILU) reads"});
}

TEST(TrapTest, WaitsOrderTransitively) { transitiveOrder(true); }
TEST(TrapTest, AnEarlierReaderDoesNotCoverALaterOne) { transitiveOrder(false); }

TEST(TrapTest, ReadOfLocalMemoryNothingWrote) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor x = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  h.getBuilder().unary(cmd::RELU, x, y);
  expectTrap(h, TrapKind::UninitializedRead,
             {"command 1 (compute #0, RELU) reads", "no command wrote"});
}

//===----------------------------------------------------------------------===//
// The stream itself
//===----------------------------------------------------------------------===//

TEST(TrapTest, CircularWaitsAreADeadlockNotAHang) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor x = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  StreamBuilder &b = h.getBuilder();
  // Load 1 waits for compute 2, which waits for load 1.
  b.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), x, {2});
  b.unary(cmd::RELU, x, y, {1});
  expectTrap(h, TrapKind::Deadlock,
             {"command 1 (dma #0, LOAD) waits for command 2",
              "command 2 (compute #0, RELU) waits for command 1"});
}

TEST(TrapTest, DeadlockThroughQueueOrder) {
  // C1 waits for D2; D2 waits for C2, which queue order puts after C1.
  Harness h(test::getSmallChip());
  cmd::LocalTensor x = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  StreamBuilder &b = h.getBuilder();
  uint32_t d1 = b.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), x); // id 1
  b.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), x, {4});          // id 2
  b.unary(cmd::RELU, x, y, {d1, 2});                                // id 3
  b.unary(cmd::RELU, x, y);                                         // id 4
  expectTrap(h, TrapKind::Deadlock, {"no queue can start"});
}

TEST(TrapTest, MalformedStreams) {
  auto base = [] {
    StreamBuilder b("bad");
    cmd::LocalTensor x = localTensor(0, 1, 0, 1, 16, cmd::DTYPE_F32);
    cmd::LocalTensor y = localTensor(0, 1, 64, 1, 16, cmd::DTYPE_F32);
    b.load(globalTensor(cmd::REGION_IO, 0, 1, 16, cmd::DTYPE_F32), x);
    b.unary(cmd::RELU, x, y, {1});
    return b.take();
  };
  struct Case {
    const char *what;
    std::function<void(cmd::CommandStream &)> spoil;
  } cases[] = {
      {"waits for unknown id 9",
       [](cmd::CommandStream &s) { s.mutable_compute_queue(0)->add_waits(9); }},
      {"on its own queue",
       [](cmd::CommandStream &s) { s.mutable_compute_queue(0)->add_waits(2); }},
      {"reuses the id",
       [](cmd::CommandStream &s) { s.mutable_compute_queue(0)->set_id(1); }},
      {"is not a dma command",
       [](cmd::CommandStream &s) {
         *s.add_dma_queue() = s.compute_queue(0);
         s.mutable_dma_queue(1)->set_id(7);
       }},
      {"this cmodel runs versions 1 and 2",
       [](cmd::CommandStream &s) { s.set_version(3); }},
      {"has version 2 but queues outside its sections",
       [](cmd::CommandStream &s) { s.set_version(2); }},
  };
  for (const Case &c : cases) {
    CModel model(test::getSmallChip());
    model.global().allocate(cmd::REGION_IO, 1024);
    cmd::CommandStream stream = base();
    c.spoil(stream);
    std::string message;
    EXPECT_EQ(test::getTrapKind(model.run(stream).status(), &message),
              TrapKind::BadStream);
    EXPECT_NE(message.find(c.what), std::string::npos) << message;
  }
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

TEST(TrapTest, OutputOverlappingAnInput) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor x =
      h.local(cmd::DTYPE_F32, 2, 16, cmd::LAYOUT_REPLICATED, 0, 2);
  cmd::LocalTensor w = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 2);
  cmd::LocalTensor y = localTensor(0, 2, x.address() + 64, 2, 4, cmd::DTYPE_F32,
                                   cmd::LAYOUT_COLS);
  uint32_t lx = h.load(h.put(cmd::DTYPE_F32, 2, 16, zeros(32)), x);
  uint32_t lw = h.load(h.put(cmd::DTYPE_F32, 4, 16, zeros(64)), w);
  h.getBuilder().matMul(x, w, y, {lx, lw});
  expectTrap(h, TrapKind::Overlap, {"output 0", "overlaps input 0"});
}

TEST(TrapTest, MixedTypes) {
  Harness h(test::getSmallChip());
  cmd::LocalTensor a = h.local(cmd::DTYPE_F16, 2, 16, cmd::LAYOUT_ROWS, 0, 2);
  cmd::LocalTensor b = h.local(cmd::DTYPE_BF16, 2, 16, cmd::LAYOUT_ROWS, 0, 2);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F16, 2, 16, cmd::LAYOUT_ROWS, 0, 2);
  h.getBuilder().binary(cmd::ADD, a, b, y);
  expectTrap(h, TrapKind::DTypeMismatch, {"command 1 (compute #0, ADD)"});
}

TEST(TrapTest, LaneMissingWhatItsOutputNeeds) {
  // x split by rows cannot feed a matmul whose lanes each need all of x.
  Harness h(test::getSmallChip());
  cmd::LocalTensor x = h.local(cmd::DTYPE_F32, 4, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor w = h.local(cmd::DTYPE_F32, 8, 16, cmd::LAYOUT_ROWS, 0, 4);
  cmd::LocalTensor y = h.local(cmd::DTYPE_F32, 4, 8, cmd::LAYOUT_COLS, 0, 4);
  h.getBuilder().matMul(x, w, y);
  expectTrap(h, TrapKind::BadOperand,
             {"lane 0 needs rows [0, 4) x cols [0, 16) of input 0"});
}

TEST(TrapTest, TypeTheChipCannotCompute) {
  plugins::ChipDescriptor chip = test::getSmallChip();
  chip.bf16Tflops = 0;
  Harness h(chip);
  cmd::LocalTensor x =
      h.local(cmd::DTYPE_BF16, 1, 16, cmd::LAYOUT_REPLICATED, 0, 2);
  cmd::LocalTensor w = h.local(cmd::DTYPE_BF16, 4, 16, cmd::LAYOUT_ROWS, 0, 2);
  cmd::LocalTensor y = h.local(cmd::DTYPE_BF16, 1, 4, cmd::LAYOUT_COLS, 0, 2);
  uint32_t lx = h.load(h.put(cmd::DTYPE_BF16, 1, 16, zeros(16)), x);
  uint32_t lw = h.load(h.put(cmd::DTYPE_BF16, 4, 16, zeros(64)), w);
  h.getBuilder().matMul(x, w, y, {lx, lw});
  expectTrap(h, TrapKind::Unsupported, {"no bf16 throughput for MATMUL"});
}

} // namespace
} // namespace llmc::cmodel
