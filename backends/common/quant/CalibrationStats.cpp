//===- CalibrationStats.cpp - activation statistics for INT8 --------------===//

#include "backends/common/quant/CalibrationStats.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

namespace llmc::quant {

llvm::StringRef stringifyCalibrationMethod(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Percentile:
    return "percentile";
  case CalibrationMethod::KL:
    return "kl";
  }
  llvm_unreachable("unknown calibration method");
}

llvm::Expected<CalibrationMethod> parseCalibrationMethod(llvm::StringRef name) {
  for (CalibrationMethod method :
       {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
        CalibrationMethod::KL})
    if (name.equals_insensitive(stringifyCalibrationMethod(method)))
      return method;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown calibration method '" + name +
                                     "'; valid methods: minmax, percentile, "
                                     "kl");
}

float getPercentile(llvm::ArrayRef<uint64_t> histogram, float lo, float hi,
                    double fraction) {
  uint64_t total = 0;
  for (uint64_t count : histogram)
    total += count;
  if (total == 0 || histogram.empty())
    return hi;
  // The smallest count that reaches the fraction; integers, so exact.
  auto needed = static_cast<uint64_t>(std::ceil(fraction * double(total)));
  needed = std::clamp<uint64_t>(needed, 1, total);
  uint64_t seen = 0;
  float width = (hi - lo) / float(histogram.size());
  for (auto [bin, count] : llvm::enumerate(histogram)) {
    seen += count;
    if (seen >= needed)
      return bin + 1 == histogram.size() ? hi : lo + width * float(bin + 1);
  }
  return hi;
}

/// `counts` with every zero bin raised to 1e-4 and that mass taken evenly
/// from the others (MXNet's smoothing), so a bin of the reference that a
/// quantized level left empty costs a finite amount; then normalized.
static std::vector<double> smooth(llvm::ArrayRef<double> counts) {
  constexpr double eps = 1e-4;
  int64_t zeros = llvm::count(counts, 0.0);
  auto nonZeros = static_cast<int64_t>(counts.size()) - zeros;
  double taken = nonZeros ? eps * double(zeros) / double(nonZeros) : 0;
  std::vector<double> result;
  double sum = 0;
  for (double count : counts) {
    result.push_back(count == 0 ? eps : count - taken);
    sum += result.back();
  }
  for (double &value : result)
    value /= sum;
  return result;
}

/// KL(p || q) of two histograms over the same bins; bins where p is 0
/// contribute nothing.
static double klDivergence(llvm::ArrayRef<double> p, llvm::ArrayRef<double> q) {
  std::vector<double> ps = smooth(p), qs = smooth(q);
  double divergence = 0;
  for (size_t i = 0; i < ps.size(); ++i)
    if (p[i] != 0)
      divergence += ps[i] * std::log(ps[i] / qs[i]);
  return divergence;
}

/// The candidate of `bins` bins: P with the clipped tail in its last bin, Q
/// the first `bins` bins merged into `levels` levels, each spread evenly
/// over the bins where P is non-zero.
static double getCandidateDivergence(llvm::ArrayRef<uint64_t> histogram,
                                     int64_t bins, int64_t levels) {
  std::vector<double> p(histogram.begin(), histogram.begin() + bins);
  for (size_t i = bins; i < histogram.size(); ++i)
    p.back() += double(histogram[i]);
  std::vector<double> q(bins, 0.0);
  for (int64_t level = 0; level < levels; ++level) {
    // Integer bounds: level j merges bins [j * bins / levels, (j + 1) *
    // bins / levels).
    int64_t begin = level * bins / levels, end = (level + 1) * bins / levels;
    double sum = 0;
    int64_t nonZero = 0;
    for (int64_t i = begin; i < end; ++i) {
      sum += double(histogram[i]);
      nonZero += p[i] != 0;
    }
    for (int64_t i = begin; i < end; ++i)
      if (p[i] != 0)
        q[i] = sum / double(nonZero);
  }
  return klDivergence(p, q);
}

float searchKLThreshold(llvm::ArrayRef<uint64_t> histogram, float absMax,
                        int64_t levels) {
  auto bins = static_cast<int64_t>(histogram.size());
  if (bins <= levels ||
      llvm::all_of(histogram, [](uint64_t count) { return count == 0; }))
    return absMax;
  int64_t best = bins;
  double bestDivergence = std::numeric_limits<double>::infinity();
  for (int64_t candidate = levels; candidate <= bins; ++candidate) {
    double divergence = getCandidateDivergence(histogram, candidate, levels);
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      best = candidate;
    }
  }
  float width = absMax / float(bins);
  return best == bins ? absMax : width * float(best);
}

void ActivationStatistics::observeRange(llvm::ArrayRef<float> values) {
  for (float value : values) {
    if (!std::isfinite(value))
      continue;
    min = std::min(min, value);
    max = std::max(max, value);
  }
}

/// The bin of `value` among `bins` equal bins over [lo, hi].
static size_t getBin(float value, float lo, float hi, size_t bins) {
  if (!(hi > lo))
    return 0;
  float position = (value - lo) / (hi - lo) * float(bins);
  return std::min(bins - 1, static_cast<size_t>(std::max(position, 0.0f)));
}

void ActivationStatistics::observeHistogram(llvm::ArrayRef<float> values) {
  if (!hasValues())
    return;
  if (histogram.empty()) {
    histogram.assign(kHistogramBins, 0);
    absHistogram.assign(kHistogramBins, 0);
  }
  float absMax = getAbsMax();
  for (float value : values) {
    if (!std::isfinite(value))
      continue;
    ++histogram[getBin(value, min, max, kHistogramBins)];
    ++absHistogram[getBin(std::fabs(value), 0.0f, absMax, kHistogramBins)];
  }
}

TensorRange ActivationStatistics::getRange(CalibrationMethod method,
                                           double percentile) const {
  TensorRange range;
  if (!hasValues())
    return range;
  range.min = min;
  range.max = max;
  range.threshold = getAbsMax();
  if (method == CalibrationMethod::MinMax || histogram.empty())
    return range;
  if (method == CalibrationMethod::Percentile) {
    double fraction = percentile / 100.0;
    range.min = getPercentile(histogram, min, max, 1.0 - fraction);
    range.max = getPercentile(histogram, min, max, fraction);
    range.threshold = getPercentile(absHistogram, 0.0f, getAbsMax(), fraction);
    return range;
  }
  range.threshold = searchKLThreshold(absHistogram, getAbsMax());
  range.min = std::max(min, -range.threshold);
  range.max = std::min(max, range.threshold);
  return range;
}

} // namespace llmc::quant
