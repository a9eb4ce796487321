//===- KernelsReduce.cpp - softmax, cumsum, arg and top-k along one axis --===//

#include "dialects/top/Interpreter/KernelSupport.h"
#include "dialects/top/Interpreter/Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace llmc::top::kernels {

llvm::Expected<Tensor> softmax(const Tensor &input, int64_t axis,
                               const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  llvm::Expected<int64_t> dim = normalizeAxis(axis, input.getRank());
  if (!dim)
    return dim.takeError();
  AxisSplit split = splitAtAxis(input.getShape(), *dim);
  Tensor result(ElementKind::F32, input.getShape());
  const float *in = input.getF32().data();
  float *out = result.getF32().data();
  int64_t grain =
      std::max<int64_t>(1, 16384 / std::max<int64_t>(split.size, 1));
  runner.forRanges(
      split.outer * split.inner, grain, [&](int64_t begin, int64_t end) {
        for (int64_t line = begin; line < end; ++line) {
          int64_t base = (line / split.inner) * split.size * split.inner +
                         line % split.inner;
          const float *x = in + base;
          float *y = out + base;
          float maximum = -std::numeric_limits<float>::infinity();
          for (int64_t i = 0; i < split.size; ++i)
            maximum = std::max(maximum, x[i * split.inner]);
          double sum = 0.0;
          for (int64_t i = 0; i < split.size; ++i)
            sum += std::exp(double(x[i * split.inner]) - maximum);
          for (int64_t i = 0; i < split.size; ++i)
            y[i * split.inner] = static_cast<float>(
                std::exp(double(x[i * split.inner]) - maximum) / sum);
        }
      });
  return result;
}

llvm::Expected<Tensor> cumSum(const Tensor &input, int64_t axis,
                              bool exclusive, bool reverse) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  llvm::Expected<int64_t> dim = normalizeAxis(axis, input.getRank());
  if (!dim)
    return dim.takeError();
  AxisSplit split = splitAtAxis(input.getShape(), *dim);
  Tensor result(ElementKind::F32, input.getShape());
  const float *in = input.getF32().data();
  float *out = result.getF32().data();
  for (int64_t line = 0; line < split.outer * split.inner; ++line) {
    int64_t base =
        (line / split.inner) * split.size * split.inner + line % split.inner;
    double sum = 0.0;
    for (int64_t step = 0; step < split.size; ++step) {
      int64_t i = reverse ? split.size - 1 - step : step;
      int64_t at = base + i * split.inner;
      // One running sum serves both forms, so an exclusive output equals
      // the inclusive output of the previous position bit for bit.
      if (exclusive)
        out[at] = static_cast<float>(sum);
      sum += in[at];
      if (!exclusive)
        out[at] = static_cast<float>(sum);
    }
  }
  return result;
}

llvm::Expected<Tensor> reduceMean(const Tensor &input,
                                  llvm::ArrayRef<int64_t> axes, bool keepDims) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  if (axes.empty())
    return kernelError("reduce_mean needs at least one axis");
  Dims kept = llvm::to_vector<4>(input.getShape());
  llvm::SmallVector<bool, 4> reduced(input.getRank(), false);
  for (int64_t axis : axes) {
    llvm::Expected<int64_t> dim = normalizeAxis(axis, input.getRank());
    if (!dim)
      return dim.takeError();
    if (reduced[*dim])
      return kernelError("axes name dimension " + llvm::Twine(*dim) +
                         " more than once");
    reduced[*dim] = true;
    kept[*dim] = 1;
  }
  // Every input element adds to the output element at its position with the
  // reduced coordinates zeroed: strides of the kept shape, 0 where reduced.
  Dims strides = llvm::to_vector<4>(getRowMajorStrides(kept));
  for (auto [stride, isReduced] : llvm::zip(strides, reduced))
    if (isReduced)
      stride = 0;
  int64_t outputs = getElementCount(kept);
  int64_t count = outputs ? input.getNumElements() / outputs : 0;
  std::vector<double> sums(outputs, 0.0);
  llvm::ArrayRef<float> in = input.getF32();
  for (int64_t i = 0, e = in.size(); i < e; ++i)
    sums[offsetOf(i, input.getShape(), strides)] += in[i];
  Dims shape;
  for (auto [dim, isReduced] : llvm::zip(kept, reduced))
    if (!isReduced || keepDims)
      shape.push_back(dim);
  Tensor result(ElementKind::F32, shape);
  for (int64_t i = 0; i < outputs; ++i)
    result.getF32()[i] = static_cast<float>(sums[i] / count);
  return result;
}

/// Whether `a` ranks above `b` when NaN ranks above every number.
static bool ranksAbove(float a, float b) {
  if (std::isnan(a))
    return !std::isnan(b);
  return !std::isnan(b) && a > b;
}

llvm::Expected<Tensor> argExtreme(const Tensor &input, int64_t axis,
                                  bool keepDims, bool max) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  llvm::Expected<int64_t> dim = normalizeAxis(axis, input.getRank());
  if (!dim)
    return dim.takeError();
  AxisSplit split = splitAtAxis(input.getShape(), *dim);
  if (split.size == 0)
    return kernelError("cannot take the arg of an empty axis of " +
                       input.describe());
  Dims shape = llvm::to_vector<4>(input.getShape());
  if (keepDims)
    shape[*dim] = 1;
  else
    shape.erase(shape.begin() + *dim);
  Tensor result(ElementKind::I32, shape);
  const float *in = input.getF32().data();
  int32_t *out = result.getI32().data();
  for (int64_t line = 0; line < split.outer * split.inner; ++line) {
    const float *x = in + (line / split.inner) * split.size * split.inner +
                     line % split.inner;
    int64_t best = 0;
    for (int64_t i = 1; i < split.size; ++i) {
      float candidate = x[i * split.inner], current = x[best * split.inner];
      // Only a strictly better value moves the answer: the first extreme
      // wins ties, and the first NaN wins outright.
      if (std::isnan(current))
        break;
      if (std::isnan(candidate) ||
          (max ? candidate > current : candidate < current))
        best = i;
    }
    out[line] = static_cast<int32_t>(best);
  }
  return result;
}

llvm::Expected<std::pair<Tensor, Tensor>> topK(const Tensor &input, int64_t k,
                                               int64_t axis, bool largest) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  llvm::Expected<int64_t> dim = normalizeAxis(axis, input.getRank());
  if (!dim)
    return dim.takeError();
  AxisSplit split = splitAtAxis(input.getShape(), *dim);
  if (k <= 0 || k > split.size)
    return kernelError("k = " + llvm::Twine(k) + " must be in [1, " +
                       llvm::Twine(split.size) + "]");
  Dims shape = llvm::to_vector<4>(input.getShape());
  shape[*dim] = k;
  Tensor values(ElementKind::F32, shape);
  Tensor indices(ElementKind::I32, shape);
  const float *in = input.getF32().data();
  std::vector<int32_t> order(split.size);
  for (int64_t line = 0; line < split.outer * split.inner; ++line) {
    int64_t base =
        (line / split.inner) * split.size * split.inner + line % split.inner;
    const float *x = in + base;
    auto before = [&](int32_t a, int32_t b) {
      float va = x[a * split.inner], vb = x[b * split.inner];
      if (largest ? ranksAbove(va, vb) : ranksAbove(vb, va))
        return true;
      if (largest ? ranksAbove(vb, va) : ranksAbove(va, vb))
        return false;
      return a < b;
    };
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    int64_t outBase =
        (line / split.inner) * k * split.inner + line % split.inner;
    for (int64_t i = 0; i < k; ++i) {
      values.getF32()[outBase + i * split.inner] = x[order[i] * split.inner];
      indices.getI32()[outBase + i * split.inner] = order[i];
    }
  }
  return std::make_pair(std::move(values), std::move(indices));
}

} // namespace llmc::top::kernels
