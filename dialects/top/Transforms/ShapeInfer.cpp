//===- ShapeInfer.cpp - the top-shape-infer pass --------------------------===//

#include "dialects/top/Transforms/Passes.h"

#include "dialects/common/IR/ShapeInferenceInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace llmc::top {
#define GEN_PASS_DEF_TOPSHAPEINFERPASS
#include "dialects/top/Transforms/Passes.h.inc"
} // namespace llmc::top

using namespace mlir;

namespace {

/// Sets each function's result types to the types of the values it returns.
void updateFunctionResultTypes(FunctionOpInterface function) {
  Block *body = function.getFunctionBody().empty()
                    ? nullptr
                    : &function.getFunctionBody().back();
  if (!body || body->empty() || body->back().getNumOperands() == 0)
    return;
  SmallVector<Type> results(body->back().getOperandTypes());
  if (results == function.getResultTypes())
    return;
  function.setType(FunctionType::get(function->getContext(),
                                     function.getArgumentTypes(), results));
}

struct TopShapeInferPass
    : llmc::top::impl::TopShapeInferPassBase<TopShapeInferPass> {
  void runOnOperation() override {
    WalkResult walked = getOperation()->walk([](Operation *op) {
      if (!isa<llmc::ShapeInferenceOpInterface>(op))
        return WalkResult::advance();
      if (failed(llmc::refineResultShapes(op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    getOperation()->walk(
        [](FunctionOpInterface function) { updateFunctionResultTypes(function); });
  }
};

} // namespace
