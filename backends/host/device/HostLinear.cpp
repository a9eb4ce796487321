//===- HostLinear.cpp - projections and attention on the host -------------===//
//
// Weights stay where the binary's coeff region holds them, in their stored
// type: the kernels dequantize them as they stream through. Activations are
// widened to f32 first unless they already are.
//
//===----------------------------------------------------------------------===//

#include "backends/host/device/HostCommands.h"
#include "backends/host/kernels/Kernels.h"
#include "backends/host/kernels/WorkerPool.h"

#include "support/Strings.h"

#include <cmath>

namespace llmc::host {
namespace {

/// An f32 matrix the kernels read or write: the tensor's own rows when it
/// is f32, else a widened copy in a buffer.
struct F32Matrix {
  float *data = nullptr;
  int64_t stride = 0;
  bool copied = false;
};

bool isF32Rows(const TensorRef &tensor) {
  return tensor.dtype() == cmd::DTYPE_F32 && tensor.geometry.stride % 4 == 0;
}

/// The floats a copy of `tensor` as f32 rows takes: none when it is f32.
int64_t getCopyFloats(const TensorRef &tensor) {
  return isF32Rows(tensor) ? 0 : tensor.rows() * tensor.cols();
}

/// `tensor` as f32 rows (read-only use), widened into `copy`
/// (getCopyFloats) if needed.
F32Matrix widenInto(const TensorRef &tensor, float *copy) {
  F32Matrix matrix;
  if (isF32Rows(tensor)) {
    matrix.data = reinterpret_cast<float *>(tensor.data);
    matrix.stride = tensor.geometry.stride / 4;
    return matrix;
  }
  matrix.data = copy;
  matrix.stride = tensor.cols();
  matrix.copied = true;
  for (int64_t r = 0; r < tensor.rows(); ++r)
    tensor.widenRow(r, tensor.cols(), matrix.data + r * tensor.cols());
  return matrix;
}

/// `tensor` as f32 rows (read-only use), copied into `buffer` if needed.
F32Matrix widen(const TensorRef &tensor, Buffer buffer) {
  return widenInto(tensor, getBuffer(buffer, getCopyFloats(tensor)));
}

/// `tensor` as the kernels read keys and values: f16 and bf16 rows in
/// place (a decode step's history is long, and the kernel widens only the
/// rows the mask lets through), others as f32 rows (see widen).
FloatRows asFloatRows(const TensorRef &tensor, Buffer buffer) {
  const cmd::DType dtype = tensor.dtype();
  if ((dtype == cmd::DTYPE_F16 || dtype == cmd::DTYPE_BF16) &&
      tensor.geometry.stride % 2 == 0)
    return {dtype == cmd::DTYPE_F16 ? FloatType::F16 : FloatType::BF16,
            tensor.data, static_cast<int64_t>(tensor.geometry.stride / 2)};
  F32Matrix matrix = widen(tensor, buffer);
  return {FloatType::F32, matrix.data, matrix.stride};
}

/// Where a kernel writes `tensor`: in place when it is f32, else `copy`
/// (getCopyFloats; holding its current values when the kernel accumulates)
/// that finishOutput narrows into it.
F32Matrix prepareOutputInto(const TensorRef &tensor, bool accumulate,
                            float *copy) {
  if (isF32Rows(tensor) || accumulate)
    return widenInto(tensor, copy);
  F32Matrix matrix;
  matrix.data = copy;
  matrix.stride = tensor.cols();
  matrix.copied = true;
  return matrix;
}

/// prepareOutputInto a buffer of the calling thread.
F32Matrix prepareOutput(const TensorRef &tensor, bool accumulate) {
  return prepareOutputInto(tensor, accumulate,
                           getBuffer(Buffer::Output, getCopyFloats(tensor)));
}

void finishOutput(const TensorRef &tensor, const F32Matrix &matrix,
                  WorkerPool &pool) {
  if (!matrix.copied)
    return;
  // On the threads, a product's output being spread over their caches:
  // one long row (a decode step's logits) by columns, others by rows.
  if (tensor.rows() == 1) {
    pool.parallelFor(tensor.cols(), kElementsPerThread,
                     [&](int64_t c0, int64_t c1) {
                       tensor.narrowElements(0, c0, c1 - c0, matrix.data + c0);
                     });
    return;
  }
  pool.parallelFor(tensor.rows(), getRowGrain(tensor.cols()),
                   [&](int64_t r0, int64_t r1) {
                     for (int64_t r = r0; r < r1; ++r)
                       tensor.narrowRow(r, matrix.data + r * matrix.stride);
                   });
}

absl::StatusOr<WeightType> getWeightType(cmd::DType dtype) {
  switch (dtype) {
  case cmd::DTYPE_F32:
    return WeightType::F32;
  case cmd::DTYPE_F16:
    return WeightType::F16;
  case cmd::DTYPE_BF16:
    return WeightType::BF16;
  case cmd::DTYPE_I8:
    return WeightType::I8;
  case cmd::DTYPE_U8:
    return WeightType::U8;
  case cmd::DTYPE_I4:
    return WeightType::I4;
  case cmd::DTYPE_U4:
    return WeightType::U4;
  default:
    return commandError("a weight of this type has no host kernel");
  }
}

ParamType getParamType(const TensorRef &tensor) {
  if (!tensor.present())
    return ParamType::None;
  switch (tensor.dtype()) {
  case cmd::DTYPE_F32:
    return ParamType::F32;
  case cmd::DTYPE_F16:
    return ParamType::F16;
  case cmd::DTYPE_BF16:
    return ParamType::BF16;
  case cmd::DTYPE_I8:
    return ParamType::I8;
  case cmd::DTYPE_U8:
    return ParamType::U8;
  case cmd::DTYPE_I4:
    return ParamType::I4;
  case cmd::DTYPE_U4:
    return ParamType::U4;
  default:
    return ParamType::None;
  }
}

/// The kernel's view of weight `w` [N, K] with its optional `scale` and
/// `zp` [N, K / G]; k is x's columns.
absl::StatusOr<Weights> getWeights(const TensorRef &w, const TensorRef &scale,
                                   const TensorRef &zp, int64_t k) {
  absl::StatusOr<WeightType> type = getWeightType(w.dtype());
  if (!type.ok())
    return type.status();
  if (w.cols() != k)
    return commandError(
        support::strCat("x has ", k, " columns, the weight ", w.cols()));
  Weights weights;
  weights.type = *type;
  weights.data = w.data;
  weights.n = w.rows();
  weights.k = w.cols();
  weights.rowStrideBytes = w.geometry.stride;
  bool quantized = *type != WeightType::F32 && *type != WeightType::F16 &&
                   *type != WeightType::BF16;
  if (quantized != scale.present())
    return commandError(quantized ? "a quantized weight needs its scales"
                                  : "a float weight takes no scales");
  if (!quantized)
    return weights;
  if (scale.rows() != w.rows() || k % scale.cols() != 0 ||
      getParamType(scale) == ParamType::None ||
      !cmodel::isFloatDType(scale.dtype()))
    return commandError("scales must be float [N, K / G] with G dividing K");
  if (zp.present() && (zp.rows() != scale.rows() || zp.cols() != scale.cols()))
    return commandError("zero points must have the scales' shape");
  weights.scale = scale.data;
  weights.scaleType = getParamType(scale);
  weights.scaleRowStrideBytes = scale.geometry.stride;
  weights.zp = zp.data;
  weights.zpType = getParamType(zp);
  weights.zpRowStrideBytes = zp.present() ? zp.geometry.stride : 0;
  weights.groupSize = k / scale.cols();
  return weights;
}

/// The bias operand of a MATMUL or A16MATMUL.
const TensorRef &getBias(const cmd::Compute &compute,
                         const HostOperands &operands) {
  return operands.in(compute.opcode() == cmd::A16MATMUL ? 4 : 2);
}

/// Whether `a` and `b` share a byte (they may lie in different regions).
bool overlap(const TensorRef &a, const TensorRef &b) {
  if (!a.present() || !b.present())
    return false;
  const uintptr_t aStart = reinterpret_cast<uintptr_t>(a.data),
                  bStart = reinterpret_cast<uintptr_t>(b.data);
  return aStart < bStart + b.geometry.getExtent() &&
         bStart < aStart + a.geometry.getExtent();
}

absl::Status runGatedMatMul(const cmd::Compute &compute,
                            const HostOperands &operands, WorkerPool &pool) {
  const TensorRef &x = operands.in(0);
  const TensorRef &h = operands.out(0);
  absl::StatusOr<Weights> gate =
      getWeights(operands.in(1), operands.in(2), operands.in(3), x.cols());
  if (!gate.ok())
    return gate.status();
  absl::StatusOr<Weights> up =
      getWeights(operands.in(4), operands.in(5), operands.in(6), x.cols());
  if (!up.ok())
    return up.status();
  if (up->n != gate->n || up->type != gate->type)
    return commandError("gate and up weights must match");
  if (h.rows() != x.rows() || h.cols() != gate->n)
    return commandError("h must be [M, N] for x [M, K] and w [N, K]");
  Activation activation;
  if (compute.activation() == cmd::SILU)
    activation = Activation::SiLU;
  else if (compute.activation() == cmd::GELU)
    activation =
        compute.tanh_approx() ? Activation::GELUTanh : Activation::GELU;
  else
    return commandError("the activation must be SILU or GELU");
  F32Matrix input = widen(x, Buffer::Input);
  F32Matrix output = prepareOutput(h, false);
  gatedLinear(input.data, x.rows(), input.stride, *gate, *up, activation,
              output.data, output.stride, pool);
  finishOutput(h, output, pool);
  return absl::OkStatus();
}

absl::Status runAttention(const cmd::Compute &compute,
                          const HostOperands &operands, WorkerPool &pool) {
  const TensorRef &q = operands.in(0), &k = operands.in(1), &v = operands.in(2),
                  &mask = operands.in(3);
  if (operands.outputs.size() != 1 || !operands.out(0).present())
    return commandError("host attention computes o in one pass (no state)");
  const TensorRef &o = operands.out(0);
  int64_t d = compute.group();
  if (d <= 0 || q.cols() % d || k.cols() % d || k.cols() != v.cols() ||
      k.rows() != v.rows() || o.rows() != q.rows() || o.cols() != q.cols())
    return commandError("attention needs q, o [Lq, Hq * D], k, v [Lk, Hkv * "
                        "D] with D = group");
  int64_t hq = q.cols() / d, hkv = k.cols() / d;
  if (hq % hkv)
    return commandError("kv heads must divide the query heads");
  if (mask.present() && (mask.rows() != q.rows() || mask.cols() != k.rows()))
    return commandError("the mask must be [Lq, Lk]");
  double scale = compute.scalar() ? compute.scalar() : 1 / std::sqrt(d);
  F32Matrix qs = widen(q, Buffer::Input);
  FloatRows ks = asFloatRows(k, Buffer::Keys),
            vs = asFloatRows(v, Buffer::Values);
  F32Matrix masks;
  if (mask.present())
    masks = widen(mask, Buffer::Mask);
  F32Matrix output = prepareOutput(o, false);
  attention(qs.data, qs.stride, ks, vs, masks.data, masks.stride, q.rows(),
            k.rows(), hq, hkv, d, static_cast<float>(scale),
            static_cast<float>(compute.softcap()), output.data, output.stride,
            pool);
  finishOutput(o, output, pool);
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<bool> MatMulGroup::tryAdd(const cmd::Compute &compute,
                                         HostOperands &&operands) {
  const bool quantized = compute.opcode() == cmd::A16MATMUL;
  const TensorRef &x = operands.in(0), &bias = getBias(compute, operands);
  const TensorRef &y = operands.out(0);
  absl::StatusOr<Weights> weights =
      quantized
          ? getWeights(operands.in(1), operands.in(2), operands.in(3), x.cols())
          : getWeights(operands.in(1), TensorRef(), TensorRef(), x.cols());
  if (!weights.ok())
    return weights.status();
  if (y.rows() != x.rows() || y.cols() != weights->n)
    return commandError("y must be [M, N] for x [M, K] and w [N, K]");
  if (bias.present() && bias.cols() != weights->n)
    return commandError("the bias must have N columns");
  if (!members.empty()) {
    const Member &lead = members.front();
    const TensorRef &leadX = lead.operands.in(0);
    if (compute.opcode() != lead.compute->opcode() || x.data != leadX.data ||
        x.rows() != leadX.rows() || x.cols() != leadX.cols() ||
        x.dtype() != leadX.dtype() ||
        x.geometry.stride != leadX.geometry.stride ||
        !haveSameLayout(*weights, lead.weights))
      return false;
    // Run in turn, no command would see another's output, nor write where
    // another writes (an accumulating product reads its output too).
    auto writesInputOf = [](const TensorRef &output,
                            const HostOperands &reader) {
      for (const TensorRef &input : reader.inputs)
        if (overlap(output, input))
          return true;
      return false;
    };
    for (const Member &member : members) {
      const TensorRef &theirs = member.operands.out(0);
      if (writesInputOf(theirs, operands) ||
          writesInputOf(y, member.operands) || overlap(theirs, y))
        return false;
    }
  }
  members.push_back({&compute, std::move(operands), *weights});
  return true;
}

void MatMulGroup::run(WorkerPool &pool) {
  const TensorRef &x = members.front().operands.in(0);
  const F32Matrix input = widen(x, Buffer::Input);
  // The f32 copies of the outputs and the biases, each in one buffer.
  int64_t outputFloats = 0, biasFloats = 0;
  for (const Member &member : members) {
    outputFloats += getCopyFloats(member.operands.out(0));
    if (getBias(*member.compute, member.operands).present())
      biasFloats += member.weights.n;
  }
  float *outputCopy = getBuffer(Buffer::Output, outputFloats);
  float *biasCopy = getBuffer(Buffer::Bias, biasFloats);
  std::vector<F32Matrix> outputs;
  std::vector<LinearProduct> products;
  for (const Member &member : members) {
    const TensorRef &y = member.operands.out(0);
    const bool accumulate = member.compute->accumulate();
    outputs.push_back(prepareOutputInto(y, accumulate, outputCopy));
    outputCopy += getCopyFloats(y);
    const TensorRef &bias = getBias(*member.compute, member.operands);
    const float *biasValues = nullptr;
    if (bias.present()) {
      bias.widenRow(0, member.weights.n, biasCopy);
      biasValues = biasCopy;
      biasCopy += member.weights.n;
    }
    products.push_back({&member.weights, biasValues, outputs.back().data,
                        outputs.back().stride, accumulate});
  }
  linearProducts(input.data, x.rows(), input.stride, products, pool);
  for (size_t i = 0; i < members.size(); ++i)
    finishOutput(members[i].operands.out(0), outputs[i], pool);
  members.clear();
}

absl::Status runLinear(const cmd::Compute &compute,
                       const HostOperands &operands, WorkerPool &pool) {
  switch (compute.opcode()) {
  case cmd::GATED_MATMUL:
    return runGatedMatMul(compute, operands, pool);
  default:
    return runAttention(compute, operands, pool);
  }
}

} // namespace llmc::host
