//===- GroupQuantizer.cpp - group-wise weight-only quantization -----------===//

#include "backends/common/quant/GroupQuantizer.h"

#include <algorithm>
#include <cmath>

namespace llmc::quant {

static llvm::Error quantError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

int64_t QuantScheme::minValue() const {
  return asymmetric ? 0 : -((int64_t{1} << (bits - 1)) - 1);
}

int64_t QuantScheme::maxValue() const {
  return asymmetric ? (int64_t{1} << bits) - 1
                    : (int64_t{1} << (bits - 1)) - 1;
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
  return llvm::Error::success();
}

/// Rounds half away from zero, as llama.cpp's roundf does.
static float roundHalfAway(float value) { return std::round(value); }

/// The stored scale for `exact`: rounded to the storage type, and kept
/// positive and finite so that dividing by it is defined.
static float storedScale(float exact, bool allZero, FloatType type) {
  if (allZero)
    return 1.0f;
  float scale = roundToFloatType(exact, type);
  if (scale == 0.0f)
    return smallestPositive(type);
  if (!std::isfinite(scale))
    return largestFinite(type);
  return scale;
}

llvm::Expected<QuantizedTensor> quantize(llvm::ArrayRef<float> weight,
                                         int64_t rows, int64_t cols,
                                         const QuantScheme &scheme) {
  if (llvm::Error error = checkScheme(scheme, cols))
    return std::move(error);
  if (rows < 0 || cols <= 0 ||
      static_cast<int64_t>(weight.size()) != rows * cols)
    return quantError("a [" + llvm::Twine(rows) + ", " + llvm::Twine(cols) +
                      "] weight needs " + llvm::Twine(rows * cols) +
                      " values, got " + llvm::Twine(weight.size()));
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

  const float qmin = static_cast<float>(scheme.minValue());
  const float qmax = static_cast<float>(scheme.maxValue());
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t group = 0; group < result.groups; ++group) {
      int64_t begin = row * cols + group * result.groupSize;
      llvm::ArrayRef<float> values = weight.slice(begin, result.groupSize);
      float lo = 0.0f, hi = 0.0f, amax = 0.0f;
      for (int64_t i = 0; i < result.groupSize; ++i) {
        float value = values[i];
        if (!std::isfinite(value))
          return quantError("the weight has a non-finite value at [" +
                            llvm::Twine(row) + ", " +
                            llvm::Twine(group * result.groupSize + i) + "]");
        lo = std::min(lo, value);
        hi = std::max(hi, value);
        amax = std::max(amax, std::fabs(value));
      }
      int64_t paramIndex = row * result.groups + group;
      float zeroPoint = 0.0f;
      float scale;
      if (scheme.asymmetric) {
        scale = storedScale((hi - lo) / qmax, hi == lo, scheme.scaleType);
        zeroPoint = std::clamp(roundHalfAway(-lo / scale), qmin, qmax);
        result.zeroPoints[paramIndex] = static_cast<uint8_t>(zeroPoint);
      } else {
        scale = storedScale(amax / qmax, amax == 0.0f, scheme.scaleType);
      }
      result.scales[paramIndex] = scale;
      for (auto [offset, value] : llvm::enumerate(values)) {
        float q = std::clamp(roundHalfAway(value / scale) + zeroPoint, qmin,
                             qmax);
        result.values[begin + offset] =
            static_cast<uint8_t>(static_cast<int64_t>(q));
      }
    }
  }
  return result;
}

std::vector<float> dequantize(const QuantizedTensor &quantized) {
  std::vector<float> result(quantized.rows * quantized.cols);
  for (int64_t row = 0; row < quantized.rows; ++row) {
    for (int64_t col = 0; col < quantized.cols; ++col) {
      int64_t param = row * quantized.groups + col / quantized.groupSize;
      int64_t zeroPoint =
          quantized.scheme.asymmetric ? quantized.zeroPoints[param] : 0;
      result[row * quantized.cols + col] =
          static_cast<float>(quantized.getValue(row, col) - zeroPoint) *
          quantized.scales[param];
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
