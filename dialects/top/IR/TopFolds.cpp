//===- TopFolds.cpp - folders and canonicalization of top ops -------------===//

#include "dialects/top/IR/TopOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace llmc::top;

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult MulConstOp::fold(FoldAdaptor) {
  if (getConstVal().convertToDouble() == 1.0)
    return getInput();
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}

namespace {
/// reshape(reshape(x)) -> reshape(x): only the final shape matters.
struct CollapseReshapeChain : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<ReshapeOp>();
    if (!producer)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(producer.getInput()); });
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<CollapseReshapeChain>(context);
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  // An identity order keeps the shape, but the result type may still be more
  // static than the input's; the input can only replace a result of its type.
  if (getInput().getType() != getOutput().getType())
    return {};
  for (auto [index, axis] : llvm::enumerate(getOrder()))
    if (axis != static_cast<int64_t>(index))
      return {};
  return getInput();
}

namespace {
/// permute(permute(x, a), b) -> permute(x, a[b]): the orders compose, and
/// a pair that cancels folds away.
struct ComposePermutes : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<PermuteOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> order;
    for (int64_t axis : op.getOrder())
      order.push_back(inner.getOrder()[axis]);
    rewriter.replaceOpWithNewOp<PermuteOp>(
        op, op.getType(), inner.getInput(),
        rewriter.getDenseI64ArrayAttr(order));
    return success();
  }
};
} // namespace

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ComposePermutes>(context);
}
