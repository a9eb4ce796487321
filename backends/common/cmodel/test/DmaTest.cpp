//===- DmaTest.cpp - LOAD, STORE, GATHER and SCATTER over every layout ---===//

#include "backends/common/cmodel/test/TestSupport.h"

#include "gtest/gtest.h"

#include <cstring>
#include <numeric>

namespace llmc::cmodel {
namespace {

using test::Harness;

std::vector<float> iota(size_t count, float start = 0) {
  std::vector<float> values(count);
  std::iota(values.begin(), values.end(), start);
  return values;
}

/// Loads [rows, cols] of `type` into `layout`, stores it back and compares.
void roundTrip(cmd::DType type, int64_t rows, int64_t cols, cmd::Layout layout,
               uint32_t lanes, int64_t perLane) {
  SCOPED_TRACE(testing::Message() << getDTypeName(type) << " [" << rows << ", "
                                  << cols << "] layout " << int(layout));
  Harness h(test::getSmallChip());
  // Small integers: exact in every type of the test.
  std::vector<float> values(rows * cols);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(int(i % 200) - 100);
  cmd::GlobalTensor source = h.put(type, rows, cols, values);
  cmd::LocalTensor local = h.local(type, rows, cols, layout, 0, lanes, perLane);
  uint32_t load = h.load(source, local);
  // A compute command that waits for the load lets the store follow it.
  cmd::LocalTensor copy = h.local(type, rows, cols, layout, 0, lanes, perLane);
  uint32_t copied = h.getBuilder().unary(cmd::COPY, local, copy, {load});
  cmd::GlobalTensor result = h.store(copy, copied);
  LLMC_ASSERT_RUN(h, stats);
  EXPECT_EQ(h.get(result), values);
}

TEST(DmaTest, RoundTripsEveryLayout) {
  roundTrip(cmd::DTYPE_F16, 10, 40, cmd::LAYOUT_ROWS, 4, 3);
  roundTrip(cmd::DTYPE_F32, 6, 100, cmd::LAYOUT_COLS, 4, 32);
  roundTrip(cmd::DTYPE_BF16, 5, 7, cmd::LAYOUT_REPLICATED, 3, 0);
  roundTrip(cmd::DTYPE_I8, 9, 33, cmd::LAYOUT_ROWS, 4, 0);
  roundTrip(cmd::DTYPE_I32, 3, 9, cmd::LAYOUT_COLS, 4, 0);
}

TEST(DmaTest, FourBitColumnsSplitEvenly) {
  Harness h(test::getSmallChip());
  std::vector<int32_t> values(3 * 21);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = int32_t(i % 16);
  cmd::GlobalTensor source = h.putInts(cmd::DTYPE_U4, 3, 21, values);
  cmd::LocalTensor local =
      h.local(cmd::DTYPE_U4, 3, 21, cmd::LAYOUT_COLS, 0, 3, 8);
  uint32_t load = h.load(source, local);
  cmd::LocalTensor copy =
      h.local(cmd::DTYPE_U4, 3, 21, cmd::LAYOUT_COLS, 0, 3, 8);
  uint32_t copied = h.getBuilder().unary(cmd::COPY, local, copy, {load});
  cmd::GlobalTensor result = h.store(copy, copied);
  LLMC_ASSERT_RUN(h, stats);
  EXPECT_EQ(h.getInts(result), values);
}

TEST(DmaTest, LanesHoldTheirPartAtTheSameAddress) {
  Harness h(test::getSmallChip());
  cmd::GlobalTensor source = h.put(cmd::DTYPE_F32, 2, 10, iota(20));
  // Columns 4 per lane: lane 2 holds columns 8 and 9 of both rows.
  cmd::LocalTensor local =
      localTensor(0, 3, 128, 2, 10, cmd::DTYPE_F32, cmd::LAYOUT_COLS, 4, 64);
  h.load(source, local);
  LLMC_ASSERT_RUN(h, stats);
  float lane2[4];
  std::memcpy(lane2, h.getModel().local().getLane(2) + 128, 8);
  std::memcpy(lane2 + 2, h.getModel().local().getLane(2) + 128 + 64, 8);
  EXPECT_EQ(std::vector<float>(lane2, lane2 + 4),
            (std::vector<float>{8, 9, 18, 19}));
}

TEST(DmaTest, StridedGlobalTensorsSelectColumns) {
  Harness h(test::getSmallChip());
  cmd::GlobalTensor matrix = h.put(cmd::DTYPE_F16, 8, 64, iota(8 * 64));
  // Columns [16, 32) of every row: a head out of a [L, H * D] matrix.
  cmd::GlobalTensor head = matrix;
  head.set_offset(matrix.offset() + 16 * 2);
  head.set_cols(16);
  head.set_row_stride_bytes(64 * 2);
  cmd::LocalTensor local =
      h.local(cmd::DTYPE_F16, 8, 16, cmd::LAYOUT_ROWS, 0, 4);
  uint32_t load = h.load(head, local);
  cmd::LocalTensor copy =
      h.local(cmd::DTYPE_F16, 8, 16, cmd::LAYOUT_ROWS, 0, 4);
  uint32_t copied = h.getBuilder().unary(cmd::COPY, local, copy, {load});
  cmd::GlobalTensor result = h.store(copy, copied);
  LLMC_ASSERT_RUN(h, stats);
  std::vector<float> expected;
  for (int r = 0; r < 8; ++r)
    for (int c = 16; c < 32; ++c)
      expected.push_back(float(r * 64 + c));
  EXPECT_EQ(h.get(result), expected);
  EXPECT_EQ(stats.bytesLoaded, 8u * 16 * 2);
  EXPECT_EQ(stats.bytesStored, 8u * 16 * 2);
}

TEST(DmaTest, ReplicatedLoadBroadcastsAndStoreTakesTheFirstLane) {
  Harness h(test::getSmallChip());
  cmd::GlobalTensor source = h.put(cmd::DTYPE_F32, 2, 3, iota(6, 1));
  cmd::LocalTensor local =
      h.local(cmd::DTYPE_F32, 2, 3, cmd::LAYOUT_REPLICATED, 0, 4);
  h.load(source, local);
  LLMC_ASSERT_RUN(h, stats);
  for (int lane = 0; lane < 4; ++lane) {
    float row[3];
    std::memcpy(row, h.getModel().local().getLane(lane) + local.address() + 64,
                12);
    EXPECT_EQ(std::vector<float>(row, row + 3), (std::vector<float>{4, 5, 6}));
  }
}

TEST(DmaTest, GatherPicksTableRows) {
  Harness h(test::getSmallChip());
  cmd::GlobalTensor table = h.put(cmd::DTYPE_F16, 10, 16, iota(160));
  cmd::GlobalTensor index = h.putInts(cmd::DTYPE_I32, 1, 4, {7, 0, 9, 7});
  cmd::LocalTensor rows =
      h.local(cmd::DTYPE_F16, 4, 16, cmd::LAYOUT_ROWS, 0, 2);
  uint32_t gathered = h.getBuilder().gather(table, index, rows);
  cmd::LocalTensor copy =
      h.local(cmd::DTYPE_F16, 4, 16, cmd::LAYOUT_ROWS, 0, 2);
  uint32_t copied = h.getBuilder().unary(cmd::COPY, rows, copy, {gathered});
  cmd::GlobalTensor result = h.store(copy, copied);
  LLMC_ASSERT_RUN(h, stats);
  std::vector<float> expected;
  for (int row : {7, 0, 9, 7})
    for (int c = 0; c < 16; ++c)
      expected.push_back(float(row * 16 + c));
  EXPECT_EQ(h.get(result), expected);
}

TEST(DmaTest, GatherTrapsOnAnIndexOutsideTheTable) {
  Harness h(test::getSmallChip());
  cmd::GlobalTensor table = h.put(cmd::DTYPE_F16, 10, 16, iota(160));
  cmd::GlobalTensor index = h.putInts(cmd::DTYPE_I32, 1, 2, {3, 10});
  cmd::LocalTensor rows =
      h.local(cmd::DTYPE_F16, 2, 16, cmd::LAYOUT_ROWS, 0, 2);
  h.getBuilder().gather(table, index, rows);
  std::string message;
  EXPECT_EQ(test::getTrapKind(h.run().status(), &message),
            TrapKind::OutOfBounds);
  EXPECT_NE(message.find("gathered index 10"), std::string::npos) << message;
}

TEST(DmaTest, ScatterWritesTableRowsInOrder) {
  // Rows 7, 0, 9 and 7 again of a [10, 4] table: the later row 7 wins, the
  // others keep their values.
  Harness h(test::getSmallChip());
  cmd::GlobalTensor table = h.put(cmd::DTYPE_F32, 10, 4, iota(40));
  cmd::GlobalTensor index = h.putInts(cmd::DTYPE_I32, 1, 4, {7, 0, 9, 7});
  cmd::LocalTensor rows = h.local(cmd::DTYPE_F32, 4, 4, cmd::LAYOUT_ROWS, 0, 2);
  // The scatter reads what the load wrote: a DMA after a DMA, in order.
  h.load(h.put(cmd::DTYPE_F32, 4, 4, iota(16, 100)), rows);
  h.getBuilder().scatter(rows, index, table);
  LLMC_ASSERT_RUN(h, stats);
  std::vector<float> expected = iota(40);
  for (auto [local, row] : {std::pair{0, 7}, {1, 0}, {2, 9}, {3, 7}})
    for (int c = 0; c < 4; ++c)
      expected[row * 4 + c] = float(100 + local * 4 + c);
  EXPECT_EQ(h.get(table), expected);
  // The load's 64 bytes; the scatter's four rows of 16 bytes, each on its
  // own 64-byte burst, and its indices.
  EXPECT_EQ(stats.ddrBytes, 64u + 4 * 64 + 16);
}

TEST(DmaTest, ScatterTrapsOnAnIndexOutsideTheTable) {
  Harness h(test::getSmallChip());
  cmd::GlobalTensor table = h.put(cmd::DTYPE_F32, 10, 4, iota(40));
  cmd::GlobalTensor index = h.putInts(cmd::DTYPE_I32, 1, 2, {3, -1});
  cmd::LocalTensor rows = h.local(cmd::DTYPE_F32, 2, 4, cmd::LAYOUT_ROWS, 0, 2);
  h.load(h.put(cmd::DTYPE_F32, 2, 4, iota(8)), rows);
  h.getBuilder().scatter(rows, index, table);
  std::string message;
  EXPECT_EQ(test::getTrapKind(h.run().status(), &message),
            TrapKind::OutOfBounds);
  EXPECT_NE(message.find("scattered index -1"), std::string::npos) << message;
}

TEST(DmaTest, TypesMustMatch) {
  Harness h(test::getSmallChip());
  cmd::GlobalTensor source = h.put(cmd::DTYPE_F16, 2, 8, iota(16));
  h.load(source, h.local(cmd::DTYPE_BF16, 2, 8, cmd::LAYOUT_ROWS, 0, 1));
  std::string message;
  EXPECT_EQ(test::getTrapKind(h.run().status(), &message),
            TrapKind::DTypeMismatch);
  EXPECT_NE(message.find("command 1 (dma #0, LOAD)"), std::string::npos)
      << message;
}

} // namespace
} // namespace llmc::cmodel
