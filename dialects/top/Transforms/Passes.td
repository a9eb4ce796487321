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

def TopRaisePrimitivesPass : Pass<"top-raise-primitives"> {
  let summary = "fuses primitive subgraphs into RMSNorm, SiLU, MLP, Rope and FAttention";
  let description = [{
    Graphs imported op by op (ONNX exports) spell the fused operations of a
    transformer out in primitives: RMSNorm as pow, mean, add, sqrt, div and
    mul; rotary embeddings as slices, a negation and a concat; attention as
    matmuls, a scale, a mask and a softmax, with GQA's repeat_kv as reshape,
    expand and reshape. This pass recognises each subgraph in the form
    Hugging Face's eager code exports it and replaces it by the fused op the
    graph builder emits, so imported pieces reach the same IR as pieces
    built from a checkpoint. Subgraphs that differ in any operand, attribute
    or shape the fused op relies on stay as they are.
  }];
  let dependentDialects = ["::llmc::top::TopDialect"];
}

#endif // LLMC_DIALECTS_TOP_TRANSFORMS_PASSES_TD
