//===- GroupQuantizerTest.cpp - group-wise quantization, exact and bounded ===//
//
// The exact values come from a numpy model of the search in
// GroupQuantizer.h (float32 arithmetic, sums in double in element order,
// round half away from zero, scales rounded to their storage type with
// astype).
//
//===----------------------------------------------------------------------===//

#include "backends/common/quant/GroupQuantizer.h"

#include "llvm/Support/Parallel.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

using namespace llmc::quant;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

namespace {

/// A hand-made [2, 8] weight: a wide row with an exact maximum, and a row of
/// small values whose quotients land near .5.
const std::vector<float> kWeight = {0.5f,  -1.25f, 0.1f,  0.0f,  2.0f,   -0.3f,
                                    0.75f, -2.1f,  0.02f, 0.04f, -0.01f, 0.03f,
                                    0.2f,  0.1f,   0.3f,  0.25f};

QuantizedTensor quantizeOrDie(llvm::ArrayRef<float> weight, int64_t rows,
                              int64_t cols, QuantScheme scheme) {
  llvm::Expected<QuantizedTensor> result = quantize(weight, rows, cols, scheme);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

std::vector<int64_t> valuesOf(const QuantizedTensor &q) {
  std::vector<int64_t> values;
  for (int64_t row = 0; row < q.rows; ++row)
    for (int64_t col = 0; col < q.cols; ++col)
      values.push_back(q.getValue(row, col));
  return values;
}

std::string errorOf(llvm::Expected<QuantizedTensor> result) {
  EXPECT_FALSE(static_cast<bool>(result)) << "expected an error";
  return result ? "" : llvm::toString(result.takeError());
}

//===----------------------------------------------------------------------===//
// Exact values
//===----------------------------------------------------------------------===//

TEST(GroupQuantizerTest, SymmetricInt4GroupOfFour) {
  QuantizedTensor q = quantizeOrDie(kWeight, 2, 8, {4, 4, false});
  EXPECT_EQ(q.groupSize, 4);
  EXPECT_EQ(q.groups, 2);
  // The largest magnitude of the first group, -1.25, uses level -8; the
  // second group does better clipping 2.0 and -2.1 to 6 and -6 steps.
  EXPECT_THAT(valuesOf(q), ElementsAre(3, -8, 1, 0, 6, -1, 2, -6, //
                                       3, 7, -2, 5, 4, 2, 6, 5));
  // Least-squares scales: the first is (3 * 0.5 + 8 * 1.25 + 0.1) / 74; the
  // second's sum(q w) is a float sum (4 bits), an ulp from the double one.
  EXPECT_THAT(q.scales, ElementsAre(0x1.4109bp-3f, 0x1.5f15f2p-2f,
                                    0x1.802d32p-8f, 0x1.99999ap-5f));
  EXPECT_EQ(q.scales[0], static_cast<float>(11.6 / 74));
  EXPECT_TRUE(q.zeroPoints.empty());
  std::vector<float> w = dequantize(q);
  EXPECT_EQ(w[1], -8 * q.scales[0]);
  EXPECT_EQ(w[12], 4 * q.scales[3]);
}

TEST(GroupQuantizerTest, AsymmetricInt4PerChannel) {
  QuantizedTensor q = quantizeOrDie(kWeight, 2, 8, {4, 0, true});
  EXPECT_EQ(q.groupSize, 8);
  EXPECT_EQ(q.groups, 1);
  EXPECT_THAT(valuesOf(q), ElementsAre(10, 3, 8, 8, 15, 7, 11, 0, //
                                       1, 2, 0, 2, 10, 5, 15, 13));
  // Row 0 shrinks its range [-2.1, 2] by 2%: 0.98 * 4.1 / 15.
  EXPECT_THAT(q.scales, ElementsAre(0x1.124ba4p-2f, 0x1.450efep-6f));
  // The second row is all but nonnegative: its range still reaches 0.
  EXPECT_THAT(q.zeroPoints, ElementsAre(8, 0));
  std::vector<float> w = dequantize(q);
  EXPECT_EQ(w[3], 0.0f) << "0 stays exact";
  EXPECT_EQ(w[7], -8 * q.scales[0]);
  EXPECT_EQ(w[14], 15 * q.scales[1]);
}

TEST(GroupQuantizerTest, SymmetricInt8PerChannel) {
  QuantizedTensor q = quantizeOrDie(kWeight, 2, 8, {8, 0, false});
  EXPECT_THAT(valuesOf(q), ElementsAre(30, -75, 6, 0, 120, -18, 45, -126, //
                                       8, 17, -4, 13, 84, 42, 126, 105));
  // Row 0 is a multiple of 0.05: 1/60 reproduces it to float precision.
  EXPECT_THAT(q.scales, ElementsAre(0x1.11111p-6f, 0x1.38095ep-9f));
}

TEST(GroupQuantizerTest, HalfScalesAreStoredAndUsedRounded) {
  QuantizedTensor q =
      quantizeOrDie(kWeight, 2, 8, {4, 4, false, FloatType::F16});
  EXPECT_THAT(valuesOf(q), ElementsAre(3, -8, 1, 0, 6, -1, 2, -6, //
                                       3, 7, -2, 5, 4, 2, 6, 5));
  EXPECT_THAT(q.scales,
              ElementsAre(0x1.41p-3f, 0x1.5fp-2f, 0x1.804p-8f, 0x1.998p-5f));
  for (float scale : q.scales)
    EXPECT_EQ(roundToFloatType(scale, FloatType::F16), scale);
  EXPECT_EQ(dequantize(q)[6], 2 * 0x1.5fp-2f);
}

TEST(GroupQuantizerTest, AsymmetricInt8HalfScales) {
  QuantizedTensor q =
      quantizeOrDie(kWeight, 2, 8, {8, 4, true, FloatType::F16});
  EXPECT_THAT(valuesOf(q), ElementsAre(255, 0, 197, 182, 255, 112, 178, 0, //
                                       153, 255, 0, 204, 170, 85, 255, 212));
  EXPECT_THAT(q.zeroPoints, ElementsAre(182, 131, 51, 0));
  EXPECT_THAT(q.scales,
              ElementsAre(0.006862640380859375f, 0.016082763671875f,
                          0.00019609928131103516f, 0.0011768341064453125f));
}

TEST(GroupQuantizerTest, AllZeroGroupsDequantizeToZero) {
  std::vector<float> zeros(16, 0.0f);
  for (bool asymmetric : {false, true}) {
    QuantizedTensor q = quantizeOrDie(zeros, 2, 8, {4, 4, asymmetric});
    EXPECT_THAT(q.scales, ElementsAre(1.0f, 1.0f, 1.0f, 1.0f));
    EXPECT_THAT(dequantize(q), ElementsAreArray(zeros));
  }
}

//===----------------------------------------------------------------------===//
// Error bounds on random weights
//===----------------------------------------------------------------------===//

std::vector<float> randomWeight(int64_t count, unsigned seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> values(count);
  for (float &value : values)
    value = normal(engine);
  return values;
}

/// The squared error of the plain formulas (scale = max|w| / (2^(b-1) - 1)
/// in [-qmax, qmax], or min/max asymmetric) on one group: the search's first
/// candidates, so it is never better than the search.
double plainSquaredError(llvm::ArrayRef<float> group, const QuantScheme &s) {
  float lo = 0, hi = 0, amax = 0;
  for (float value : group) {
    lo = std::min(lo, value);
    hi = std::max(hi, value);
    amax = std::max(amax, std::fabs(value));
  }
  float levels = static_cast<float>(s.asymmetric ? (1 << s.bits) - 1
                                                 : (1 << (s.bits - 1)) - 1);
  float scale =
      roundToFloatType((s.asymmetric ? hi - lo : amax) / levels, s.scaleType);
  float zp = s.asymmetric ? std::round(-lo / scale) : 0.0f;
  double error = 0;
  for (float value : group) {
    float q = std::round(value / scale) + zp;
    q = s.asymmetric ? std::clamp(q, 0.0f, levels)
                     : std::clamp(q, -levels, levels);
    double diff = (q - zp) * scale - value;
    error += diff * diff;
  }
  return error;
}

TEST(GroupQuantizerTest, RoundTripErrorIsBounded) {
  const int64_t rows = 16, cols = 256;
  std::vector<float> weight = randomWeight(rows * cols, 7);
  for (int64_t bits : {4, 8})
    for (bool asymmetric : {false, true})
      for (int64_t group : {32, 64, 0})
        for (FloatType scaleType : {FloatType::F32, FloatType::BF16}) {
          QuantScheme scheme{bits, group, asymmetric, scaleType};
          QuantizedTensor q = quantizeOrDie(weight, rows, cols, scheme);
          std::vector<float> back = dequantize(q);
          double error2 = 0, norm2 = 0, plain2 = 0;
          for (int64_t i = 0; i < rows * cols; ++i) {
            float scale =
                q.scales[(i / cols) * q.groups + (i % cols) / q.groupSize];
            // Half a step inside the range; a positive extreme the search
            // chose to clip (8.9 levels to 7) is under 2.5 steps off.
            ASSERT_LE(std::fabs(back[i] - weight[i]), 2.5f * scale)
                << "element " << i << " of " << bits << "-bit group " << group
                << (asymmetric ? " asym" : " sym");
            error2 += (back[i] - weight[i]) * (back[i] - weight[i]);
            norm2 += weight[i] * weight[i];
          }
          for (int64_t start = 0; start < rows * cols; start += q.groupSize)
            plain2 += plainSquaredError(
                llvm::ArrayRef(weight).slice(start, q.groupSize), scheme);
          EXPECT_LE(error2, plain2 * (1 + 1e-6))
              << "the search never loses to the plain formula";
          // Uniform rounding error: RMS about step / sqrt(12).
          double relative = std::sqrt(error2 / norm2);
          EXPECT_LT(relative, bits == 8 ? 0.01 : 0.12)
              << bits << "-bit group " << group;
        }
}

/// The search GroupQuantizer.h describes, one candidate at a time: what the
/// vectorized search (all candidates at once) must reproduce bit for bit.
struct PlainChoice {
  std::vector<float> q;
  float scale = 1, zeroPoint = 0;
};
PlainChoice plainSearch(llvm::ArrayRef<float> values,
                        const QuantScheme &scheme) {
  float qmin = scheme.minValue(), qmax = scheme.maxValue();
  auto stored = [&](float exact) {
    float scale = roundToFloatType(exact, scheme.scaleType);
    if (scale <= 0)
      return smallestPositive(scheme.scaleType);
    return std::isfinite(scale) ? scale : largestFinite(scheme.scaleType);
  };
  auto errorOf = [&](const PlainChoice &choice) {
    double error = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      double diff =
          double((choice.q[i] - choice.zeroPoint) * choice.scale) - values[i];
      error += diff * diff;
    }
    return error;
  };
  std::optional<PlainChoice> best;
  double bestError = 0;
  auto consider = [&](const PlainChoice &candidate, double error) {
    if (!best || error < bestError) {
      best = candidate;
      bestError = error;
    }
  };
  if (!scheme.asymmetric) {
    float amax = 0;
    double ww = 0;
    for (float v : values) {
      amax = std::max(amax, std::fabs(v));
      ww += double(v) * v;
    }
    if (amax == 0)
      return {std::vector<float>(values.size(), 0.0f)};
    for (float levels : {qmax, qmax + 1})
      for (int step = -9; step <= 9; ++step) {
        float inverse = (levels + 0.1f * step) / amax;
        PlainChoice candidate;
        double qw = 0, qq = 0;
        float chunkQW = 0, chunkQQ = 0;
        for (size_t i = 0; i < values.size(); ++i) {
          float q = std::clamp(std::round(values[i] * inverse), qmin, qmax);
          candidate.q.push_back(q);
          if (scheme.bits == 8) {
            qw += double(q) * values[i];
            qq += double(q) * q;
            continue;
          }
          chunkQW += q * values[i];
          chunkQQ += q * q;
          if ((i + 1) % 64 == 0 || i + 1 == values.size()) {
            qw += chunkQW;
            qq += chunkQQ;
            chunkQW = chunkQQ = 0;
          }
        }
        candidate.scale = stored(float(qw / qq));
        double s = candidate.scale;
        consider(candidate, s * s * qq - 2.0 * s * qw + ww);
      }
    return *best;
  }
  float lo = 0, hi = 0;
  for (float v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo == hi)
    return {std::vector<float>(values.size(), 0.0f)};
  for (int step = 0; step < 16; ++step) {
    float shrink = 1 - 0.02f * step;
    PlainChoice candidate;
    candidate.scale = stored(shrink * (hi - lo) / qmax);
    candidate.zeroPoint =
        std::clamp(std::round(-(shrink * lo) / candidate.scale), 0.0f, qmax);
    for (float v : values)
      candidate.q.push_back(std::clamp(
          std::round(v / candidate.scale) + candidate.zeroPoint, 0.0f, qmax));
    consider(candidate, errorOf(candidate));
  }
  return *best;
}

TEST(GroupQuantizerTest, SearchesAllCandidatesAsOneAtATime) {
  // Random groups with ties at halves, zeros, tiny and huge magnitudes.
  const int64_t rows = 48, cols = 192;
  std::vector<float> weight = randomWeight(rows * cols, 5);
  std::mt19937 rng(7);
  for (size_t i = 0; i < weight.size(); i += 7)
    weight[i] = std::ldexp(float(int(rng() % 33) - 16) * 0.5f,
                           int(rng() % 9) - 4);
  for (size_t i = 3; i < weight.size(); i += 29)
    weight[i] = 0;
  for (size_t i = 0; i < 16; ++i)
    weight[cols + i] = std::ldexp(float(i + 1), -140);
  for (int bits : {4, 8})
    for (bool asymmetric : {false, true})
      // Per-channel (0) sums three 64-element chunks.
      for (int64_t groupSize : {16, 64, 0}) {
        QuantScheme scheme{bits, groupSize, asymmetric, FloatType::F16};
        QuantizedTensor q = quantizeOrDie(weight, rows, cols, scheme);
        int64_t group = q.groupSize;
        for (int64_t row = 0; row < rows; ++row)
          for (int64_t g = 0; g < q.groups; ++g) {
            PlainChoice want = plainSearch(
                llvm::ArrayRef(weight).slice(row * cols + g * group, group),
                scheme);
            int64_t param = row * q.groups + g;
            ASSERT_EQ(q.scales[param], want.scale)
                << bits << "-bit group " << group << " row " << row;
            if (asymmetric) {
              ASSERT_EQ(q.zeroPoints[param], uint8_t(want.zeroPoint));
            }
            for (int64_t i = 0; i < group; ++i)
              ASSERT_EQ(q.getValue(row, g * group + i), int64_t(want.q[i]))
                  << "row " << row << " column " << g * group + i;
          }
      }
}

TEST(GroupQuantizerTest, ThreadCountDoesNotChangeTheResult) {
  // Rows quantize in parallel; one thread must give the same bytes.
  const int64_t rows = 64, cols = 128;
  std::vector<float> weight = randomWeight(rows * cols, 11);
  QuantScheme scheme{4, 32, true, FloatType::F16};
  QuantizedTensor parallel = quantizeOrDie(weight, rows, cols, scheme);
  llvm::ThreadPoolStrategy saved = llvm::parallel::strategy;
  llvm::parallel::strategy = llvm::hardware_concurrency(1);
  QuantizedTensor serial = quantizeOrDie(weight, rows, cols, scheme);
  llvm::parallel::strategy = saved;
  EXPECT_EQ(parallel.values, serial.values);
  EXPECT_EQ(parallel.scales, serial.scales);
  EXPECT_EQ(parallel.zeroPoints, serial.zeroPoints);
}

TEST(GroupQuantizerTest, SmallerGroupsAndAsymmetryReduceError) {
  const int64_t rows = 32, cols = 256;
  std::vector<float> weight = randomWeight(rows * cols, 11);
  auto errorOf = [&](QuantScheme scheme) {
    std::vector<float> back =
        dequantize(quantizeOrDie(weight, rows, cols, scheme));
    double error2 = 0;
    for (size_t i = 0; i < back.size(); ++i)
      error2 += (back[i] - weight[i]) * (back[i] - weight[i]);
    return error2;
  };
  EXPECT_LT(errorOf({4, 32, false}), errorOf({4, 64, false}));
  EXPECT_LT(errorOf({4, 64, false}), errorOf({4, 0, false}));
  EXPECT_LT(errorOf({4, 64, true}), errorOf({4, 64, false}));
  EXPECT_LT(errorOf({8, 0, false}), errorOf({4, 32, true}));
}

TEST(GroupQuantizerTest, GroupOfKIsPerChannel) {
  std::vector<float> weight = randomWeight(4 * 64, 3);
  QuantizedTensor perChannel = quantizeOrDie(weight, 4, 64, {4, 0, false});
  QuantizedTensor wholeRow = quantizeOrDie(weight, 4, 64, {4, 64, false});
  EXPECT_EQ(perChannel.values, wholeRow.values);
  EXPECT_EQ(perChannel.scales, wholeRow.scales);
  EXPECT_EQ(wholeRow.groups, 1);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(GroupQuantizerTest, GroupMustDivideK) {
  std::vector<float> weight(2 * 64, 1.0f);
  EXPECT_THAT(errorOf(quantize(weight, 2, 64, {4, 48, false})),
              HasSubstr("group size 48 does not divide K = 64"));
  EXPECT_THAT(errorOf(quantize(weight, 2, 64, {4, -1, false})),
              HasSubstr("group size must be positive"));
}

TEST(GroupQuantizerTest, RejectsBadBitsSizesAndValues) {
  std::vector<float> weight(16, 1.0f);
  EXPECT_THAT(errorOf(quantize(weight, 2, 8, {3, 0, false})),
              HasSubstr("4 or 8 bits, got 3"));
  EXPECT_THAT(errorOf(quantize(weight, 3, 8, {4, 0, false})),
              HasSubstr("a [3, 8] weight needs 24 values, got 16"));
  weight[9] = NAN;
  EXPECT_THAT(errorOf(quantize(weight, 2, 8, {4, 4, false})),
              HasSubstr("non-finite value at [1, 1]"));
}

//===----------------------------------------------------------------------===//
// 4-bit packing
//===----------------------------------------------------------------------===//

TEST(GroupQuantizerTest, PacksInt4LowNibbleFirst) {
  // Two rows of five: 1, -2, 7, -8, 3 and 15, 0, 8, 4, 9 (unsigned).
  std::vector<uint8_t> values = {1,  0xfe, 7, 0xf8, 3, //
                                 15, 0,    8, 4,    9};
  std::vector<uint8_t> packed = packInt4(values, 2, 5);
  EXPECT_THAT(packed, ElementsAre(0xe1, 0x87, 0x03, 0x0f, 0x48, 0x09));
  std::vector<uint8_t> signedBack = unpackInt4(packed, 2, 5, true);
  EXPECT_THAT(llvm::ArrayRef(signedBack).take_front(5),
              ElementsAre(1, 0xfe, 7, 0xf8, 3));
  std::vector<uint8_t> unsignedBack = unpackInt4(packed, 2, 5, false);
  EXPECT_THAT(llvm::ArrayRef(unsignedBack).drop_front(5),
              ElementsAre(15, 0, 8, 4, 9));
}

TEST(GroupQuantizerTest, PackedQuantizedValuesRoundTrip) {
  std::vector<float> weight = randomWeight(8 * 64, 5);
  QuantizedTensor q = quantizeOrDie(weight, 8, 64, {4, 32, false});
  std::vector<uint8_t> packed = packInt4(q.values, 8, 64);
  EXPECT_EQ(packed.size(), 8u * 32u);
  EXPECT_EQ(unpackInt4(packed, 8, 64, true), q.values);
}

} // namespace
