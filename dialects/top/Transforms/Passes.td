//===- Passes.td - passes on the top dialect -------------*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TOP_TRANSFORMS_PASSES_TD
#define LLMC_DIALECTS_TOP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TopShapeInferPass : Pass<"top-shape-infer"> {
  let summary = "refines dynamic result dimensions from the operand shapes";
  let description = [{
    Walks every op that implements ShapeInferenceOpInterface in program order
    and replaces dynamic result dimensions by the sizes its shape function
    derives, so frontends may leave result shapes open and every later pass
    sees static shapes. When a function's returned values change type, the
    function type is updated to match. Fails on inconsistent shapes.
  }];
  let dependentDialects = ["::llmc::top::TopDialect"];
}

#endif // LLMC_DIALECTS_TOP_TRANSFORMS_PASSES_TD
