//===- HostRowwise.cpp - row-wise commands on the host --------------------===//
//
// Every row-wise opcode computes one output row from the same row of its
// inputs (or a broadcast row), so rows spread over the threads; each row is
// widened to f32, computed and narrowed once.
//
//===----------------------------------------------------------------------===//

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/DType.h"
#include "backends/common/cmodel/Kernels.h"
#include "backends/common/cmodel/Trap.h"
#include "backends/host/device/HostCommands.h"
#include "backends/host/kernels/WorkerPool.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace llmc::host {
namespace {

/// Runs `rowFn(r, a, b, out)` for every output row, on f32 rows: `a` and
/// `b` hold inputs 0 and 1 widened over the output's columns (b null when
/// there is one input), `out` receives the row to narrow.
template <typename RowFn>
void forEachRow(const HostOperands &operands, WorkerPool &pool, RowFn rowFn) {
  const TensorRef &y = operands.out(0);
  int64_t cols = y.cols();
  bool binary = operands.inputs.size() > 1;
  int64_t grain = getRowGrain(cols);
  pool.parallelFor(y.rows(), grain, [&](int64_t begin, int64_t end) {
    float *a = getBuffer(Buffer::RowA, cols);
    float *b = binary ? getBuffer(Buffer::RowB, cols) : nullptr;
    float *out = getBuffer(Buffer::RowOut, cols);
    for (int64_t r = begin; r < end; ++r) {
      operands.in(0).widenRow(r, cols, a);
      if (binary)
        operands.in(1).widenRow(r, cols, b);
      rowFn(r, a, b, out);
      y.narrowRow(r, out);
    }
  });
}

float gelu(float x, bool tanhApprox) {
  if (tanhApprox)
    return 0.5f * x *
           (1.0f + std::tanh(0.79788456f * (x + 0.044715f * x * x * x)));
  return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
}

absl::Status runUnary(const cmd::Compute &compute, const HostOperands &operands,
                      WorkerPool &pool) {
  int64_t cols = operands.out(0).cols();
  auto map = [&](auto fn) {
    forEachRow(operands, pool, [&](int64_t, const float *x, const float *,
                                   float *y) {
      for (int64_t c = 0; c < cols; ++c)
        y[c] = fn(x[c]);
    });
  };
  switch (compute.opcode()) {
  case cmd::MUL_CONST: {
    auto factor = static_cast<float>(compute.scalar());
    map([&](float x) { return x * factor; });
    break;
  }
  case cmd::SILU:
    map([](float x) { return x / (1.0f + std::exp(-x)); });
    break;
  case cmd::GELU:
    map([&](float x) { return gelu(x, compute.tanh_approx()); });
    break;
  case cmd::RELU:
    map([](float x) { return x < 0 ? 0.0f : x; });
    break;
  case cmd::TANH:
    map([](float x) { return std::tanh(x); });
    break;
  default:
    return commandError("not a unary opcode");
  }
  return absl::OkStatus();
}

absl::Status runBinary(const cmd::Compute &compute,
                       const HostOperands &operands, WorkerPool &pool) {
  int64_t cols = operands.out(0).cols();
  auto zip = [&](auto fn) {
    forEachRow(operands, pool,
               [&](int64_t, const float *a, const float *b, float *y) {
                 for (int64_t c = 0; c < cols; ++c)
                   y[c] = fn(a[c], b[c]);
               });
  };
  switch (compute.opcode()) {
  case cmd::ADD:
    zip([](float a, float b) { return a + b; });
    break;
  case cmd::MUL:
    zip([](float a, float b) { return a * b; });
    break;
  case cmd::DIV:
    zip([](float a, float b) { return a / b; });
    break;
  default:
    return commandError("not a binary opcode");
  }
  return absl::OkStatus();
}

/// The present optional input `index` as a [1, group] row, or `fill`.
static absl::StatusOr<std::vector<float>>
readGroupRow(const HostOperands &operands, size_t index, int64_t group,
             float fill) {
  std::vector<float> row(group, fill);
  if (operands.inputs.size() <= index || !operands.in(index).present())
    return row;
  if (operands.in(index).cols() != group)
    return commandError("the weight and bias must be [1, group]");
  operands.in(index).widenRow(0, group, row.data());
  return row;
}

/// What RMSNORM and LAYERNORM share: the row's columns, the columns each
/// normalizes together (`group`, or the row), and the [1, group] weight
/// (ones when absent).
struct NormGroup {
  int64_t cols;
  int64_t group;
  std::vector<float> weight;
};

static absl::StatusOr<NormGroup> readNormGroup(const cmd::Compute &compute,
                                               const HostOperands &operands) {
  int64_t cols = operands.out(0).cols();
  int64_t group = compute.group() ? compute.group() : cols;
  if (cols % group)
    return commandError("the group must divide the row");
  absl::StatusOr<std::vector<float>> weight =
      readGroupRow(operands, 1, group, 1);
  if (!weight.ok())
    return weight.status();
  return NormGroup{cols, group, std::move(*weight)};
}

absl::Status runRmsNorm(const cmd::Compute &compute,
                        const HostOperands &operands, WorkerPool &pool) {
  absl::StatusOr<NormGroup> norm = readNormGroup(compute, operands);
  if (!norm.ok())
    return norm.status();
  const TensorRef &y = operands.out(0);
  int64_t cols = norm->cols, group = norm->group;
  const std::vector<float> &w = norm->weight;
  auto eps = static_cast<float>(compute.eps());
  HostOperands xOnly{{operands.in(0)}, {y}};
  forEachRow(xOnly, pool, [&](int64_t, const float *x, const float *,
                              float *out) {
    for (int64_t g = 0; g < cols; g += group) {
      // In the documented order (16 partial sums), which vectorizes: a
      // double-precision chain took about 2 us a decode step's call.
      float squares = cmodel::kernels::dot16(x + g, x + g, group);
      float inverse = 1.0f / std::sqrt(squares / group + eps);
      for (int64_t c = 0; c < group; ++c)
        out[g + c] = x[g + c] * inverse * w[c];
    }
  });
  return absl::OkStatus();
}

absl::Status runLayerNorm(const cmd::Compute &compute,
                          const HostOperands &operands, WorkerPool &pool) {
  absl::StatusOr<NormGroup> norm = readNormGroup(compute, operands);
  if (!norm.ok())
    return norm.status();
  const TensorRef &y = operands.out(0);
  int64_t cols = norm->cols, group = norm->group;
  absl::StatusOr<std::vector<float>> bias = readGroupRow(operands, 2, group, 0);
  if (!bias.ok())
    return bias.status();
  const std::vector<float> &w = norm->weight, &b = *bias;
  bool hasBias = operands.inputs.size() > 2 && operands.in(2).present();
  auto eps = static_cast<float>(compute.eps());
  HostOperands xOnly{{operands.in(0)}, {y}};
  forEachRow(xOnly, pool, [&](int64_t, const float *x, const float *,
                              float *out) {
    for (int64_t g = 0; g < cols; g += group) {
      // The documented order, as RMSNORM: the cmodel's results bit for bit.
      float mean = cmodel::kernels::sum16(x + g, group) / group;
      for (int64_t c = 0; c < group; ++c)
        out[g + c] = x[g + c] - mean;
      float variance = cmodel::kernels::dot16(out + g, out + g, group) / group;
      float inverse = 1.0f / std::sqrt(variance + eps);
      for (int64_t c = 0; c < group; ++c) {
        float scaled = out[g + c] * inverse * w[c];
        out[g + c] = hasBias ? scaled + b[c] : scaled;
      }
    }
  });
  return absl::OkStatus();
}

absl::Status runRope(const cmd::Compute &compute, const HostOperands &operands,
                     WorkerPool &pool) {
  const TensorRef &x = operands.in(0), &cosines = operands.in(1),
                  &sines = operands.in(2), &y = operands.out(0);
  int64_t d = compute.group(), rotated = cosines.cols();
  if (d <= 0 || y.cols() % d || rotated > d || rotated % 2 ||
      sines.cols() != rotated)
    return commandError("rope needs x [L, H * D] and cos, sin [L, R], R even "
                        "and at most D = group");
  int64_t cols = y.cols(), half = rotated / 2;
  bool interleaved = compute.interleaved();
  pool.parallelFor(y.rows(), 16, [&](int64_t begin, int64_t end) {
    std::vector<float> in(cols), out(cols), c(rotated), s(rotated);
    for (int64_t r = begin; r < end; ++r) {
      x.widenRow(r, cols, in.data());
      cosines.widenRow(r, rotated, c.data());
      sines.widenRow(r, rotated, s.data());
      out = in;
      for (int64_t head = 0; head < cols; head += d)
        for (int64_t i = 0; i < half; ++i) {
          int64_t a = interleaved ? 2 * i : i;
          int64_t b = interleaved ? 2 * i + 1 : i + half;
          float xa = in[head + a], xb = in[head + b];
          out[head + a] = xa * c[a] - xb * s[a];
          out[head + b] = xb * c[b] + xa * s[b];
        }
      y.narrowRow(r, out.data());
    }
  });
  return absl::OkStatus();
}

absl::Status runSoftmax(const HostOperands &operands, WorkerPool &pool) {
  int64_t cols = operands.out(0).cols();
  forEachRow(operands, pool, [&](int64_t, const float *x, const float *,
                                 float *y) {
    float max = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      max = std::max(max, x[c]);
    if (max == -INFINITY) {
      std::fill(y, y + cols, 0.0f);
      return;
    }
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += y[c] = std::exp(x[c] - max);
    auto inverse = static_cast<float>(1 / sum);
    for (int64_t c = 0; c < cols; ++c)
      y[c] *= inverse;
  });
  return absl::OkStatus();
}

absl::Status runCumSum(const cmd::Compute &compute,
                       const HostOperands &operands, WorkerPool &pool) {
  int64_t cols = operands.out(0).cols();
  forEachRow(operands, pool, [&](int64_t, const float *x, const float *,
                                 float *y) {
    double sum = 0;
    for (int64_t i = 0; i < cols; ++i) {
      int64_t c = compute.reverse() ? cols - 1 - i : i;
      if (!compute.exclusive())
        sum += x[c];
      y[c] = static_cast<float>(sum);
      if (compute.exclusive())
        sum += x[c];
    }
  });
  return absl::OkStatus();
}

/// Integer elements of row `r` of `tensor` (broadcast as widenRow).
void readIntRow(const TensorRef &tensor, int64_t r, int64_t count,
                int32_t *out) {
  const uint8_t *row = tensor.broadcastRow(r);
  for (int64_t c = 0; c < count; ++c)
    out[c] = cmodel::readIntElement(tensor.dtype(), row,
                                    tensor.cols() == 1 ? 0 : c);
}

bool compare(cmd::Comparison comparison, double a, double b) {
  switch (comparison) {
  case cmd::COMPARISON_EQ:
    return a == b;
  case cmd::COMPARISON_NE:
    return a != b;
  case cmd::COMPARISON_LT:
    return a < b;
  case cmd::COMPARISON_LE:
    return a <= b;
  case cmd::COMPARISON_GT:
    return a > b;
  case cmd::COMPARISON_GE:
    return a >= b;
  default:
    return false;
  }
}

absl::Status runCompare(const cmd::Compute &compute,
                        const HostOperands &operands) {
  const TensorRef &a = operands.in(0), &b = operands.in(1),
                  &y = operands.out(0);
  if (cmodel::isFloatDType(y.dtype()))
    return commandError("COMPARE writes an integer type");
  bool floats = cmodel::isFloatDType(a.dtype());
  int64_t cols = y.cols();
  std::vector<float> fa(cols), fb(cols);
  std::vector<int32_t> ia(cols), ib(cols);
  for (int64_t r = 0; r < y.rows(); ++r) {
    if (floats) {
      a.widenRow(r, cols, fa.data());
      b.widenRow(r, cols, fb.data());
    } else {
      readIntRow(a, r, cols, ia.data());
      readIntRow(b, r, cols, ib.data());
    }
    for (int64_t c = 0; c < cols; ++c) {
      bool holds = floats ? compare(compute.comparison(), fa[c], fb[c])
                          : compare(compute.comparison(), ia[c], ib[c]);
      cmodel::writeIntElement(y.dtype(), y.row(r), c, holds);
    }
  }
  return absl::OkStatus();
}

absl::Status runSelect(const HostOperands &operands) {
  const TensorRef &cond = operands.in(0), &x = operands.in(1),
                  &other = operands.in(2), &z = operands.out(0);
  int64_t bytes = cmodel::getDTypeBits(z.dtype()) / 8;
  if (bytes == 0 || x.dtype() != z.dtype() || other.dtype() != z.dtype())
    return commandError("SELECT chooses among whole-byte elements of z's type");
  std::vector<int32_t> flags(z.cols());
  auto element = [&](const TensorRef &t, int64_t r, int64_t c) {
    return t.broadcastRow(r) + (t.cols() == 1 ? 0 : c) * bytes;
  };
  for (int64_t r = 0; r < z.rows(); ++r) {
    readIntRow(cond, r, z.cols(), flags.data());
    for (int64_t c = 0; c < z.cols(); ++c)
      std::memcpy(z.row(r) + c * bytes,
                  element(flags[c] ? x : other, r, c), bytes);
  }
  return absl::OkStatus();
}

absl::Status runCast(const cmd::Compute &compute, const HostOperands &operands,
                     WorkerPool &pool) {
  const TensorRef &y = operands.out(0);
  if (cmodel::isFloatDType(y.dtype())) {
    forEachRow(operands, pool, [&](int64_t, const float *x, const float *,
                                   float *out) {
      std::copy(x, x + y.cols(), out);
    });
    return absl::OkStatus();
  }
  if (y.dtype() != cmd::DTYPE_I8 && y.dtype() != cmd::DTYPE_U8)
    return commandError("CAST writes a float type, I8 or U8");
  if (compute.scalar() <= 0)
    return commandError("quantizing CAST needs a positive scale");
  auto scale = static_cast<float>(compute.scalar());
  int32_t low = y.dtype() == cmd::DTYPE_I8 ? -128 : 0;
  int32_t high = y.dtype() == cmd::DTYPE_I8 ? 127 : 255;
  std::vector<float> x(y.cols());
  for (int64_t r = 0; r < y.rows(); ++r) {
    operands.in(0).widenRow(r, y.cols(), x.data());
    for (int64_t c = 0; c < y.cols(); ++c) {
      double q = std::round(x[c] / scale) + compute.zero_point();
      cmodel::writeIntElement(
          y.dtype(), y.row(r), c,
          static_cast<int32_t>(std::clamp<double>(q, low, high)));
    }
  }
  return absl::OkStatus();
}

} // namespace

absl::Status runRowwise(const cmd::Compute &compute,
                        const HostOperands &operands, WorkerPool &pool) {
  if (operands.inputs.empty() || operands.outputs.empty() ||
      !operands.in(0).present() || !operands.out(0).present())
    return commandError("needs an input and an output");
  const TensorRef &y = operands.out(0);
  for (const TensorRef &input : operands.inputs)
    if (input.present() && input.rows() != y.rows() && input.rows() != 1)
      return commandError("an input has neither y's rows nor one row");
  bool floatOutput = cmodel::isFloatDType(y.dtype());
  switch (compute.opcode()) {
  case cmd::ADD:
  case cmd::MUL:
  case cmd::DIV:
    if (!floatOutput || operands.inputs.size() != 2)
      return commandError("takes two float inputs");
    return runBinary(compute, operands, pool);
  case cmd::MUL_CONST:
  case cmd::SILU:
  case cmd::GELU:
  case cmd::RELU:
  case cmd::TANH:
    if (!floatOutput)
      return commandError("writes a float type");
    return runUnary(compute, operands, pool);
  case cmd::RMSNORM:
    return runRmsNorm(compute, operands, pool);
  case cmd::LAYERNORM:
    return runLayerNorm(compute, operands, pool);
  case cmd::ROPE:
    if (operands.inputs.size() != 3)
      return commandError("takes x, cos and sin");
    return runRope(compute, operands, pool);
  case cmd::SOFTMAX:
    return runSoftmax(operands, pool);
  case cmd::CUMSUM:
    return runCumSum(compute, operands, pool);
  case cmd::CAST:
    return runCast(compute, operands, pool);
  case cmd::COMPARE:
    if (operands.inputs.size() != 2)
      return commandError("takes two inputs");
    return runCompare(compute, operands);
  case cmd::SELECT:
    if (operands.inputs.size() != 3)
      return commandError("takes cond, x and y");
    return runSelect(operands);
  default:
    return cmodel::makeTrap(cmodel::TrapKind::Unsupported,
                            "the host device does not run this opcode");
  }
}

} // namespace llmc::host
