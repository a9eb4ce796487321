//===- KernelsElementwise.cpp - elementwise kernels -----------------------===//
//
// One row segment at a time: widen the inputs, compute in float32, narrow
// into the output. Because each row goes through a temporary, an output may
// be the very tensor an input is (in place). A single +, -, * or / of f16 or
// bf16 values computed in float32 and rounded once is the correctly rounded
// f16/bf16 operation (float32 has more than twice their precision plus two
// bits), so these kernels are exact IEEE arithmetic of the storage type.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/Kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace llmc::cmodel::kernels {

void binary(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &a = *lane.in(0), &b = *lane.in(1), &y = *lane.out(0);
  const LaneBlock &block = lane.block;
  cmd::Opcode opcode = compute.opcode();
  int64_t n = block.colCount;
  std::vector<float> lhs(n), rhs(n);
  for (int64_t r = block.rowBegin; r < block.rowEnd(); ++r) {
    a.loadBroadcast(r, block.colBegin, n, lhs.data());
    b.loadBroadcast(r, block.colBegin, n, rhs.data());
    switch (opcode) {
    case cmd::ADD:
      for (int64_t i = 0; i < n; ++i)
        lhs[i] += rhs[i];
      break;
    case cmd::MUL:
      for (int64_t i = 0; i < n; ++i)
        lhs[i] *= rhs[i];
      break;
    default: // DIV
      for (int64_t i = 0; i < n; ++i)
        lhs[i] /= rhs[i];
      break;
    }
    y.store(r, block.colBegin, n, lhs.data());
  }
}

static float silu(float x) { return x / (1.0f + std::exp(-x)); }

static float gelu(float x) {
  return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
}

static float geluTanh(float x) {
  float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}

/// COPY: the elements' bits, whatever the type.
static void copy(const LaneView &x, const LaneView &y, const LaneBlock &b) {
  DType type = x.dtype();
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    int64_t from = b.colBegin - x.block.colBegin;
    int64_t to = b.colBegin - y.block.colBegin;
    if (isInt4DType(type) && (from % 2 || to % 2 || b.colCount % 2)) {
      // Nibbles that do not start bytes on both sides move one by one.
      for (int64_t i = 0; i < b.colCount; ++i)
        writeIntElement(type, y.row(r), to + i,
                        readIntElement(type, x.row(r), from + i));
      continue;
    }
    std::memmove(y.row(r) + getDTypeBytes(type, to),
                 x.row(r) + getDTypeBytes(type, from),
                 getDTypeBytes(type, b.colCount));
  }
}

/// CAST to I8/U8: q = clamp(round(x / scale) + zero_point), the division
/// in float32, rounding half away from zero.
static void quantize(const cmd::Compute &compute, const LaneView &x,
                     const LaneView &y, const LaneBlock &b) {
  auto scale = static_cast<float>(compute.scalar());
  auto zeroPoint = static_cast<float>(compute.zero_point());
  bool isSigned = y.dtype() == cmd::DTYPE_I8;
  float qmin = isSigned ? -128.0f : 0.0f, qmax = isSigned ? 127.0f : 255.0f;
  std::vector<float> values(b.colCount);
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, b.colBegin, b.colCount, values.data());
    for (int64_t i = 0; i < b.colCount; ++i) {
      float q = std::clamp(std::round(values[i] / scale) + zeroPoint, qmin,
                           qmax);
      writeIntElement(y.dtype(), y.row(r), b.colBegin - y.block.colBegin + i,
                      static_cast<int32_t>(q));
    }
  }
}

void unary(const cmd::Compute &compute, const LaneOperands &lane) {
  const LaneView &x = *lane.in(0), &y = *lane.out(0);
  const LaneBlock &b = lane.block;
  cmd::Opcode opcode = compute.opcode();
  if (opcode == cmd::COPY)
    return copy(x, y, b);
  if (opcode == cmd::CAST && !isFloatDType(y.dtype()))
    return quantize(compute, x, y, b);
  auto factor = float(compute.scalar());
  bool tanhForm = compute.tanh_approx();
  int64_t n = b.colCount;
  std::vector<float> values(n);
  for (int64_t r = b.rowBegin; r < b.rowEnd(); ++r) {
    x.load(r, b.colBegin, n, values.data());
    float *v = values.data();
    switch (opcode) {
    case cmd::MUL_CONST:
      for (int64_t i = 0; i < n; ++i)
        v[i] *= factor;
      break;
    case cmd::SILU:
      for (int64_t i = 0; i < n; ++i)
        v[i] = silu(v[i]);
      break;
    case cmd::GELU:
      for (int64_t i = 0; i < n; ++i)
        v[i] = tanhForm ? geluTanh(v[i]) : gelu(v[i]);
      break;
    case cmd::RELU:
      for (int64_t i = 0; i < n; ++i)
        v[i] = v[i] < 0.0f ? 0.0f : v[i];
      break;
    case cmd::TANH:
      for (int64_t i = 0; i < n; ++i)
        v[i] = std::tanh(v[i]);
      break;
    default: // CAST: the narrowing store is the whole operation.
      break;
    }
    y.store(r, b.colBegin, n, v);
  }
}

} // namespace llmc::cmodel::kernels
