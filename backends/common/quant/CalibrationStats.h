//===- CalibrationStats.h - activation statistics for INT8 -----*- C++ -*-===//
//
// Gathers the values an activation tensor takes over a calibration set and
// chooses its quantization range (CalibrationTable.h) by one of three
// methods:
//
// - minmax: the observed extremes; threshold = max(|min|, |max|).
// - percentile p: min and max are the (100 - p)th and pth percentiles of the
//   values, threshold the pth percentile of |x|, so rare outliers are
//   clipped instead of stretching every step.
// - kl: TensorRT's entropy calibration on the histogram of |x| (2048 bins
//   over [0, max |x|]): for every candidate threshold of i bins (128 <= i
//   <= 2048), the reference distribution P is the first i bins with the
//   clipped tail added to the last, Q is those i bins merged into 128
//   levels and spread back over the bins where P is non-zero; both are
//   smoothed (empty bins get 1e-4, as MXNet's implementation does); the
//   threshold is the end of the bin i with the smallest KL(P || Q) (the
//   first on ties). min and max are the observed extremes clipped to
//   +-threshold.
//
// Percentiles and kl need the histograms, whose bins need the extremes
// first: observe every sample with observeRange, then with
// observeHistogram. Non-finite values are ignored. Counts are integers and
// each method a fixed sequence of float operations, so results do not
// depend on the order samples arrive in, or on threads.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_QUANT_CALIBRATIONSTATS_H
#define LLMC_BACKENDS_COMMON_QUANT_CALIBRATIONSTATS_H

#include "backends/common/quant/CalibrationTable.h"

#include "llvm/ADT/ArrayRef.h"

#include <limits>

namespace llmc::quant {

enum class CalibrationMethod { MinMax, Percentile, KL };

/// `minmax`, `percentile`, `kl`.
llvm::StringRef stringifyCalibrationMethod(CalibrationMethod method);
/// Parses a method name; the error lists the valid ones.
llvm::Expected<CalibrationMethod> parseCalibrationMethod(llvm::StringRef name);

/// Bins of the histograms percentile and kl use.
inline constexpr int64_t kHistogramBins = 2048;

/// The value below which `fraction` (0..1] of the counts of `histogram`, a
/// histogram of equal bins over [lo, hi], lie: the upper edge of the bin
/// where the cumulative count reaches that fraction.
float getPercentile(llvm::ArrayRef<uint64_t> histogram, float lo, float hi,
                    double fraction);

/// TensorRT's KL-divergence threshold (see above) for `histogram`, equal
/// bins of |x| over [0, absMax]; `levels` quantized levels (128 for int8).
/// Histograms of at most `levels` bins, or without counts, give absMax.
float searchKLThreshold(llvm::ArrayRef<uint64_t> histogram, float absMax,
                        int64_t levels = 128);

/// The statistics of one activation tensor.
class ActivationStatistics {
public:
  /// Pass 1: the extremes.
  void observeRange(llvm::ArrayRef<float> values);
  /// Pass 2 (percentile and kl): histograms of x over [min, max] and of |x|
  /// over [0, max |x|], the extremes of pass 1.
  void observeHistogram(llvm::ArrayRef<float> values);

  /// The range `method` chooses; `percentile` in (0, 100] for the
  /// percentile method.
  TensorRange getRange(CalibrationMethod method, double percentile) const;

  float getMin() const { return min; }
  float getMax() const { return max; }
  bool hasValues() const { return min <= max; }

private:
  float getAbsMax() const { return std::max(-min, max); }

  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();
  std::vector<uint64_t> histogram, absHistogram;
};

} // namespace llmc::quant

#endif // LLMC_BACKENDS_COMMON_QUANT_CALIBRATIONSTATS_H
