//===- TopAttrs.td - enums and attributes of the top dialect -*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TOP_TOPATTRS_TD
#define LLMC_DIALECTS_TOP_TOPATTRS_TD

include "dialects/top/IR/TopBase.td"
include "mlir/IR/EnumAttr.td"

def Top_RopeMode : I32EnumAttr<"RopeMode", "how a rotary embedding pairs channels", [
    I32EnumAttrCase<"Half", 0, "half">,
    I32EnumAttrCase<"Interleaved", 1, "interleaved">,
  ]> {
  let cppNamespace = "::llmc::top";
  let genSpecializedAttr = 0;
  let description = [{
    `half` pairs channel i with channel i + R/2 (Hugging Face's rotate_half,
    used by Llama and Qwen checkpoints); `interleaved` pairs channel 2i with
    2i + 1 (the GPT-J layout and llama.cpp's permuted Llama weights).
  }];
}
def Top_RopeModeAttr : EnumAttr<Top_Dialect, Top_RopeMode, "rope_mode">;

def Top_Activation : I32EnumAttr<"Activation", "an elementwise activation", [
    I32EnumAttrCase<"SiLU", 0, "silu">,
    I32EnumAttrCase<"GELU", 1, "gelu">,
    I32EnumAttrCase<"GELUTanh", 2, "gelu_tanh">,
    I32EnumAttrCase<"ReLU", 3, "relu">,
  ]> {
  let cppNamespace = "::llmc::top";
  let genSpecializedAttr = 0;
}
def Top_ActivationAttr : EnumAttr<Top_Dialect, Top_Activation, "activation">;

def Top_ArgMode : I32EnumAttr<"ArgMode", "which extreme Arg selects", [
    I32EnumAttrCase<"ArgMax", 0, "argmax">,
    I32EnumAttrCase<"ArgMin", 1, "argmin">,
  ]> {
  let cppNamespace = "::llmc::top";
  let genSpecializedAttr = 0;
}
def Top_ArgModeAttr : EnumAttr<Top_Dialect, Top_ArgMode, "arg_mode">;

def Top_GELUApproximation : I32EnumAttr<"GELUApproximation",
    "how GELU evaluates the Gaussian CDF", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Tanh", 1, "tanh">,
  ]> {
  let cppNamespace = "::llmc::top";
  let genSpecializedAttr = 0;
}
def Top_GELUApproximationAttr
    : EnumAttr<Top_Dialect, Top_GELUApproximation, "gelu_approximation">;

def Top_CompareMode : I32EnumAttr<"CompareMode", "the relation a Compare tests", [
    I32EnumAttrCase<"Eq", 0, "eq">,
    I32EnumAttrCase<"Ne", 1, "ne">,
    I32EnumAttrCase<"Lt", 2, "lt">,
    I32EnumAttrCase<"Le", 3, "le">,
    I32EnumAttrCase<"Gt", 4, "gt">,
    I32EnumAttrCase<"Ge", 5, "ge">,
  ]> {
  let cppNamespace = "::llmc::top";
  let genSpecializedAttr = 0;
  let description = [{
    `lhs == rhs`, `!=`, `<`, `<=`, `>` or `>=`. Floats compare as IEEE 754
    does: a NaN operand makes every relation false except `ne`.
  }];
}
def Top_CompareModeAttr : EnumAttr<Top_Dialect, Top_CompareMode, "compare_mode">;

def Top_StoredQuantAttr : AttrDef<Top_Dialect, "StoredQuant"> {
  let mnemonic = "stored_quant";
  let summary = "how a checkpoint stores a weight quantized group-wise";
  let description = [{
    A `top.Weight` [N, K] that the checkpoint holds as `bits`-bit integers
    with one scale (of `scaleType`) and, when `asymmetric`, one zero point
    (an integer, or a float with `floatZeroPoints`, as GGUF Q4_1's offset
    needs) per group of `groupSize` elements along K (0: one group spans K);
    a GGUF Q8_0 or Q4_0 tensor, a GPTQ or AWQ layer. The weight's value is
    still the dequantized tensor: the attribute says that a weight-only
    lowering reads the stored integers as they are, with this scheme,
    instead of quantizing the weight itself.

    ```mlir
    %w = top.Weight "blk.0.ffn_up.weight" {stored = #top.stored_quant<
        bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>}
        : () -> tensor<768x256xf32>
    ```
  }];
  let parameters = (ins "int64_t":$bits, "int64_t":$groupSize,
                        "bool":$asymmetric, "mlir::Type":$scaleType,
                        DefaultValuedParameter<"bool", "false">:$floatZeroPoints);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // LLMC_DIALECTS_TOP_TOPATTRS_TD
