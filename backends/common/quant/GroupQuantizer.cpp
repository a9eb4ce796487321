//===- GroupQuantizer.cpp - group-wise weight-only quantization -----------===//

#include "backends/common/quant/GroupQuantizer.h"

#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <cmath>

namespace llmc::quant {

static llvm::Error quantError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

int64_t QuantScheme::minValue() const {
  return asymmetric ? 0 : -(int64_t{1} << (bits - 1));
}

int64_t QuantScheme::maxValue() const {
  return asymmetric ? (int64_t{1} << bits) - 1 : (int64_t{1} << (bits - 1)) - 1;
}

int64_t QuantizedTensor::getValue(int64_t row, int64_t col) const {
  uint8_t raw = values[row * cols + col];
  return scheme.asymmetric ? raw : static_cast<int8_t>(raw);
}

llvm::Error checkScheme(const QuantScheme &scheme, int64_t cols) {
  if (scheme.bits != 4 && scheme.bits != 8)
    return quantError("quantization needs 4 or 8 bits, got " +
                      llvm::Twine(scheme.bits));
  if (scheme.groupSize < 0)
    return quantError("the group size must be positive, or 0 for "
                      "per-channel; got " +
                      llvm::Twine(scheme.groupSize));
  if (scheme.groupSize != 0 && cols % scheme.groupSize != 0)
    return quantError("group size " + llvm::Twine(scheme.groupSize) +
                      " does not divide K = " + llvm::Twine(cols));
  if (scheme.floatZeroPoints && !scheme.asymmetric)
    return quantError("float zero points need an asymmetric scheme");
  return llvm::Error::success();
}

/// Rounds half away from zero, as llama.cpp's roundf does.
static float roundHalfAway(float value) { return std::round(value); }

/// The stored scale for `exact`: rounded to the storage type, and kept
/// positive and finite so that dividing by it is defined.
static float storedScale(float exact, FloatType type) {
  float scale = roundToFloatType(exact, type);
  if (scale <= 0.0f)
    return smallestPositive(type);
  if (!std::isfinite(scale))
    return largestFinite(type);
  return scale;
}

namespace {
/// One group's quantization: values, scale, zero point and squared error.
struct GroupChoice {
  std::vector<float> q;
  float scale = 1.0f;
  float zeroPoint = 0.0f;
  double error = 0.0;
};
} // namespace

/// The squared error of dequantizing `q` with `scale` and `zeroPoint`,
/// computed as dequantize() does.
static double squaredError(llvm::ArrayRef<float> values,
                           llvm::ArrayRef<float> q, float scale,
                           float zeroPoint) {
  double error = 0.0;
  for (size_t i = 0; i < values.size(); ++i) {
    double diff = static_cast<double>((q[i] - zeroPoint) * scale) - values[i];
    error += diff * diff;
  }
  return error;
}

/// Keeps `candidate` when it beats `best` (or `best` is still empty); the
/// loser's buffer is reused for the next candidate.
static void keepBetter(GroupChoice &best, GroupChoice &candidate) {
  if (best.q.empty() || candidate.error < best.error)
    std::swap(best, candidate);
}

static GroupChoice quantizeSymmetric(llvm::ArrayRef<float> values,
                                     const QuantScheme &scheme) {
  const float qmin = static_cast<float>(scheme.minValue());
  const float qmax = static_cast<float>(scheme.maxValue());
  float amax = 0.0f;
  for (float value : values)
    amax = std::max(amax, std::fabs(value));
  if (amax == 0.0f)
    return {std::vector<float>(values.size(), 0.0f), 1.0f, 0.0f, 0.0};
  GroupChoice best, candidate;
  candidate.q.resize(values.size());
  for (float levels : {qmax, qmax + 1.0f}) {
    for (int step = -9; step <= 9; ++step) {
      float inverse = (levels + 0.1f * static_cast<float>(step)) / amax;
      candidate.q.resize(values.size());
      double sumQW = 0.0, sumQQ = 0.0;
      for (size_t i = 0; i < values.size(); ++i) {
        float q = std::clamp(roundHalfAway(values[i] * inverse), qmin, qmax);
        candidate.q[i] = q;
        sumQW += static_cast<double>(q) * values[i];
        sumQQ += static_cast<double>(q) * q;
      }
      // The largest value maps to at least 6 steps: sumQQ > 0, sumQW > 0.
      candidate.scale =
          storedScale(static_cast<float>(sumQW / sumQQ), scheme.scaleType);
      candidate.error = squaredError(values, candidate.q, candidate.scale, 0);
      keepBetter(best, candidate);
    }
  }
  return best;
}

static GroupChoice quantizeAsymmetric(llvm::ArrayRef<float> values,
                                      const QuantScheme &scheme) {
  const float levels = static_cast<float>(scheme.maxValue());
  float lo = 0.0f, hi = 0.0f;
  for (float value : values) {
    lo = std::min(lo, value);
    hi = std::max(hi, value);
  }
  if (lo == hi)
    return {std::vector<float>(values.size(), 0.0f), 1.0f, 0.0f, 0.0};
  GroupChoice best, candidate;
  for (int step = 0; step < 16; ++step) {
    float shrink = 1.0f - 0.02f * static_cast<float>(step);
    candidate.scale =
        storedScale(shrink * (hi - lo) / levels, scheme.scaleType);
    candidate.zeroPoint = std::clamp(
        roundHalfAway(-(shrink * lo) / candidate.scale), 0.0f, levels);
    candidate.q.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      candidate.q[i] = std::clamp(roundHalfAway(values[i] / candidate.scale) +
                                      candidate.zeroPoint,
                                  0.0f, levels);
    candidate.error =
        squaredError(values, candidate.q, candidate.scale, candidate.zeroPoint);
    keepBetter(best, candidate);
  }
  return best;
}

llvm::Expected<QuantizedTensor> quantize(llvm::ArrayRef<float> weight,
                                         int64_t rows, int64_t cols,
                                         const QuantScheme &scheme) {
  if (llvm::Error error = checkScheme(scheme, cols))
    return std::move(error);
  if (scheme.floatZeroPoints)
    return quantError("llmc quantizes with integer zero points; float ones "
                      "come only from checkpoints");
  if (rows < 0 || cols <= 0 ||
      static_cast<int64_t>(weight.size()) != rows * cols)
    return quantError("a [" + llvm::Twine(rows) + ", " + llvm::Twine(cols) +
                      "] weight needs " + llvm::Twine(rows * cols) +
                      " values, got " + llvm::Twine(weight.size()));
  for (auto [index, value] : llvm::enumerate(weight))
    if (!std::isfinite(value))
      return quantError("the weight has a non-finite value at [" +
                        llvm::Twine(index / cols) + ", " +
                        llvm::Twine(index % cols) + "]");
  QuantizedTensor result;
  result.rows = rows;
  result.cols = cols;
  result.scheme = scheme;
  result.groupSize = scheme.groupSize == 0 ? cols : scheme.groupSize;
  result.groups = cols / result.groupSize;
  result.values.resize(rows * cols);
  result.scales.resize(rows * result.groups);
  if (scheme.asymmetric)
    result.zeroPoints.resize(rows * result.groups);

  // Rows are independent and each searches its groups' scales (most of a
  // conversion's time): they go to every core, into disjoint outputs, so
  // the result does not depend on the thread count.
  llvm::parallelFor(0, rows, [&](size_t row) {
    for (int64_t group = 0; group < result.groups; ++group) {
      int64_t begin = row * cols + group * result.groupSize;
      llvm::ArrayRef<float> values = weight.slice(begin, result.groupSize);
      GroupChoice choice = scheme.asymmetric
                               ? quantizeAsymmetric(values, scheme)
                               : quantizeSymmetric(values, scheme);
      int64_t param = row * result.groups + group;
      result.scales[param] = choice.scale;
      if (scheme.asymmetric)
        result.zeroPoints[param] = static_cast<uint8_t>(choice.zeroPoint);
      for (auto [offset, q] : llvm::enumerate(choice.q))
        result.values[begin + offset] =
            static_cast<uint8_t>(static_cast<int64_t>(q));
    }
  });
  return result;
}

std::vector<float> dequantize(const QuantizedTensor &quantized) {
  std::vector<float> result(quantized.rows * quantized.cols);
  for (int64_t row = 0; row < quantized.rows; ++row) {
    for (int64_t col = 0; col < quantized.cols; ++col) {
      int64_t param = row * quantized.groups + col / quantized.groupSize;
      float value = static_cast<float>(quantized.getValue(row, col));
      if (quantized.scheme.floatZeroPoints)
        value -= quantized.floatZeroPoints[param];
      else if (quantized.scheme.asymmetric)
        value -= quantized.zeroPoints[param];
      result[row * quantized.cols + col] = value * quantized.scales[param];
    }
  }
  return result;
}

std::vector<uint8_t> packInt4(llvm::ArrayRef<uint8_t> values, int64_t rows,
                              int64_t cols) {
  int64_t rowBytes = (cols + 1) / 2;
  std::vector<uint8_t> packed(rows * rowBytes, 0);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t col = 0; col < cols; ++col) {
      uint8_t nibble = values[row * cols + col] & 0x0f;
      packed[row * rowBytes + col / 2] |= col % 2 ? nibble << 4 : nibble;
    }
  return packed;
}

std::vector<uint8_t> unpackInt4(llvm::ArrayRef<uint8_t> packed, int64_t rows,
                                int64_t cols, bool isSigned) {
  int64_t rowBytes = (cols + 1) / 2;
  std::vector<uint8_t> values(rows * cols);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t col = 0; col < cols; ++col) {
      uint8_t byte = packed[row * rowBytes + col / 2];
      uint8_t nibble = col % 2 ? byte >> 4 : byte & 0x0f;
      if (isSigned && (nibble & 0x08))
        nibble |= 0xf0;
      values[row * cols + col] = nibble;
    }
  return values;
}

} // namespace llmc::quant
