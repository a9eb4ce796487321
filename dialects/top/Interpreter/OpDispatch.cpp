//===- OpDispatch.cpp - top ops to interpreter kernels --------------------===//
//
// The only place that reads op attributes: everything below it works on
// plain tensors and numbers.
//
//===----------------------------------------------------------------------===//

#include "dialects/top/Interpreter/OpDispatch.h"

#include "dialects/top/IR/TopOps.h"
#include "dialects/top/Interpreter/Kernels.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace llmc::top {

using Results = llvm::SmallVector<Tensor, 1>;

static llvm::Expected<Results> single(llvm::Expected<Tensor> tensor) {
  if (!tensor)
    return tensor.takeError();
  Results results;
  results.push_back(std::move(*tensor));
  return results;
}

static kernels::Activation convert(Activation activation) {
  switch (activation) {
  case Activation::SiLU: return kernels::Activation::SiLU;
  case Activation::GELU: return kernels::Activation::GELU;
  case Activation::GELUTanh: return kernels::Activation::GELUTanh;
  case Activation::ReLU: return kernels::Activation::ReLU;
  }
  llvm_unreachable("unknown activation");
}

/// I64 attributes come back as unsigned; axes and counts are signed.
static int64_t asSigned(uint64_t value) { return static_cast<int64_t>(value); }

llvm::Expected<Results> runComputeOp(Operation &op,
                                     llvm::ArrayRef<const Tensor *> operands,
                                     const ThreadRunner &runner) {
  auto in = [&](unsigned index) -> const Tensor & { return *operands[index]; };
  using llvm::Expected;
  return llvm::TypeSwitch<Operation *, Expected<Results>>(&op)
      .Case([&](MatMulOp matmul) {
        return single(kernels::matMul(in(0), in(1), operands[2],
                                      matmul.getLeftTranspose(),
                                      matmul.getRightTranspose(), runner));
      })
      .Case([&](MLPOp mlp) {
        return single(kernels::gatedMLP(in(0), in(1), in(2), in(3),
                                        convert(mlp.getActivation()), runner));
      })
      .Case([&](RMSNormOp norm) {
        return single(kernels::rmsNorm(
            in(0), operands[1], norm.getEps().convertToDouble(), runner));
      })
      .Case([&](LayerNormOp norm) {
        return single(kernels::layerNorm(in(0), operands[1], operands[2],
                                         norm.getEps().convertToDouble(),
                                         runner));
      })
      .Case([&](RopeOp rope) {
        auto mode = rope.getMode() == RopeMode::Half
                        ? kernels::RopeMode::Half
                        : kernels::RopeMode::Interleaved;
        return single(kernels::rope(in(0), in(1), in(2), mode, runner));
      })
      .Case([&](FAttentionOp attention) {
        kernels::AttentionParams params;
        params.scale = attention.getScale().convertToDouble();
        params.qHeads = asSigned(attention.getQHead());
        params.kvHeads = asSigned(attention.getKvHead());
        params.headDim = asSigned(attention.getHeadDim());
        params.causal = attention.getCausal();
        return single(kernels::attention(in(0), in(1), in(2), operands[3],
                                         params, runner));
      })
      .Case([&](AddOp) {
        return single(kernels::broadcastBinary(kernels::BinaryOp::Add, in(0),
                                               in(1), runner));
      })
      .Case([&](MulOp) {
        return single(kernels::broadcastBinary(kernels::BinaryOp::Mul, in(0),
                                               in(1), runner));
      })
      .Case([&](MulConstOp mul) {
        return single(kernels::mulConst(
            in(0), mul.getConstVal().convertToDouble(), runner));
      })
      .Case([&](SiLUOp) {
        return single(
            kernels::activate(in(0), kernels::Activation::SiLU, runner));
      })
      .Case([&](GELUOp gelu) {
        auto activation = gelu.getApproximation() == GELUApproximation::Tanh
                              ? kernels::Activation::GELUTanh
                              : kernels::Activation::GELU;
        return single(kernels::activate(in(0), activation, runner));
      })
      .Case([&](SoftmaxOp softmax) {
        return single(
            kernels::softmax(in(0), asSigned(softmax.getAxis()), runner));
      })
      .Case([&](GatherOp gather) {
        return single(
            kernels::gather(in(0), in(1), asSigned(gather.getAxis())));
      })
      .Case([&](ReshapeOp reshape) {
        // Dynamic result dimensions are negative: the kernel infers them.
        return single(kernels::reshape(in(0), reshape.getType().getShape()));
      })
      .Case([&](PermuteOp permute) {
        return single(kernels::permute(in(0), permute.getOrder()));
      })
      .Case([&](ConcatOp concat) {
        return single(kernels::concat(operands, asSigned(concat.getAxis())));
      })
      .Case([&](SliceOp slice) {
        return single(kernels::slice(in(0), slice.getStarts(), slice.getEnds(),
                                     slice.getSteps()));
      })
      .Case([&](ArgOp arg) {
        return single(kernels::argExtreme(in(0), asSigned(arg.getAxis()),
                                          arg.getKeepdims(),
                                          arg.getMode() == ArgMode::ArgMax));
      })
      .Case([&](TopKOp topk) -> Expected<Results> {
        auto pair = kernels::topK(in(0), asSigned(topk.getK()),
                                  asSigned(topk.getAxis()), topk.getLargest());
        if (!pair)
          return pair.takeError();
        Results results;
        results.push_back(std::move(pair->first));
        results.push_back(std::move(pair->second));
        return results;
      })
      .Default([](Operation *) -> Expected<Results> {
        return kernels::kernelError("the interpreter does not support this op");
      });
}

} // namespace llmc::top
