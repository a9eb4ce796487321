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

// Candidate scales are searched kBlock at a time in GCC vector types: each
// vector lane is one candidate with its own sums, so the search vectorizes
// while every candidate adds its elements in order, exactly as a loop over
// one candidate would. The result does not depend on the instruction set;
// target_clones picks the widest the host has.
constexpr int kBlock = 16;
typedef float FloatBlock __attribute__((vector_size(kBlock * 4)));
typedef int32_t IntBlock __attribute__((vector_size(kBlock * 4)));
typedef double DoubleBlock __attribute__((vector_size(kBlock * 8)));

/// Rounds half away from zero, as llama.cpp's roundf (std::round) does but
/// for the sign of a zero result, which no sum or stored value sees:
/// truncation through an integer, then a step away from zero when the
/// dropped fraction (exact in float) is at least one half. Magnitudes from
/// 2^23 on, infinities and NaNs are integral already (or stay NaN).
__attribute__((always_inline)) static inline FloatBlock
roundHalfAway(FloatBlock value) {
  FloatBlock magnitude = value < 0.0f ? -value : value;
  FloatBlock truncated = __builtin_convertvector(
      __builtin_convertvector(value, IntBlock), FloatBlock);
  truncated = magnitude < 0x1p23f ? truncated : value;
  FloatBlock fraction = value - truncated;
  fraction = fraction < 0.0f ? -fraction : fraction;
  FloatBlock away = value < 0.0f ? FloatBlock{} - 1.0f : FloatBlock{} + 1.0f;
  return truncated + (fraction >= 0.5f ? away : FloatBlock{});
}

/// std::clamp's result, NaN included.
__attribute__((always_inline)) static inline FloatBlock
clampTo(FloatBlock value, float low, float high) {
  value = value < low ? FloatBlock{} + low : value;
  return high < value ? FloatBlock{} + high : value;
}

static float roundHalfAway(float value) {
  float magnitude = std::fabs(value);
  float truncated = magnitude < 0x1p23f
                        ? static_cast<float>(static_cast<int32_t>(value))
                        : value;
  float away = value < 0.0f ? -1.0f : 1.0f;
  return truncated + (std::fabs(value - truncated) >= 0.5f ? away : 0.0f);
}
static float clampTo(float value, float low, float high) {
  return value < low ? low : (high < value ? high : value);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define LLMC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LLMC_CLONES
#endif

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
/// One group's scale and zero point; its values go straight to the output.
struct GroupChoice {
  float scale = 1.0f;
  float zeroPoint = 0.0f;
};

/// Symmetric candidates: qmax and qmax + 1 levels, each stretched by
/// -0.9 .. +0.9 steps; padded to whole blocks with copies of the last.
constexpr int kStretches = 19;
constexpr int kSymmetricCandidates = 2 * kStretches;
constexpr int kSymmetricBlocks = (kSymmetricCandidates + kBlock - 1) / kBlock;
/// Asymmetric candidates: the range shrunk by 0 .. 30 %.
constexpr int kAsymmetricCandidates = 16;
constexpr int kAsymmetricBlocks = kAsymmetricCandidates / kBlock;

/// The index of the first smallest of `count` errors (earlier candidates
/// win ties, as keeping a candidate only when it beats the best so far).
int firstSmallest(const DoubleBlock *errors, int count) {
  int best = 0;
  for (int c = 1; c < count; ++c)
    if (errors[c / kBlock][c % kBlock] < errors[best / kBlock][best % kBlock])
      best = c;
  return best;
}
} // namespace

// A 4-bit candidate's squared error is about 1e-2 of sum(w w) and the
// candidates differ by percents of it; float sums over 64 elements, added
// up in double, resolve that thousands of times over at half the cost of
// double sums. An 8-bit candidate's error is about 1e-5 of sum(w w), below
// what float sums of q w resolve, so 8 bits sum in double.

/// Float sums run over chunks of this many elements (q * q sums exactly:
/// 64 * 8^2 < 2^24).
constexpr size_t kSumChunk = 64;

/// Sums q * w and q * q for every symmetric candidate's q = round(w *
/// inverse), element by element: in float over each kSumChunk elements,
/// the chunks added up in double.
LLMC_CLONES static void sumSymmetricInChunks(const float *values,
                                             size_t count,
                                             const FloatBlock *inverse,
                                             float qmin, float qmax,
                                             DoubleBlock *sumQW,
                                             DoubleBlock *sumQQ) {
  DoubleBlock totalQW[kSymmetricBlocks] = {}, totalQQ[kSymmetricBlocks] = {};
  for (size_t begin = 0; begin < count; begin += kSumChunk) {
    // Local sums stay in registers.
    FloatBlock qw[kSymmetricBlocks] = {}, qq[kSymmetricBlocks] = {};
    for (size_t i = begin, end = std::min(count, begin + kSumChunk); i < end;
         ++i)
      for (int b = 0; b < kSymmetricBlocks; ++b) {
        FloatBlock rounded =
            clampTo(roundHalfAway(values[i] * inverse[b]), qmin, qmax);
        qw[b] += rounded * values[i];
        qq[b] += rounded * rounded;
      }
    for (int b = 0; b < kSymmetricBlocks; ++b) {
      totalQW[b] += __builtin_convertvector(qw[b], DoubleBlock);
      totalQQ[b] += __builtin_convertvector(qq[b], DoubleBlock);
    }
  }
  std::copy(totalQW, totalQW + kSymmetricBlocks, sumQW);
  std::copy(totalQQ, totalQQ + kSymmetricBlocks, sumQQ);
}

/// The same sums, every element added in double.
LLMC_CLONES static void sumSymmetricInDouble(const float *values,
                                             size_t count,
                                             const FloatBlock *inverse,
                                             float qmin, float qmax,
                                             DoubleBlock *sumQW,
                                             DoubleBlock *sumQQ) {
  // Local copies stay in registers: the outputs might alias the inputs.
  DoubleBlock qw[kSymmetricBlocks] = {}, qq[kSymmetricBlocks] = {};
  for (size_t i = 0; i < count; ++i) {
    DoubleBlock w = DoubleBlock{} + static_cast<double>(values[i]);
    for (int b = 0; b < kSymmetricBlocks; ++b) {
      DoubleBlock wide = __builtin_convertvector(
          clampTo(roundHalfAway(values[i] * inverse[b]), qmin, qmax),
          DoubleBlock);
      qw[b] += wide * w;
      qq[b] += wide * wide;
    }
  }
  std::copy(qw, qw + kSymmetricBlocks, sumQW);
  std::copy(qq, qq + kSymmetricBlocks, sumQQ);
}

/// Quantizes a group into `out` (the values' bytes) with the scale of least
/// squared error. A candidate's error is sum((q s - w)^2) = s^2 sum(q q) -
/// 2 s sum(q w) + sum(w w), from the sums its scale needs, so no candidate's
/// values are kept: the chosen one's are computed again.
static GroupChoice quantizeSymmetric(llvm::ArrayRef<float> values,
                                     const QuantScheme &scheme, uint8_t *out) {
  const float qmin = static_cast<float>(scheme.minValue());
  const float qmax = static_cast<float>(scheme.maxValue());
  float amax = 0.0f;
  double sumWW = 0.0;
  for (float value : values) {
    amax = std::max(amax, std::fabs(value));
    sumWW += static_cast<double>(value) * value;
  }
  if (amax == 0.0f) {
    std::fill(out, out + values.size(), 0);
    return {1.0f, 0.0f};
  }
  FloatBlock inverse[kSymmetricBlocks];
  for (int c = 0; c < kSymmetricBlocks * kBlock; ++c) {
    int candidate = std::min(c, kSymmetricCandidates - 1);
    float levels = candidate < kStretches ? qmax : qmax + 1.0f;
    int step = candidate % kStretches - kStretches / 2;
    inverse[c / kBlock][c % kBlock] =
        (levels + 0.1f * static_cast<float>(step)) / amax;
  }
  DoubleBlock sumQW[kSymmetricBlocks] = {}, sumQQ[kSymmetricBlocks] = {};
  (scheme.bits == 4 ? sumSymmetricInChunks : sumSymmetricInDouble)(
      values.data(), values.size(), inverse, qmin, qmax, sumQW, sumQQ);
  // The largest value maps to at least 6 steps: sumQQ > 0, sumQW > 0.
  float scale[kSymmetricBlocks * kBlock];
  DoubleBlock error[kSymmetricBlocks];
  for (int c = 0; c < kSymmetricBlocks * kBlock; ++c) {
    double qw = sumQW[c / kBlock][c % kBlock];
    double qq = sumQQ[c / kBlock][c % kBlock];
    scale[c] = storedScale(static_cast<float>(qw / qq), scheme.scaleType);
    double s = scale[c];
    error[c / kBlock][c % kBlock] = s * s * qq - 2.0 * s * qw + sumWW;
  }
  int best = firstSmallest(error, kSymmetricCandidates);
  float bestInverse = inverse[best / kBlock][best % kBlock];
  for (auto [i, value] : llvm::enumerate(values))
    out[i] = static_cast<uint8_t>(static_cast<int32_t>(
        clampTo(roundHalfAway(value * bestInverse), qmin, qmax)));
  return {scale[best], 0.0f};
}

/// The squared error of dequantizing every asymmetric candidate, as
/// dequantize() does.
LLMC_CLONES static void errorAsymmetric(const float *values, size_t count,
                                        const FloatBlock *scale,
                                        const FloatBlock *zeroPoint,
                                        float levels, DoubleBlock *error) {
  DoubleBlock sum[kAsymmetricBlocks] = {};
  for (size_t i = 0; i < count; ++i) {
    DoubleBlock w = DoubleBlock{} + static_cast<double>(values[i]);
    for (int b = 0; b < kAsymmetricBlocks; ++b) {
      FloatBlock q = clampTo(roundHalfAway(values[i] / scale[b]) + zeroPoint[b],
                             0.0f, levels);
      DoubleBlock diff =
          __builtin_convertvector((q - zeroPoint[b]) * scale[b], DoubleBlock) -
          w;
      sum[b] += diff * diff;
    }
  }
  std::copy(sum, sum + kAsymmetricBlocks, error);
}

/// Quantizes a group into `out` (the values' bytes) with the scale and zero
/// point of least squared error.
static GroupChoice quantizeAsymmetric(llvm::ArrayRef<float> values,
                                      const QuantScheme &scheme, uint8_t *out) {
  const float levels = static_cast<float>(scheme.maxValue());
  float lo = 0.0f, hi = 0.0f;
  for (float value : values) {
    lo = std::min(lo, value);
    hi = std::max(hi, value);
  }
  if (lo == hi) {
    std::fill(out, out + values.size(), 0);
    return {1.0f, 0.0f};
  }
  FloatBlock scale[kAsymmetricBlocks], zeroPoint[kAsymmetricBlocks];
  for (int c = 0; c < kAsymmetricCandidates; ++c) {
    float shrink = 1.0f - 0.02f * static_cast<float>(c);
    float candidateScale =
        storedScale(shrink * (hi - lo) / levels, scheme.scaleType);
    scale[c / kBlock][c % kBlock] = candidateScale;
    zeroPoint[c / kBlock][c % kBlock] = clampTo(
        roundHalfAway(-(shrink * lo) / candidateScale), 0.0f, levels);
  }
  DoubleBlock error[kAsymmetricBlocks] = {};
  errorAsymmetric(values.data(), values.size(), scale, zeroPoint, levels,
                  error);
  int best = firstSmallest(error, kAsymmetricCandidates);
  float bestScale = scale[best / kBlock][best % kBlock];
  float bestZeroPoint = zeroPoint[best / kBlock][best % kBlock];
  for (auto [i, value] : llvm::enumerate(values))
    out[i] = static_cast<uint8_t>(static_cast<int32_t>(clampTo(
        roundHalfAway(value / bestScale) + bestZeroPoint, 0.0f, levels)));
  return {bestScale, bestZeroPoint};
}

llvm::Expected<QuantizedTensor> quantize(llvm::ArrayRef<float> weight,
                                         int64_t rows, int64_t cols,
                                         const QuantScheme &scheme,
                                         int64_t firstRow) {
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
                        llvm::Twine(firstRow + int64_t(index) / cols) + ", " +
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
      uint8_t *out = result.values.data() + begin;
      GroupChoice choice = scheme.asymmetric
                               ? quantizeAsymmetric(values, scheme, out)
                               : quantizeSymmetric(values, scheme, out);
      int64_t param = row * result.groups + group;
      result.scales[param] = choice.scale;
      if (scheme.asymmetric)
        result.zeroPoints[param] = static_cast<uint8_t>(choice.zeroPoint);
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
