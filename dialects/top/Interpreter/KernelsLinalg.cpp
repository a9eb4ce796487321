//===- KernelsLinalg.cpp - MatMul and gated MLP kernels -------------------===//

#include "dialects/top/Interpreter/Gemm.h"
#include "dialects/top/Interpreter/KernelSupport.h"
#include "dialects/top/Interpreter/Parallel.h"

#include <vector>

namespace llmc::top::kernels {

llvm::Expected<Tensor> matMul(const Tensor &input, const Tensor &right,
                              const Tensor *bias, bool leftTranspose,
                              bool rightTranspose, const ThreadRunner &runner) {
  if (llvm::Error error = requireF32(input, "input"))
    return std::move(error);
  if (llvm::Error error = requireF32(right, "right operand"))
    return std::move(error);
  if (input.getRank() < 2 || right.getRank() < 2)
    return kernelError("operands need rank >= 2, got " + input.describe() +
                       " and " + right.describe());
  llvm::ArrayRef<int64_t> lhsShape = input.getShape();
  llvm::ArrayRef<int64_t> rhsShape = right.getShape();
  int64_t lhsRows = lhsShape.end()[-2], lhsCols = lhsShape.back();
  int64_t rhsRows = rhsShape.end()[-2], rhsCols = rhsShape.back();
  int64_t m = leftTranspose ? lhsCols : lhsRows;
  int64_t k = leftTranspose ? lhsRows : lhsCols;
  int64_t n = rightTranspose ? rhsRows : rhsCols;
  if ((rightTranspose ? rhsCols : rhsRows) != k)
    return kernelError("contraction dimensions differ: " + input.describe() +
                       " and " + right.describe());

  llvm::Expected<Dims> batch =
      broadcastShapes(lhsShape.drop_back(2), rhsShape.drop_back(2));
  if (!batch)
    return batch.takeError();
  Dims resultShape = *batch;
  resultShape.append({m, n});
  Tensor result(ElementKind::F32, resultShape);

  // Batch offsets, in matrices; a broadcast batch dimension repeats one.
  Dims lhsStrides = broadcastStrides(lhsShape.drop_back(2), *batch);
  Dims rhsStrides = broadcastStrides(rhsShape.drop_back(2), *batch);
  int64_t batchCount = getElementCount(*batch);
  std::vector<GemmOperands> products(batchCount);
  for (int64_t b = 0; b < batchCount; ++b) {
    GemmOperands &ops = products[b];
    const float *lhs =
        input.getF32().data() + offsetOf(b, *batch, lhsStrides) * m * k;
    const float *rhs =
        right.getF32().data() + offsetOf(b, *batch, rhsStrides) * k * n;
    // Transposing an operand only swaps the strides it is read with.
    ops.a = leftTranspose ? MatrixRef{lhs, 1, m} : MatrixRef{lhs, k, 1};
    ops.b = rightTranspose ? MatrixRef{rhs, 1, k} : MatrixRef{rhs, n, 1};
    ops.c = result.getF32().data() + b * m * n;
  }
  gemm(m, n, k, products, runner);
  if (!bias)
    return result;

  llvm::Expected<Tensor> sum =
      broadcastBinary(BinaryOp::Add, result, *bias, runner);
  if (!sum)
    return sum.takeError();
  if (sum->getShape() != result.getShape())
    return kernelError("bias " + bias->describe() +
                       " does not broadcast to the product " +
                       result.describe());
  return sum;
}

llvm::Expected<Tensor> gatedMLP(const Tensor &input, const Tensor &gate,
                                const Tensor &up, const Tensor &down,
                                Activation activation,
                                const ThreadRunner &runner) {
  for (auto [tensor, what] :
       {std::pair(&input, "input"), std::pair(&gate, "gate weight"),
        std::pair(&up, "up weight"), std::pair(&down, "down weight")})
    if (llvm::Error error = requireF32(*tensor, what))
      return std::move(error);
  if (input.getRank() < 1 || gate.getRank() != 2 || up.getRank() != 2 ||
      down.getRank() != 2)
    return kernelError("MLP weights must be 2-D and the input at least 1-D");
  int64_t hidden = input.getShape().back();
  int64_t inner = gate.getDim(0);
  if (gate.getDim(1) != hidden || up.getShape() != gate.getShape() ||
      down.getDim(0) != hidden || down.getDim(1) != inner)
    return kernelError("MLP weights " + gate.describe() + ", " + up.describe() +
                       ", " + down.describe() + " do not fit the input " +
                       input.describe());

  int64_t tokens = hidden ? input.getNumElements() / hidden : 0;
  Tensor gated(ElementKind::F32, {tokens, inner});
  Tensor upped(ElementKind::F32, {tokens, inner});
  // Linear layout: a weight [out, in] is read transposed, as B(in, out).
  MatrixRef x{input.getF32().data(), hidden, 1};
  GemmOperands gateOps{
      x, {gate.getF32().data(), 1, hidden}, gated.getF32().data()};
  GemmOperands upOps{x, {up.getF32().data(), 1, hidden}, upped.getF32().data()};
  gemm(tokens, inner, hidden, gateOps, runner);
  gemm(tokens, inner, hidden, upOps, runner);

  llvm::MutableArrayRef<float> h = gated.getF32();
  llvm::ArrayRef<float> u = upped.getF32();
  runner.forRanges(h.size(), 16384, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      h[i] = applyActivation(activation, h[i]) * u[i];
  });

  Tensor result(ElementKind::F32, input.getShape());
  GemmOperands downOps{{h.data(), inner, 1},
                       {down.getF32().data(), 1, inner},
                       result.getF32().data()};
  gemm(tokens, hidden, inner, downOps, runner);
  return result;
}

} // namespace llmc::top::kernels
