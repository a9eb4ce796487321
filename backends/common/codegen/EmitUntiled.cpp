//===- EmitUntiled.cpp - projections as whole host commands ---------------===//
//
// A chip that computes in global memory (the host CPU) needs no tiles: a
// projection is one command on the whole tensors, and its kernel decides
// how to block the work for its caches.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/Emitters.h"

namespace llmc::codegen {

/// The MATMUL, A16MATMUL or I8MATMUL of `weights` and its operands after x.
static cmd::Compute
getProjectionCommand(const ProjectionWeights &weights,
                     std::vector<cmd::GlobalTensor> &operands) {
  bool quantized = weights.scale.rows() > 0;
  cmd::Compute compute;
  operands.push_back(weights.weight);
  if (weights.input.present()) {
    compute.set_opcode(cmd::I8MATMUL);
    compute.set_scalar(weights.input.scale);
    compute.set_zero_point(weights.input.zeroPoint);
    operands.push_back(weights.scale);
  } else if (quantized) {
    compute.set_opcode(cmd::A16MATMUL);
    operands.push_back(weights.scale);
    operands.push_back(weights.zp);
  } else {
    compute.set_opcode(cmd::MATMUL);
  }
  operands.push_back(weights.bias);
  return compute;
}

static bool sameTensor(const cmd::GlobalTensor &a, const cmd::GlobalTensor &b) {
  return a.region() == b.region() && a.offset() == b.offset() &&
         a.rows() == b.rows() && a.cols() == b.cols() &&
         getRowStride(a) == getRowStride(b) && a.dtype() == b.dtype();
}

llvm::Error emitUntiledProjection(Emitter &emitter, const cmd::GlobalTensor &x,
                                  const ProjectionWeights &weights,
                                  const cmd::GlobalTensor &y,
                                  const cmd::GlobalTensor *residual) {
  if (residual && !sameTensor(*residual, y))
    emitter.computeGlobal(cmodel::makeCompute(cmd::COPY, {}, {}), {*residual},
                          {y});
  std::vector<cmd::GlobalTensor> inputs = {x};
  cmd::Compute compute = getProjectionCommand(weights, inputs);
  compute.set_accumulate(residual != nullptr);
  emitter.computeGlobal(compute, inputs, {y});
  return llvm::Error::success();
}

llvm::Error emitUntiledGatedMatMul(Emitter &emitter, const cmd::GlobalTensor &x,
                                   const ProjectionWeights &gate,
                                   const ProjectionWeights &up,
                                   const cmd::Compute &activation,
                                   const cmd::GlobalTensor &h) {
  if (activation.opcode() != cmd::SILU && activation.opcode() != cmd::GELU)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a gated MLP on chip '" +
                                       emitter.getChip().id +
                                       "' takes SiLU or GELU only");
  cmd::Compute compute = cmodel::makeCompute(cmd::GATED_MATMUL, {}, {});
  compute.set_activation(activation.opcode());
  compute.set_tanh_approx(activation.tanh_approx());
  std::vector<cmd::GlobalTensor> inputs = {
      x,        gate.weight, gate.scale, gate.zp,
      up.weight, up.scale,   up.zp};
  emitter.computeGlobal(compute, inputs, {h});
  return llvm::Error::success();
}

} // namespace llmc::codegen
