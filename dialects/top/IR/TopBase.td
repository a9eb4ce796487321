//===- TopBase.td - the top dialect and its base op class -*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TOP_TOPBASE_TD
#define LLMC_DIALECTS_TOP_TOPBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Top_Dialect : Dialect {
  let name = "top";
  let cppNamespace = "::llmc::top";
  let summary = "Framework- and chip-independent meaning of an LLM graph";
  let description = [{
    `top` states what a model computes and nothing about how a chip computes
    it. Every frontend (Hugging Face safetensors, ONNX, GGUF) produces `top`
    modules, one per piece of the model (embedding; each layer in its
    prefill, prefill_kv and decode variants; LM head; sampling heads), and
    every chip backend starts from them.

    Values are tensors of floating-point elements (integer tensors for token
    ids and indices, i1 tensors for masks). Weights are never stored in the
    IR: `top.Weight` names a tensor of the model's external weight source;
    only small values a piece computes with are `top.Constant`s. Attention (`top.FAttention`)
    and the gated MLP (`top.MLP`) stay fused so that backends can schedule them
    as units. Optional operands are the result of `top.None`.

    The shape of every result follows from the operands and attributes
    (ShapeInferenceOpInterface); the verifier checks declared result types
    against it.
  }];
  let useDefaultAttributePrinterParser = 1;
}

/// Base class of every `top` op: shape-inferred and side-effect free unless
/// stated otherwise.
class Top_Op<string mnemonic, list<Trait> traits = []>
    : Op<Top_Dialect, mnemonic, traits>;

/// A floating-point tensor (the element types frontends produce).
def Top_FloatTensor : TensorOf<[AnyFloat]>;
/// A tensor of token ids, positions or indices.
def Top_IndexTensor : TensorOf<[AnySignlessInteger]>;
/// A tensor of floats or of signless integers, for ops that work on both
/// (comparison, selection, scatter).
def Top_NumericTensor : TensorOf<[AnyFloat, AnySignlessInteger]>;
/// An optional operand: a tensor, or the result of `top.None`.
def Top_FloatTensorOrNone : AnyTypeOf<[Top_FloatTensor, NoneType]>;

#endif // LLMC_DIALECTS_TOP_TOPBASE_TD
