//===- HazardTrackerTest.cpp - cross-queue waits for local memory ---------===//

#include "backends/common/codegen/HazardTracker.h"

#include "gtest/gtest.h"

using namespace llmc::codegen;

namespace {

TEST(HazardTrackerTest, ReadAfterWriteWaitsForTheOtherQueue) {
  HazardTracker tracker;
  tracker.record(Queue::Dma, 1, {}, {{0, 128}});
  EXPECT_EQ(tracker.getWait(Queue::Compute, {{64, 96}}, {}), 1u);
  // Bytes nothing wrote need no wait; the own queue is ordered anyway.
  EXPECT_EQ(tracker.getWait(Queue::Compute, {{128, 256}}, {}), std::nullopt);
  EXPECT_EQ(tracker.getWait(Queue::Dma, {{0, 128}}, {}), std::nullopt);
}

TEST(HazardTrackerTest, WriteAfterReadAndWriteAfterWrite) {
  HazardTracker tracker;
  tracker.record(Queue::Dma, 1, {}, {{0, 64}});
  tracker.record(Queue::Compute, 2, {{0, 64}}, {{64, 128}});
  // A refill of [0, 64) waits for the compute reading it.
  EXPECT_EQ(tracker.getWait(Queue::Dma, {}, {{0, 64}}), 2u);
  // Overwriting the compute's output waits for it too.
  EXPECT_EQ(tracker.getWait(Queue::Dma, {}, {{100, 110}}), 2u);
  // Reading the compute's output (a store) waits for it.
  EXPECT_EQ(tracker.getWait(Queue::Dma, {{64, 128}}, {}), 2u);
}

TEST(HazardTrackerTest, TheLatestConflictIsTheOneWaitedFor) {
  HazardTracker tracker;
  tracker.record(Queue::Dma, 1, {}, {{0, 64}});
  tracker.record(Queue::Dma, 3, {}, {{64, 128}});
  tracker.record(Queue::Compute, 2, {}, {{256, 320}});
  EXPECT_EQ(tracker.getWait(Queue::Compute, {{0, 128}}, {}), 3u);
}

TEST(HazardTrackerTest, PartialOverlapsSplitRanges) {
  HazardTracker tracker;
  tracker.record(Queue::Dma, 1, {}, {{0, 256}});
  tracker.record(Queue::Dma, 5, {}, {{64, 128}});
  EXPECT_EQ(tracker.getWait(Queue::Compute, {{0, 64}}, {}), 1u);
  EXPECT_EQ(tracker.getWait(Queue::Compute, {{100, 101}}, {}), 5u);
  EXPECT_EQ(tracker.getWait(Queue::Compute, {{128, 256}}, {}), 1u);
  EXPECT_EQ(tracker.getWait(Queue::Compute, {{0, 256}}, {}), 5u);
}

} // namespace
