//===- Resize.cpp - PIL's bicubic resize of 8-bit images ------------------===//
//
// Follows Pillow's libImaging/Resample.c (precompute_coeffs,
// normalize_coeffs_8bpc, ImagingResampleHorizontal_8bpc / Vertical_8bpc).
//
//===----------------------------------------------------------------------===//

#include "runtime/vision/Resize.h"

#include <algorithm>
#include <cmath>

namespace llmc::vision {

namespace {

/// Fractional bits of the fixed-point weights: 32 bits less 8 for the
/// pixel and 2 for the sum's headroom.
constexpr int kPrecisionBits = 32 - 8 - 2;

double bicubic(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0)
    return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0)
    return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

/// For each output pixel of one axis: the first input pixel it reads, how
/// many, and their fixed-point weights (`taps` a pixel).
struct Coefficients {
  int taps = 0;
  std::vector<int> first;
  std::vector<int> count;
  std::vector<int32_t> weights;
};

Coefficients computeCoefficients(int64_t inSize, int64_t outSize) {
  constexpr double kSupport = 2.0;
  double scale = static_cast<double>(static_cast<float>(inSize)) / outSize;
  double filterScale = std::max(scale, 1.0);
  double support = kSupport * filterScale;
  Coefficients result;
  result.taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  result.first.resize(outSize);
  result.count.resize(outSize);
  result.weights.assign(outSize * result.taps, 0);
  std::vector<double> weights(result.taps);
  for (int64_t out = 0; out < outSize; ++out) {
    double center = (out + 0.5) * scale;
    int first = std::max(static_cast<int>(center - support + 0.5), 0);
    int last = std::min(static_cast<int>(center + support + 0.5),
                        static_cast<int>(inSize));
    int count = last - first;
    double sum = 0;
    for (int tap = 0; tap < count; ++tap) {
      weights[tap] = bicubic((tap + first - center + 0.5) / filterScale);
      sum += weights[tap];
    }
    for (int tap = 0; tap < count; ++tap) {
      double weight = sum != 0.0 ? weights[tap] / sum : weights[tap];
      double fixed = weight * (1 << kPrecisionBits);
      result.weights[out * result.taps + tap] =
          static_cast<int32_t>(fixed < 0 ? fixed - 0.5 : fixed + 0.5);
    }
    result.first[out] = first;
    result.count[out] = count;
  }
  return result;
}

uint8_t clip8(int32_t value) {
  if (value >= (1 << kPrecisionBits << 8))
    return 255;
  if (value <= 0)
    return 0;
  return static_cast<uint8_t>(value >> kPrecisionBits);
}

/// One pass: `image` resampled along x (`horizontal`) or y to `outSize`.
Image resamplePass(const Image &image, int64_t outSize, bool horizontal) {
  int64_t inSize = horizontal ? image.width : image.height;
  Coefficients coefficients = computeCoefficients(inSize, outSize);
  Image out(horizontal ? outSize : image.width,
            horizontal ? image.height : outSize);
  for (int64_t y = 0; y < out.height; ++y) {
    for (int64_t x = 0; x < out.width; ++x) {
      int64_t index = horizontal ? x : y;
      const int32_t *weights =
          &coefficients.weights[index * coefficients.taps];
      int first = coefficients.first[index];
      int32_t sums[3] = {1 << (kPrecisionBits - 1), 1 << (kPrecisionBits - 1),
                         1 << (kPrecisionBits - 1)};
      for (int tap = 0; tap < coefficients.count[index]; ++tap) {
        const uint8_t *in = horizontal ? image.pixel(first + tap, y)
                                       : image.pixel(x, first + tap);
        for (int channel = 0; channel < 3; ++channel)
          sums[channel] += in[channel] * weights[tap];
      }
      uint8_t *target = out.pixel(x, y);
      for (int channel = 0; channel < 3; ++channel)
        target[channel] = clip8(sums[channel]);
    }
  }
  return out;
}

} // namespace

Image resizeBicubic(const Image &image, int64_t width, int64_t height) {
  Image result = image;
  if (width != image.width)
    result = resamplePass(result, width, /*horizontal=*/true);
  if (height != image.height)
    result = resamplePass(result, height, /*horizontal=*/false);
  return result;
}

} // namespace llmc::vision
