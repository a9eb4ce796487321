//===- CalibrationStatsTest.cpp - minmax, percentile and KL ranges --------===//

#include "backends/common/quant/CalibrationStats.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace llmc::quant;

namespace {

TEST(CalibrationStats, MinMaxTakesTheExtremesAcrossSamples) {
  ActivationStatistics stats;
  stats.observeRange({0.5f, -2.0f, 1.0f});
  stats.observeRange({3.0f, NAN, INFINITY, -0.25f});
  TensorRange range = stats.getRange(CalibrationMethod::MinMax, 0);
  EXPECT_EQ(range.min, -2.0f);
  EXPECT_EQ(range.max, 3.0f);
  EXPECT_EQ(range.threshold, 3.0f);
}

TEST(CalibrationStats, PercentileFindsTheBinReachingTheFraction) {
  // 10 bins over [0, 10]: 90 counts in bin 0, 9 in bin 4, 1 in bin 9.
  std::vector<uint64_t> histogram(10, 0);
  histogram[0] = 90;
  histogram[4] = 9;
  histogram[9] = 1;
  EXPECT_EQ(getPercentile(histogram, 0, 10, 0.90), 1.0f);
  EXPECT_EQ(getPercentile(histogram, 0, 10, 0.91), 5.0f);
  EXPECT_EQ(getPercentile(histogram, 0, 10, 0.99), 5.0f);
  EXPECT_EQ(getPercentile(histogram, 0, 10, 1.0), 10.0f);
}

TEST(CalibrationStats, PercentileClipsARareOutlier) {
  ActivationStatistics stats;
  std::vector<float> values;
  for (int i = 0; i < 100000; ++i)
    values.push_back(float(i % 201 - 100) / 100.0f); // [-1, 1]
  values.push_back(50.0f);
  stats.observeRange(values);
  stats.observeHistogram(values);
  TensorRange range = stats.getRange(CalibrationMethod::Percentile, 99.99);
  EXPECT_EQ(stats.getMax(), 50.0f);
  // The bins are 50 / 2048 wide; 1.0 lies in the bin ending at 41/2048*50.
  EXPECT_NEAR(range.threshold, 1.0f, 50.0f / 2048);
  EXPECT_GE(range.threshold, 1.0f);
  EXPECT_NEAR(range.max, 1.0f, 51.0f / 2048);
  EXPECT_NEAR(range.min, -1.0f, 51.0f / 2048);
}

TEST(CalibrationStats, KLKeepsAnUnclippedUniformRange) {
  // Every bin equally full: any clipping loses information, so the search
  // keeps the whole range.
  std::vector<uint64_t> histogram(kHistogramBins, 100);
  EXPECT_EQ(searchKLThreshold(histogram, 4.0f), 4.0f);
}

TEST(CalibrationStats, KLClipsALongSparseTail) {
  // Mass in the first 256 bins and a single far outlier: the threshold
  // drops to the dense part instead of spending levels on the tail.
  std::vector<uint64_t> histogram(kHistogramBins, 0);
  for (int i = 0; i < 256; ++i)
    histogram[i] = 1000 - 3 * i;
  histogram[kHistogramBins - 1] = 1;
  float threshold = searchKLThreshold(histogram, 2048.0f);
  EXPECT_LT(threshold, 400.0f);
  EXPECT_GE(threshold, 128.0f);
}

TEST(CalibrationStats, KLOfASmallHistogramIsTheMaximum) {
  std::vector<uint64_t> histogram(100, 1);
  EXPECT_EQ(searchKLThreshold(histogram, 7.0f), 7.0f);
  EXPECT_EQ(searchKLThreshold(std::vector<uint64_t>(kHistogramBins, 0), 7.0f),
            7.0f);
}

TEST(CalibrationStats, KLRangeIsClippedToTheThreshold) {
  ActivationStatistics stats;
  std::vector<float> values;
  for (int i = 0; i < 20000; ++i)
    values.push_back(std::sin(float(i)) * 0.5f);
  values.push_back(-40.0f);
  stats.observeRange(values);
  stats.observeHistogram(values);
  TensorRange range = stats.getRange(CalibrationMethod::KL, 0);
  EXPECT_LT(range.threshold, 10.0f);
  EXPECT_EQ(range.min, -range.threshold);
  EXPECT_LE(range.max, range.threshold);
}

TEST(CalibrationStats, ParsesMethodNames) {
  EXPECT_EQ(*parseCalibrationMethod("KL"), CalibrationMethod::KL);
  EXPECT_EQ(*parseCalibrationMethod("minmax"), CalibrationMethod::MinMax);
  llvm::Expected<CalibrationMethod> bad = parseCalibrationMethod("mse");
  ASSERT_FALSE(bad);
  EXPECT_NE(llvm::toString(bad.takeError()).find("minmax, percentile, kl"),
            std::string::npos);
}

} // namespace
