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

#include <limits>

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

static kernels::CompareMode convert(CompareMode mode) {
  switch (mode) {
  case CompareMode::Eq: return kernels::CompareMode::Eq;
  case CompareMode::Ne: return kernels::CompareMode::Ne;
  case CompareMode::Lt: return kernels::CompareMode::Lt;
  case CompareMode::Le: return kernels::CompareMode::Le;
  case CompareMode::Gt: return kernels::CompareMode::Gt;
  case CompareMode::Ge: return kernels::CompareMode::Ge;
  }
  llvm_unreachable("unknown compare mode");
}

/// The elements of a constant as the interpreter holds them: floats of any
/// width as F32, integers as I32 (an i1 true is 1, not -1).
static llvm::Expected<Tensor> constantTensor(ConstantOp constant) {
  auto value = cast<DenseIntOrFPElementsAttr>(constant.getValue());
  llvm::ArrayRef<int64_t> shape = value.getType().getShape();
  if (isa<FloatType>(value.getElementType())) {
    std::vector<float> elements;
    elements.reserve(value.getNumElements());
    for (const APFloat &element : value.getValues<APFloat>())
      elements.push_back(
          static_cast<float>(FloatAttr::getValueAsDouble(element)));
    return Tensor::fromF32(shape, std::move(elements));
  }
  bool isBool = value.getElementType().isInteger(1);
  std::vector<int32_t> elements;
  elements.reserve(value.getNumElements());
  for (const APInt &element : value.getValues<APInt>()) {
    int64_t number = isBool ? element.getZExtValue() : element.getSExtValue();
    if (number < std::numeric_limits<int32_t>::min() ||
        number > std::numeric_limits<int32_t>::max())
      return kernels::kernelError("constant element " + llvm::Twine(number) +
                                  " does not fit in int32");
    elements.push_back(static_cast<int32_t>(number));
  }
  return Tensor::fromI32(shape, std::move(elements));
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
        params.softcap = attention.getSoftcap().convertToDouble();
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
      .Case([&](DivOp) {
        return single(kernels::broadcastBinary(kernels::BinaryOp::Div, in(0),
                                               in(1), runner));
      })
      .Case([&](MulConstOp mul) {
        return single(kernels::mulConst(
            in(0), mul.getConstVal().convertToDouble(), runner));
      })
      .Case([&](FakeQuantOp fake) {
        kernels::FakeQuantParams params;
        params.scale = static_cast<float>(fake.getScale().convertToDouble());
        params.zeroPoint = static_cast<int64_t>(fake.getZeroPoint());
        params.qmin = static_cast<int64_t>(fake.getQmin());
        params.qmax = static_cast<int64_t>(fake.getQmax());
        return single(kernels::fakeQuant(in(0), params, runner));
      })
      .Case([&](SiLUOp) {
        return single(
            kernels::activate(in(0), kernels::Activation::SiLU, runner));
      })
      .Case([&](TanhOp) {
        return single(
            kernels::activate(in(0), kernels::Activation::Tanh, runner));
      })
      .Case([&](SigmoidOp) {
        return single(
            kernels::activate(in(0), kernels::Activation::Sigmoid, runner));
      })
      .Case([&](GELUOp gelu) {
        auto activation = gelu.getApproximation() == GELUApproximation::Tanh
                              ? kernels::Activation::GELUTanh
                              : kernels::Activation::GELU;
        return single(kernels::activate(in(0), activation, runner));
      })
      .Case([&](SqrtOp) { return single(kernels::sqrt(in(0), runner)); })
      .Case([&](PowOp pow) {
        return single(
            kernels::power(in(0), pow.getExponent().convertToDouble(), runner));
      })
      .Case([&](SoftmaxOp softmax) {
        return single(
            kernels::softmax(in(0), asSigned(softmax.getAxis()), runner));
      })
      .Case([&](CumSumOp cumsum) {
        return single(kernels::cumSum(in(0), asSigned(cumsum.getAxis()),
                                      cumsum.getExclusive(),
                                      cumsum.getReverse()));
      })
      .Case([&](ReduceMeanOp mean) {
        return single(
            kernels::reduceMean(in(0), mean.getAxes(), mean.getKeepdims()));
      })
      .Case([&](ConstantOp constant) { return single(constantTensor(constant)); })
      .Case([&](GatherOp gather) {
        return single(
            kernels::gather(in(0), in(1), asSigned(gather.getAxis())));
      })
      .Case([&](ReshapeOp reshape) {
        // Dynamic result dimensions are negative: the kernel infers them.
        return single(kernels::reshape(in(0), reshape.getType().getShape()));
      })
      .Case([&](ExpandOp expand) {
        // Dynamic result dimensions are negative: the kernel takes the
        // input's.
        return single(kernels::expand(in(0), expand.getType().getShape()));
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
      .Case([&](ScatterElementsOp scatter) {
        return single(kernels::scatterElements(in(0), in(1), in(2),
                                               asSigned(scatter.getAxis())));
      })
      .Case([&](CompareOp compare) {
        return single(
            kernels::compare(convert(compare.getMode()), in(0), in(1)));
      })
      .Case([&](WhereOp) {
        return single(kernels::where(in(0), in(1), in(2)));
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
