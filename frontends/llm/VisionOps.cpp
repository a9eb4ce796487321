//===- VisionOps.cpp - the top ops vision towers are made of --------------===//

#include "frontends/llm/VisionOps.h"

#include <cmath>

using namespace mlir;

namespace llmc::llm {

Value VisionOps::reshape(Value input, ArrayRef<int64_t> shape,
                         const Twine &name) {
  return top::ReshapeOp::create(b, loc(name), type(shape), input);
}

Value VisionOps::permute(Value input, ArrayRef<int64_t> order,
                         const Twine &name) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  for (int64_t axis : order)
    shape.push_back(inputType.getDimSize(axis));
  return top::PermuteOp::create(b, loc(name), type(shape), input,
                                b.getDenseI64ArrayAttr(order));
}

Value VisionOps::slice(Value input, ArrayRef<int64_t> starts,
                       ArrayRef<int64_t> ends, const Twine &name) {
  SmallVector<int64_t> shape, steps(starts.size(), 1);
  for (auto [start, end] : llvm::zip(starts, ends))
    shape.push_back(end - start);
  return top::SliceOp::create(b, loc(name), type(shape), input,
                              b.getDenseI64ArrayAttr(starts),
                              b.getDenseI64ArrayAttr(ends),
                              b.getDenseI64ArrayAttr(steps));
}

Value VisionOps::linear(Value input, const Twine &prefix, int64_t in,
                        int64_t out, bool bias) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(inputType.getShape());
  shape.back() = out;
  Value w = weight(prefix + ".weight", {out, in});
  Value biasValue = bias ? weight(prefix + ".bias", {out}) : none();
  return top::MatMulOp::create(b, loc(prefix), type(shape), input, w,
                               biasValue, /*left_transpose=*/false,
                               /*right_transpose=*/true);
}

Value VisionOps::layerNorm(Value input, const Twine &prefix, int64_t width,
                           double eps) {
  // Sequenced, so the weights come in this order with any compiler.
  Value scale = weight(prefix + ".weight", {width});
  Value shift = weight(prefix + ".bias", {width});
  return top::LayerNormOp::create(b, loc(prefix), input.getType(), input,
                                  scale, shift, b.getF64FloatAttr(eps));
}

Value VisionOps::gelu(Value input, bool tanh, const Twine &name) {
  return top::GELUOp::create(b, loc(name), input.getType(), input,
                             tanh ? top::GELUApproximation::Tanh
                                  : top::GELUApproximation::None);
}

Value VisionOps::add(Value lhs, Value rhs, const Twine &name) {
  return top::AddOp::create(b, loc(name), lhs.getType(), lhs, rhs);
}

Value VisionOps::mul(Value lhs, Value rhs, const Twine &name) {
  return top::MulOp::create(b, loc(name), lhs.getType(), lhs, rhs);
}

Value VisionOps::attention(Value q, Value k, Value v, Value mask,
                           int64_t heads, int64_t headDim, const Twine &name) {
  auto qType = cast<RankedTensorType>(q.getType());
  return top::FAttentionOp::create(
      b, loc(name), type({qType.getDimSize(0), qType.getDimSize(1),
                          heads * headDim}),
      q, k, v, mask,
      llvm::APFloat(1.0 / std::sqrt(static_cast<double>(headDim))), heads,
      heads, headDim, /*causal=*/false, /*softcap=*/llvm::APFloat(0.0));
}

} // namespace llmc::llm
