//===- KernelsNorm.cpp - RMSNorm and LayerNorm kernels --------------------===//
//
// Statistics are accumulated in double: with hidden sizes in the thousands a
// float sum of squares loses digits the 1e-4 tolerance on final logits needs.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/KernelSupport.h"
#include "dialects/top/Interpreter/Parallel.h"

#include <cmath>

namespace llmc::top::kernels {

/// Checks the input and an optional [D] channel vector.
static llvm::Error checkNormOperands(const Tensor &input, const Tensor *weight,
                                     const Tensor *bias) {
  if (llvm::Error error = requireF32(input, "input"))
    return error;
  if (input.getRank() < 1)
    return kernelError("normalized input must have rank >= 1");
  int64_t channels = input.getShape().back();
  for (auto [vector, what] :
       {std::pair(weight, "weight"), std::pair(bias, "bias")}) {
    if (!vector)
      continue;
    if (llvm::Error error = requireF32(*vector, what))
      return error;
    if (vector->getShape() != llvm::ArrayRef<int64_t>(channels))
      return kernelError(llvm::Twine(what) + " " + vector->describe() +
                         " must be [" + llvm::Twine(channels) + "]");
  }
  return llvm::Error::success();
}

/// Rows per work item so that each holds about 16K elements.
static int64_t rowGrain(int64_t channels) {
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(channels, 1));
}

llvm::Expected<Tensor> rmsNorm(const Tensor &input, const Tensor *weight,
                               double eps, const ThreadRunner &runner) {
  if (llvm::Error error = checkNormOperands(input, weight, nullptr))
    return std::move(error);
  Tensor result(ElementKind::F32, input.getShape());
  int64_t channels = input.getShape().back();
  int64_t rows = channels ? input.getNumElements() / channels : 0;
  const float *in = input.getF32().data();
  const float *scale = weight ? weight->getF32().data() : nullptr;
  float *out = result.getF32().data();
  runner.forRanges(rows, rowGrain(channels), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float *x = in + row * channels;
      float *y = out + row * channels;
      double sumSquares = 0.0;
      for (int64_t c = 0; c < channels; ++c)
        sumSquares += double(x[c]) * double(x[c]);
      auto inverse =
          static_cast<float>(1.0 / std::sqrt(sumSquares / channels + eps));
      for (int64_t c = 0; c < channels; ++c)
        y[c] = scale ? (x[c] * inverse) * scale[c] : x[c] * inverse;
    }
  });
  return result;
}

llvm::Expected<Tensor> layerNorm(const Tensor &input, const Tensor *weight,
                                 const Tensor *bias, double eps,
                                 const ThreadRunner &runner) {
  if (llvm::Error error = checkNormOperands(input, weight, bias))
    return std::move(error);
  Tensor result(ElementKind::F32, input.getShape());
  int64_t channels = input.getShape().back();
  int64_t rows = channels ? input.getNumElements() / channels : 0;
  const float *in = input.getF32().data();
  const float *scale = weight ? weight->getF32().data() : nullptr;
  const float *shift = bias ? bias->getF32().data() : nullptr;
  float *out = result.getF32().data();
  runner.forRanges(rows, rowGrain(channels), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float *x = in + row * channels;
      float *y = out + row * channels;
      double sum = 0.0;
      for (int64_t c = 0; c < channels; ++c)
        sum += x[c];
      double mean = sum / channels;
      // Two passes: the variance of centred values does not cancel.
      double sumSquares = 0.0;
      for (int64_t c = 0; c < channels; ++c)
        sumSquares += (x[c] - mean) * (x[c] - mean);
      double inverse = 1.0 / std::sqrt(sumSquares / channels + eps);
      for (int64_t c = 0; c < channels; ++c) {
        auto normalized = static_cast<float>((x[c] - mean) * inverse);
        if (scale)
          normalized *= scale[c];
        if (shift)
          normalized += shift[c];
        y[c] = normalized;
      }
    }
  });
  return result;
}

} // namespace llmc::top::kernels
