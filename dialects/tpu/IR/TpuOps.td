//===- TpuOps.td - operations of the tpu dialect ---------*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TPU_TPUOPS_TD
#define LLMC_DIALECTS_TPU_TPUOPS_TD

include "dialects/tpu/IR/TpuBase.td"
include "dialects/tpu/IR/TpuAttrs.td"
include "dialects/top/IR/TopAttrs.td"
include "dialects/common/IR/CommonConstraints.td"
include "dialects/common/IR/ShapeInferenceInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

/// A pure op whose result shapes come from its shape function. Every def
/// appends `chipAttrs` to its arguments: the optional `lg`, `addr` and
/// `core_split` decisions of the backend.
class Tpu_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Tpu_Op<mnemonic, !listconcat(traits, [Pure, Tpu_ChipAnnotations,
        DeclareOpInterfaceMethods<ShapeInferenceOpInterface>])> {
  dag chipAttrs = (ins OptionalAttr<Tpu_LayerGroupAttr>:$lg,
                       OptionalAttr<Tpu_MemArrayAttr>:$addr,
                       OptionalAttr<Tpu_CoreSplitAttr>:$core_split);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Tpu_ConstantOp : Tpu_Op<"Constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "a small tensor stated in the IR";
  let description = [{
    `top.Constant` in the element type its users compute in: a threshold,
    fill value or mask (i1) a piece computes with. Like `top.Weight` it is a
    leaf that nothing computes: the compiler stores its elements in the
    binary's coeff region beside the weights (an i1 element as one byte)
    and codegen reads them there, so it has no chip annotations and
    `tpu-address-assign` does not place it. `value` is a dense attribute of
    floats or signless integers.

    ```mlir
    %first = tpu.Constant dense<[[true, false, false]]> : tensor<1x3xi1>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and normalization
//===----------------------------------------------------------------------===//

def Tpu_MatMulOp : Tpu_ComputeOp<"MatMul"> {
  let summary = "matrix multiplication with optional bias";
  let description = [{
    `top.MatMul` with chip element types: `output = input x right + bias`
    over the last two dimensions, leading dimensions broadcast, `right`
    [..., K, N] or [..., N, K] with `right_transpose`, `input` [..., M, K]
    or [..., K, M] with `left_transpose`.

    Both operands are float, or both are integers or quantized (an INT8
    matmul). A quantized `input` is per-tensor; a per-axis `right` is
    quantized along N, one scale per output channel. An INT8 matmul's bias
    is usually i32 and its output i32, quantized or float.

    ```mlir
    %y = tpu.MatMul %x, %w, %b {right_transpose = true}
        : (tensor<16x4x!quant.uniform<i8:f32, 0.5>>,
           tensor<2x4x!quant.uniform<i8:f32:0, {0.25, 0.125}>>, tensor<2xi32>)
        -> tensor<16x2x!quant.uniform<i8:f32, 0.25:-3>>
    ```
  }];
  let arguments = !con((ins Tpu_Tensor:$input, Tpu_Tensor:$right,
                            Tpu_TensorOrNone:$bias,
                            DefaultValuedAttr<BoolAttr, "false">:$left_transpose,
                            DefaultValuedAttr<BoolAttr, "false">:$right_transpose),
                       chipAttrs);
  let results = (outs Tpu_Tensor:$output);
  let hasVerifier = 1;
}

def Tpu_A16MatMulOp : Tpu_ComputeOp<"A16MatMul"> {
  let summary = "matmul with a weight-only quantized weight";
  let description = [{
    `output = input x dequant(weight)^T + bias` for a float activation
    `input` [..., M, K] (f16, bf16 or f32; the output has its element type)
    and a `weight` [N, K] in Linear layout holding `weight_bits`-bit
    integers (4 or 8): i4/ui4 or i8/ui8, or a quantized type with that
    storage. The weight is dequantized group-wise along K:

      `dequant(weight)[n, k] = (weight[n, k] - zp[n, k / G]) * scale[n, k / G]`

    with G the group size. `q_group_size` = 0 means per-channel
    quantization, one group spanning K (G = K); otherwise G =
    `q_group_size`, which must divide K (so `q_group_size` = K is the same as
    0). `scale` is a float tensor [N, K / G]; `zp` is [N, K / G] (integers
    or floats) for asymmetric quantization, or none for symmetric.

    The integers are logical elements: packing two 4-bit values per byte is
    a matter of the command stream, not of this op. A quantized weight type
    must state the same grouping as the attributes (per-axis along N when
    per-channel, sub-channel with blocks {0:1, 1:G} otherwise) and be
    symmetric when `zp` is none; `scale` and `zp` then hold its parameters as
    the tensors the kernel reads. A `!quant.any` weight type states storage
    and expressed type only (`!quant.any<i4:f16>`): its parameters are
    `scale` and `zp`, whose values the compiler derives from the checkpoint
    when it writes the binary. Its expressed type is the element type of
    `scale`, and an unsigned storage type needs `zp`.

    ```mlir
    %y = tpu.A16MatMul %x, %w, %s, %zp, %none {weight_bits = 4, q_group_size = 128}
        : (tensor<1x16x4096xf16>, tensor<1024x4096xui4>, tensor<1024x32xf16>,
           tensor<1024x32xui4>, none) -> tensor<1x16x1024xf16>
    ```
  }];
  let arguments = !con((ins Tpu_ActivationTensor:$input,
                            Tpu_QuantWeightTensor:$weight,
                            Tpu_FloatTensor:$scale,
                            Tpu_ZeroPointTensorOrNone:$zp,
                            Tpu_FloatTensorOrNone:$bias,
                            I64Attr:$weight_bits,
                            DefaultValuedAttr<I64Attr, "0">:$q_group_size),
                       chipAttrs);
  let results = (outs Tpu_ActivationTensor:$output);
  let hasVerifier = 1;
}

def Tpu_A8MatMulOp : Tpu_ComputeOp<"A8MatMul"> {
  let summary = "INT8 matmul: 8-bit activation, per-channel 8-bit weight";
  let description = [{
    `output = dequant(input) x dequant(weight)^T + bias`, computed as
    integers: for an `input` [..., M, K] quantized per tensor
    (`!quant.uniform<i8:f16, s>` symmetric, `!quant.uniform<u8:f16, s:zp>`
    asymmetric; a `tpu.Cast` quantizes it with the calibrated scale) and a
    symmetric 8-bit `weight` [N, K] in Linear layout with one f32 `scale`
    per output channel ([N, 1]),

      `acc[m, n] = sum_k (input[m, k] - zp) * weight[n, k]`   (exact, int32)
      `output[m, n] = acc[m, n] * (s * scale[n]) + bias[n]`

    rounded once to the output type, the input's expressed type. The bias
    stays float. A `!quant.any<i8:f32>` weight states the storage only;
    its values and `scale` are derived from the checkpoint when the binary
    is written (as `tpu.A16MatMul`'s are). The per-channel scales are an
    operand rather than a per-axis weight type because the IR holds no
    weight data.

    ```mlir
    %q = tpu.Cast %x : (tensor<1x16x256xf16>) -> tensor<1x16x256x!quant.uniform<i8:f16, 0.025>>
    %y = tpu.A8MatMul %q, %w, %s, %none
        : (tensor<1x16x256x!quant.uniform<i8:f16, 0.025>>,
           tensor<512x256x!quant.any<i8:f32>>, tensor<512x1xf32>, none)
        -> tensor<1x16x512xf16>
    ```
  }];
  let arguments = !con((ins Tpu_QuantTensor:$input,
                            Tpu_QuantWeightTensor:$weight,
                            Tpu_FloatTensor:$scale,
                            Tpu_FloatTensorOrNone:$bias),
                       chipAttrs);
  let results = (outs Tpu_ActivationTensor:$output);
  let hasVerifier = 1;
}

def Tpu_RMSNormOp : Tpu_ComputeOp<"RMSNorm"> {
  let summary = "root-mean-square normalization over the last dimension";
  let description = [{
    `top.RMSNorm` with chip element types: `output = input /
    sqrt(mean(input^2) + eps) * weight`, the mean over the last dimension;
    `weight` is [D] or none.
  }];
  let arguments = !con((ins Tpu_FloatTensor:$input,
                            Tpu_FloatTensorOrNone:$weight, PositiveF64Attr:$eps),
                       chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_LayerNormOp : Tpu_ComputeOp<"LayerNorm"> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    `top.LayerNorm` with chip element types: `output = (input - mean) /
    sqrt(var + eps) * weight + bias` over the last dimension; `weight` and
    `bias` are [D] or none.
  }];
  let arguments = !con((ins Tpu_FloatTensor:$input,
                            Tpu_FloatTensorOrNone:$weight,
                            Tpu_FloatTensorOrNone:$bias, PositiveF64Attr:$eps),
                       chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_GatherOp : Tpu_ComputeOp<"Gather",
    [AllElementTypesMatch<["table", "output"]>]> {
  let summary = "selects slices of a table by index";
  let description = [{
    `top.Gather`: the slices of `table` along `axis` named by `indices`,
    result shape table[:axis] + indices + table[axis+1:]. The table may be
    quantized (an INT8 embedding); the result keeps its element type.
  }];
  let arguments = !con((ins Tpu_Tensor:$table, Tpu_IndexTensor:$indices,
                            DefaultValuedAttr<I64Attr, "0">:$axis),
                       chipAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_A16GatherOp : Tpu_ComputeOp<"A16Gather"> {
  let summary = "selects rows of a weight-only quantized table, dequantized";
  let description = [{
    `top.Gather` along axis 0 of a table stored as a weight-only quantized
    Linear weight (a tied embedding, which the LM head reads in this form):
    row `i` of the result is `dequant(table)[indices[i]]`, with `table`
    [V, K], `scale`, `zp`, `weight_bits` and `q_group_size` as
    `tpu.A16MatMul`'s weight, and the result [..indices.., K] in the float
    type the piece computes in. The binary stores the table once, for both
    ops.

    ```mlir
    %e = tpu.A16Gather %w, %s, %none, %ids {weight_bits = 4, q_group_size = 64}
        : (tensor<4096x256x!quant.any<i4:bf16>>, tensor<4096x4xbf16>, none,
           tensor<1x16xi32>) -> tensor<1x16x256xbf16>
    ```
  }];
  let arguments = !con((ins Tpu_QuantWeightTensor:$table,
                            Tpu_FloatTensor:$scale,
                            Tpu_ZeroPointTensorOrNone:$zp,
                            Tpu_IndexTensor:$indices,
                            I64Attr:$weight_bits,
                            DefaultValuedAttr<I64Attr, "0">:$q_group_size),
                       chipAttrs);
  let results = (outs Tpu_ActivationTensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused transformer blocks
//===----------------------------------------------------------------------===//

def Tpu_RopeOp : Tpu_ComputeOp<"Rope"> {
  let summary = "rotary position embedding";
  let description = [{
    `top.Rope`: rotates channel pairs of every head of `input` [B, L, H, D]
    by the angles whose cosines and sines `cos` and `sin` [B or 1, L, R]
    hold; the first R channels of each head rotate, paired as `mode` says.
  }];
  let arguments = !con((ins Tpu_FloatTensor:$input, Tpu_FloatTensor:$cos,
                            Tpu_FloatTensor:$sin,
                            DefaultValuedAttr<Top_RopeModeAttr,
                                              "::llmc::top::RopeMode::Half">:$mode),
                       chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_FAttentionOp : Tpu_ComputeOp<"FAttention"> {
  let summary = "fused scaled-dot-product attention with grouped KV heads";
  let description = [{
    `top.FAttention`: `softmax(q k^T * scale + mask) v` per head for `q`
    [B, Lq, q_head, head_dim] and `k`, `v` [B, Lk, kv_head, head_dim], with
    an optional additive `mask` [B or 1, Lq, Lk] and `causal` masking; the
    result is [B, Lq, q_head * head_dim]. `k` and `v` may be quantized: an
    INT8 KV cache is dequantized inside the kernel.
  }];
  let arguments = !con((ins Tpu_FloatTensor:$q, Tpu_FloatOrQuantTensor:$k,
                            Tpu_FloatOrQuantTensor:$v,
                            Tpu_FloatTensorOrNone:$mask,
                            PositiveF64Attr:$scale, I64Attr:$q_head, I64Attr:$kv_head,
                            I64Attr:$head_dim,
                            DefaultValuedAttr<BoolAttr, "false">:$causal,
                            DefaultValuedAttr<NonNegativeF64Attr, "0.0">:$softcap),
                       chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_MLPOp : Tpu_ComputeOp<"MLP"> {
  let summary = "fused gated MLP";
  let description = [{
    `top.MLP`: `down(act(gate(x)) * up(x))` with weights in Linear layout,
    `gate` and `up` [F, D] and `down` [D, F]. The weights may be quantized
    (weight-only W8/W4, per-axis or sub-channel types): the kernel
    dequantizes them as it streams them.
  }];
  let arguments = !con((ins Tpu_FloatTensor:$input,
                            Tpu_FloatOrQuantTensor:$gate,
                            Tpu_FloatOrQuantTensor:$up,
                            Tpu_FloatOrQuantTensor:$down,
                            DefaultValuedAttr<Top_ActivationAttr,
                                "::llmc::top::Activation::SiLU">:$activation),
                       chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_A16MLPOp : Tpu_ComputeOp<"A16MLP"> {
  let summary = "fused gated MLP with weight-only quantized weights";
  let description = [{
    `tpu.MLP` whose three weights are quantized as `tpu.A16MatMul`'s weight
    is: `down(act(gate(x)) * up(x))` for a float `input` [..., D] (f16,
    bf16 or f32; the output has its element type), with `gate` and `up`
    [F, D] and `down` [D, F] in Linear layout, each holding `weight_bits`-bit
    integers dequantized group-wise along its own K (D for gate and up, F
    for down):

      `dequant(w)[n, k] = (w[n, k] - w_zp[n, k / G]) * w_scale[n, k / G]`

    `q_group_size` = 0 is per-channel (G = K); otherwise G must divide both
    D and F. The three weights share bits and grouping; their zero points
    are all given (asymmetric) or all none (symmetric). The MLP stays one op
    so a kernel streams the three quantized weights once per token.

    ```mlir
    %y = tpu.A16MLP %x, %g, %u, %d, %gs, %us, %ds, %none, %none, %none
        {weight_bits = 4 : i64, q_group_size = 64 : i64}
        : (tensor<1x16x256xf16>, tensor<768x256x!quant.any<i4:f16>>,
           tensor<768x256x!quant.any<i4:f16>>,
           tensor<256x768x!quant.any<i4:f16>>, tensor<768x4xf16>,
           tensor<768x4xf16>, tensor<256x12xf16>, none, none, none)
        -> tensor<1x16x256xf16>
    ```
  }];
  let arguments = !con((ins Tpu_ActivationTensor:$input,
                            Tpu_QuantWeightTensor:$gate,
                            Tpu_QuantWeightTensor:$up,
                            Tpu_QuantWeightTensor:$down,
                            Tpu_FloatTensor:$gate_scale,
                            Tpu_FloatTensor:$up_scale,
                            Tpu_FloatTensor:$down_scale,
                            Tpu_ZeroPointTensorOrNone:$gate_zp,
                            Tpu_ZeroPointTensorOrNone:$up_zp,
                            Tpu_ZeroPointTensorOrNone:$down_zp,
                            I64Attr:$weight_bits,
                            DefaultValuedAttr<I64Attr, "0">:$q_group_size,
                            DefaultValuedAttr<Top_ActivationAttr,
                                "::llmc::top::Activation::SiLU">:$activation),
                       chipAttrs);
  let results = (outs Tpu_ActivationTensor:$output);
  let hasVerifier = 1;
}

def Tpu_A8MLPOp : Tpu_ComputeOp<"A8MLP"> {
  let summary = "fused gated MLP on 8-bit activations and weights";
  let description = [{
    `tpu.MLP` computed as `tpu.A8MatMul`s: `down(act(gate(x)) * up(x))` for
    an `input` [..., D] quantized per tensor (as `tpu.A8MatMul`'s), with
    symmetric 8-bit weights `gate` and `up` [F, D] and `down` [D, F], each
    with f32 per-channel scales [N, 1]. The gated intermediate
    `act(g) * u` is computed in the output type and quantized with the
    calibrated `intermediate` type (`!quant.uniform<i8:f16, s>` or
    `<u8:f16, s:zp>`, expressed in the output type) before the down
    projection. The MLP stays one op so a kernel streams the three weights
    once per token.

    ```mlir
    %y = tpu.A8MLP %q, %g, %u, %d, %gs, %us, %ds
        {intermediate = !quant.uniform<i8:f16, 0.05>}
        : (tensor<1x16x256x!quant.uniform<i8:f16, 0.025>>,
           tensor<768x256x!quant.any<i8:f32>>, tensor<768x256x!quant.any<i8:f32>>,
           tensor<256x768x!quant.any<i8:f32>>, tensor<768x1xf32>,
           tensor<768x1xf32>, tensor<256x1xf32>) -> tensor<1x16x256xf16>
    ```
  }];
  let arguments = !con((ins Tpu_QuantTensor:$input,
                            Tpu_QuantWeightTensor:$gate,
                            Tpu_QuantWeightTensor:$up,
                            Tpu_QuantWeightTensor:$down,
                            Tpu_FloatTensor:$gate_scale,
                            Tpu_FloatTensor:$up_scale,
                            Tpu_FloatTensor:$down_scale,
                            TypeAttr:$intermediate,
                            DefaultValuedAttr<Top_ActivationAttr,
                                "::llmc::top::Activation::SiLU">:$activation),
                       chipAttrs);
  let results = (outs Tpu_ActivationTensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Tpu_AddOp : Tpu_ComputeOp<"Add", [Commutative,
    Tpu_SameElementTypeUpToQuantParams]> {
  let summary = "elementwise sum with broadcasting";
  let description = [{
    `lhs + rhs` with NumPy broadcasting. Quantized operands and result may
    have different scales and zero points: the kernel rescales.
  }];
  let arguments = !con((ins Tpu_Tensor:$lhs, Tpu_Tensor:$rhs), chipAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_MulOp : Tpu_ComputeOp<"Mul", [Commutative,
    Tpu_SameElementTypeUpToQuantParams]> {
  let summary = "elementwise product with broadcasting";
  let description = [{
    `lhs * rhs` with NumPy broadcasting; quantized values may differ in
    scale and zero point, as for `tpu.Add`.
  }];
  let arguments = !con((ins Tpu_Tensor:$lhs, Tpu_Tensor:$rhs), chipAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_DivOp : Tpu_ComputeOp<"Div", [SameOperandsAndResultElementType]> {
  let summary = "elementwise quotient with broadcasting";
  let description = [{
    `top.Div` with chip element types: `lhs / rhs` with NumPy broadcasting
    and IEEE 754 semantics (x / 0 is an infinity, 0 / 0 is NaN), rounded
    once to the element type.
  }];
  let arguments = !con((ins Tpu_FloatTensor:$lhs, Tpu_FloatTensor:$rhs),
                       chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_MulConstOp : Tpu_ComputeOp<"MulConst",
    [Tpu_SameElementTypeUpToQuantParams]> {
  let summary = "multiplies by a constant";
  let description = [{
    `input * const_val`; an INT8 kernel may fold the constant into the
    output scale.
  }];
  let arguments = !con((ins Tpu_Tensor:$input, F64Attr:$const_val),
                       chipAttrs);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_SiLUOp : Tpu_ComputeOp<"SiLU", [Tpu_SameElementTypeUpToQuantParams]> {
  let summary = "sigmoid linear unit";
  let description = [{
    `input * sigmoid(input)`; an INT8 kernel evaluates it by table lookup,
    so input and output scales may differ.
  }];
  let arguments = !con((ins Tpu_FloatOrQuantTensor:$input), chipAttrs);
  let results = (outs Tpu_FloatOrQuantTensor:$output);
}

def Tpu_TanhOp : Tpu_ComputeOp<"Tanh", [SameOperandsAndResultType]> {
  let summary = "hyperbolic tangent";
  let description = [{ `top.Tanh`: `tanh(input)`, in float. }];
  let arguments = !con((ins Tpu_FloatTensor:$input), chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_GELUOp : Tpu_ComputeOp<"GELU", [Tpu_SameElementTypeUpToQuantParams]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `input * Phi(input)`, with Phi exact (`none`) or tanh-approximated
    (`tanh`); quantized values as for `tpu.SiLU`.
  }];
  let arguments = !con((ins Tpu_FloatOrQuantTensor:$input,
                            DefaultValuedAttr<Top_GELUApproximationAttr,
                                "::llmc::top::GELUApproximation::None">:$approximation),
                       chipAttrs);
  let results = (outs Tpu_FloatOrQuantTensor:$output);
}

def Tpu_SoftmaxOp : Tpu_ComputeOp<"Softmax",
    [Tpu_SameElementTypeUpToQuantParams]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis` (negative counts from
    the end).
  }];
  let arguments = !con((ins Tpu_FloatOrQuantTensor:$input,
                            DefaultValuedAttr<I64Attr, "-1">:$axis),
                       chipAttrs);
  let results = (outs Tpu_FloatOrQuantTensor:$output);
}

def Tpu_CumSumOp : Tpu_ComputeOp<"CumSum", [SameOperandsAndResultType]> {
  let summary = "running sum along one axis";
  let description = [{
    `top.CumSum` with chip element types: `output[i] = input[0] + ... +
    input[i]` along `axis` (negative counts from the end); `exclusive`
    leaves the element itself out (`output[0] = 0`), `reverse` sums from
    the end. The sum accumulates in higher precision than the element type
    and each output is rounded once, so an exclusive sum equals the
    inclusive sum of the previous position exactly.
  }];
  let arguments = !con((ins Tpu_FloatTensor:$input,
                            DefaultValuedAttr<I64Attr, "-1">:$axis,
                            DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                            DefaultValuedAttr<BoolAttr, "false">:$reverse),
                       chipAttrs);
  let results = (outs Tpu_FloatTensor:$output);
}

def Tpu_CastOp : Tpu_ComputeOp<"Cast"> {
  let summary = "converts the element type";
  let description = [{
    Converts every element, keeping the shape:
    - float to float (f32, f16, bf16): rounds to the nearest;
    - float to quantized: quantizes, `round(x / scale) + zero_point`
      clamped to the storage range; the float type is the quantized
      type's expressed type;
    - quantized to float: dequantizes, `(q - zero_point) * scale`, to the
      expressed type;
    - quantized to quantized with the same expressed type: requantizes.

    ```mlir
    %q = tpu.Cast %x : (tensor<1x16x256xf32>) -> tensor<1x16x256x!quant.uniform<i8:f32, 0.05>>
    ```
  }];
  let arguments = !con((ins Tpu_FloatOrQuantTensor:$input), chipAttrs);
  let results = (outs Tpu_FloatOrQuantTensor:$output);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// A ranked tensor of any element type a chip computes on.
def Tpu_RankedTensor
    : RankedTensorOf<[AnyFloat, AnySignlessInteger, quant_QuantizedType]>;

def Tpu_ReshapeOp : Tpu_ComputeOp<"Reshape",
    [SameOperandsAndResultElementType]> {
  let summary = "reinterprets a tensor with a new shape";
  let description = [{
    Same elements in the same row-major order, the result type's shape; one
    result dimension may be dynamic. Data movement never changes the element
    type: a per-axis or sub-channel type must still fit the new shape.
  }];
  let arguments = !con((ins Tpu_RankedTensor:$input), chipAttrs);
  let results = (outs Tpu_RankedTensor:$output);
}

def Tpu_PermuteOp : Tpu_ComputeOp<"Permute",
    [SameOperandsAndResultElementType]> {
  let summary = "transposes dimensions";
  let description = [{
    Result dimension i is input dimension `order[i]`.
  }];
  let arguments = !con((ins Tpu_RankedTensor:$input,
                            DenseI64ArrayAttr:$order),
                       chipAttrs);
  let results = (outs Tpu_RankedTensor:$output);
}

def Tpu_ConcatOp : Tpu_ComputeOp<"Concat",
    [SameOperandsAndResultElementType]> {
  let summary = "joins tensors along one axis";
  let description = [{
    Concatenates `inputs` along `axis`; every other dimension must agree.
    Quantized inputs share one type: requantize with `tpu.Cast` first.
  }];
  let arguments = !con((ins Variadic<Tpu_RankedTensor>:$inputs, I64Attr:$axis),
                       chipAttrs);
  let results = (outs Tpu_RankedTensor:$output);
}

def Tpu_SliceOp : Tpu_ComputeOp<"Slice", [SameOperandsAndResultElementType]> {
  let summary = "strided slice";
  let description = [{
    Keeps `input[starts[d] : ends[d] : steps[d]]` in every dimension d;
    negative starts and ends count from the end, ends are clamped, steps are
    positive.
  }];
  let arguments = !con((ins Tpu_RankedTensor:$input,
                            DenseI64ArrayAttr:$starts,
                            DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps),
                       chipAttrs);
  let results = (outs Tpu_RankedTensor:$output);
}

def Tpu_ScatterElementsOp : Tpu_ComputeOp<"ScatterElements",
    [AllElementTypesMatch<["data", "updates", "output"]>]> {
  let summary = "writes updates into a copy of data at indexed positions";
  let description = [{
    `top.ScatterElements`: `data` with, for every position p of `indices`,
    the element at p with p[axis] replaced by `indices[p]` set to
    `updates[p]`. Updates apply in row-major order of `indices`, so the last
    of several naming one element wins; an index outside [0,
    data.shape[axis]) is an error at run time.
  }];
  let arguments = !con((ins Tpu_NumericTensor:$data,
                            Tpu_IndexTensor:$indices,
                            Tpu_NumericTensor:$updates,
                            DefaultValuedAttr<I64Attr, "0">:$axis),
                       chipAttrs);
  let results = (outs Tpu_NumericTensor:$output);
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

def Tpu_CompareOp : Tpu_ComputeOp<"Compare",
    [AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    `top.Compare`: `lhs <mode> rhs` with NumPy broadcasting, for floats or
    integers of one element type. The result holds 1 where the relation
    holds and 0 where it does not, in its integer type (an i1 mask takes a
    byte per element in memory). A NaN makes every relation false except
    `ne`.

    ```mlir
    %m = tpu.Compare %x, %zero {mode = #top<compare_mode gt>}
        : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xi1>
    ```
  }];
  let arguments = !con((ins Tpu_NumericTensor:$lhs, Tpu_NumericTensor:$rhs,
                            Top_CompareModeAttr:$mode),
                       chipAttrs);
  let results = (outs Tpu_IndexTensor:$output);
}

def Tpu_WhereOp : Tpu_ComputeOp<"Where",
    [AllElementTypesMatch<["x", "y", "output"]>]> {
  let summary = "elementwise choice between two tensors";
  let description = [{
    `top.Where`: `cond ? x : y` elementwise with NumPy broadcasting of all
    three operands; an element of `cond` (any integer type) picks `x` when
    nonzero and `y` when zero. The chosen elements are moved, not computed,
    so `x` and `y` may be floats or integers (masks: `Where(a, a, b)` is `a
    or b`).
  }];
  let arguments = !con((ins Tpu_IndexTensor:$cond, Tpu_NumericTensor:$x,
                            Tpu_NumericTensor:$y),
                       chipAttrs);
  let results = (outs Tpu_NumericTensor:$output);
}

def Tpu_ArgOp : Tpu_ComputeOp<"Arg"> {
  let summary = "index of the largest or smallest element";
  let description = [{
    The index along `axis` of the maximum (`argmax`) or minimum (`argmin`),
    the first one on ties. Quantized logits give the same index as their
    float values, so the greedy head may stay in INT8.
  }];
  let arguments = !con((ins Tpu_Tensor:$input, I64Attr:$axis,
                            DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                            DefaultValuedAttr<Top_ArgModeAttr,
                                "::llmc::top::ArgMode::ArgMax">:$mode),
                       chipAttrs);
  let results = (outs Tpu_IndexTensor:$indices);
}

def Tpu_TopKOp : Tpu_ComputeOp<"TopK",
    [AllElementTypesMatch<["input", "values"]>]> {
  let summary = "the k largest or smallest elements and their indices";
  let description = [{
    Along `axis`, the k largest (`largest`) or smallest values in
    descending (ascending) order with their indices; ties keep the lower
    index first.
  }];
  let arguments = !con((ins Tpu_Tensor:$input, I64Attr:$k,
                            DefaultValuedAttr<I64Attr, "-1">:$axis,
                            DefaultValuedAttr<BoolAttr, "true">:$largest),
                       chipAttrs);
  let results = (outs Tpu_Tensor:$values, Tpu_IndexTensor:$indices);
}

//===----------------------------------------------------------------------===//
// Layer groups
//===----------------------------------------------------------------------===//

def Tpu_GroupOp : Tpu_Op<"Group", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects, RecursivelySpeculatable]> {
  let summary = "a layer group: ops that run tile by tile in local memory";
  let description = [{
    The ops of one layer group, as the layer-group pass forms it. `inputs`
    are the values the group reads from global memory; the body's single
    block takes one argument per input, of the same type, and ends in
    `tpu.Yield`, whose operands are the group's results (the values it
    writes back, through `tpu.Store`). A group without results may leave
    its empty `tpu.Yield` implicit.

    The group computes its results in tiles: `tile_factors[d]` is the
    number of tiles dimension d of every result is cut into (each at least
    1 and at most the dimension's size; every result has at least as many
    dimensions as `tile_factors` has entries, the leading ones cut, so that
    results of different ranks, q and k split into heads beside v's rows,
    share the tiles). The tiles run through a software pipeline of
    `stages` stages, so that loading one tile, computing another and
    storing a third overlap; the `lg` attribute of each op in the body
    names its stage. `group_id` identifies the group; ops of the body
    carry it as `lg.id`. Groups do not nest.

    ```mlir
    %y = tpu.Group(%x, %w) {group_id = 0 : i64, stages = 3 : i64,
                            tile_factors = array<i64: 1, 4, 1>}
        : (tensor<1x16x256xf16>, tensor<256xf16>) -> tensor<1x16x256xf16> {
    ^bb0(%gx: tensor<1x16x256xf16>, %gw: tensor<256xf16>):
      %lx = tpu.Load %gx {lg = #tpu.lg<...>} : ...
      ...
      %sy = tpu.Store %ly {lg = #tpu.lg<...>} : ...
      tpu.Yield %sy : tensor<1x16x256xf16>
    }
    ```
  }];
  let arguments = (ins Variadic<Tpu_GroupInputTensor>:$inputs,
                       I64Attr:$group_id,
                       DenseI64ArrayAttr:$tile_factors,
                       DefaultValuedAttr<I64Attr, "1">:$stages);
  let results = (outs Variadic<Tpu_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tpu_YieldOp : Tpu_Op<"Yield", [Pure, ReturnLike, Terminator,
    HasParent<"GroupOp">]> {
  let summary = "ends a layer group and names its results";
  let description = [{
    Terminates the body of a `tpu.Group`; its operands become the group's
    results, in order and with the same types.
  }];
  let arguments = (ins Variadic<Tpu_Tensor>:$operands);
  let builders = [OpBuilder<(ins), [{ /* a group without results */ }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

def Tpu_LoadOp : Tpu_ComputeOp<"Load", [SameOperandsAndResultType,
    HasParent<"GroupOp">]> {
  let summary = "DMA from global to local memory";
  let description = [{
    Copies (the current tile of) a value in global memory to local memory
    for the ops of a layer group. The value is unchanged; `lg` says when the
    copy runs and where in local memory it lands.

    ```mlir
    %l = tpu.Load %x {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 8192, bank = 0>}
        : (tensor<1x16x256xf16>) -> tensor<1x16x256xf16>
    ```
  }];
  let arguments = (ins Tpu_Tensor:$input, Tpu_LayerGroupAttr:$lg);
  let results = (outs Tpu_Tensor:$output);
}

def Tpu_StoreOp : Tpu_ComputeOp<"Store", [SameOperandsAndResultType,
    HasParent<"GroupOp">]> {
  let summary = "DMA from local to global memory";
  let description = [{
    Copies (the current tile of) a value a layer group computed from local
    memory back to global memory. `lg` says when the copy runs and which
    local buffer it drains; `addr`, when assigned, is the global range the
    result occupies.
  }];
  let arguments = (ins Tpu_Tensor:$input, Tpu_LayerGroupAttr:$lg,
                       OptionalAttr<Tpu_MemArrayAttr>:$addr);
  let results = (outs Tpu_Tensor:$output);
}

#endif // LLMC_DIALECTS_TPU_TPUOPS_TD
