//===- KernelsElementwise.cpp - broadcast arithmetic and activations ------===//

#include "dialects/top/Interpreter/KernelSupport.h"
#include "dialects/top/Interpreter/Parallel.h"

#include <algorithm>
#include <cmath>

namespace llmc::top::kernels {

/// Elements per work item of elementwise loops.
static constexpr int64_t kGrain = 16384;

llvm::Expected<Tensor> broadcastBinary(BinaryOp op, const Tensor &lhs,
                                       const Tensor &rhs,
                                       const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(lhs, "lhs"))
    return std::move(error);
  if (llvm::Error error = requireF32(rhs, "rhs"))
    return std::move(error);
  llvm::Expected<Dims> shape = broadcastShapes(lhs.getShape(), rhs.getShape());
  if (!shape)
    return shape.takeError();
  Tensor result(ElementKind::F32, *shape);
  if (result.getNumElements() == 0)
    return result;

  // Rows of the last dimension; within a row each operand either advances
  // or repeats one element.
  int64_t width = shape->back();
  int64_t rows = result.getNumElements() / width;
  Dims lhsStrides = broadcastStrides(lhs.getShape(), *shape);
  Dims rhsStrides = broadcastStrides(rhs.getShape(), *shape);
  int64_t lhsStep = lhsStrides.back(), rhsStep = rhsStrides.back();
  llvm::ArrayRef<int64_t> rowShape = llvm::ArrayRef(*shape).drop_back();
  const float *a = lhs.getF32().data();
  const float *b = rhs.getF32().data();
  float *out = result.getF32().data();
  int64_t grain = std::max<int64_t>(1, kGrain / width);
  runner.forRanges(rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float *x = a + offsetOf(row, rowShape, lhsStrides);
      const float *y = b + offsetOf(row, rowShape, rhsStrides);
      float *z = out + row * width;
      switch (op) {
      case BinaryOp::Add:
        for (int64_t i = 0; i < width; ++i)
          z[i] = x[i * lhsStep] + y[i * rhsStep];
        break;
      case BinaryOp::Mul:
        for (int64_t i = 0; i < width; ++i)
          z[i] = x[i * lhsStep] * y[i * rhsStep];
        break;
      case BinaryOp::Div:
        for (int64_t i = 0; i < width; ++i)
          z[i] = x[i * lhsStep] / y[i * rhsStep];
        break;
      }
    }
  });
  return result;
}

llvm::Expected<Tensor> mulConst(const Tensor &input, double factor,
                                const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  Tensor result(ElementKind::F32, input.getShape());
  llvm::ArrayRef<float> in = input.getF32();
  llvm::MutableArrayRef<float> out = result.getF32();
  runner.forRanges(in.size(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = static_cast<float>(in[i] * factor);
  });
  return result;
}

llvm::Expected<Tensor> fakeQuant(const Tensor &input,
                                 const FakeQuantParams &params,
                                 const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  Tensor result(ElementKind::F32, input.getShape());
  llvm::ArrayRef<float> in = input.getF32();
  llvm::MutableArrayRef<float> out = result.getF32();
  auto zeroPoint = static_cast<float>(params.zeroPoint);
  auto qmin = static_cast<float>(params.qmin);
  auto qmax = static_cast<float>(params.qmax);
  runner.forRanges(in.size(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float q = std::round(in[i] / params.scale) + zeroPoint;
      out[i] = (std::clamp(q, qmin, qmax) - zeroPoint) * params.scale;
    }
  });
  return result;
}

float applyActivation(Activation activation, float value) {
  double x = value;
  switch (activation) {
  case Activation::SiLU: return static_cast<float>(x / (1.0 + std::exp(-x)));
  case Activation::GELU:
    return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
  case Activation::GELUTanh: {
    constexpr double kSqrt2OverPi = 0.79788456080286535588;
    return static_cast<float>(
        0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x))));
  }
  case Activation::ReLU: return value < 0.0f ? 0.0f : value;
  case Activation::Sigmoid:
    return static_cast<float>(1.0 / (1.0 + std::exp(-x)));
  case Activation::Tanh: return static_cast<float>(std::tanh(x));
  }
  return value;
}

llvm::Expected<Tensor> activate(const Tensor &input, Activation activation,
                                const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  Tensor result(ElementKind::F32, input.getShape());
  llvm::ArrayRef<float> in = input.getF32();
  llvm::MutableArrayRef<float> out = result.getF32();
  runner.forRanges(in.size(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = applyActivation(activation, in[i]);
  });
  return result;
}

llvm::Expected<Tensor> sqrt(const Tensor &input, const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  Tensor result(ElementKind::F32, input.getShape());
  llvm::ArrayRef<float> in = input.getF32();
  llvm::MutableArrayRef<float> out = result.getF32();
  runner.forRanges(in.size(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = std::sqrt(in[i]);
  });
  return result;
}

llvm::Expected<Tensor> power(const Tensor &input, double exponent,
                             const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  Tensor result(ElementKind::F32, input.getShape());
  llvm::ArrayRef<float> in = input.getF32();
  llvm::MutableArrayRef<float> out = result.getF32();
  bool square = exponent == 2.0;
  auto power = static_cast<float>(exponent);
  runner.forRanges(in.size(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = square ? in[i] * in[i] : std::pow(in[i], power);
  });
  return result;
}

} // namespace llmc::top::kernels
