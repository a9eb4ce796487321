//===- TopOps.td - operations of the top dialect ---------*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TOP_TOPOPS_TD
#define LLMC_DIALECTS_TOP_TOPOPS_TD

include "dialects/top/IR/TopBase.td"
include "dialects/top/IR/TopAttrs.td"
include "dialects/common/IR/CommonConstraints.td"
include "dialects/common/IR/ShapeInferenceInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

/// A pure op whose result shapes come from its shape function.
class Top_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Top_Op<mnemonic, !listconcat(traits, [Pure,
        DeclareOpInterfaceMethods<ShapeInferenceOpInterface>])> {
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Graph leaves
//===----------------------------------------------------------------------===//

def Top_InputOp : Top_ComputeOp<"Input", [SameOperandsAndResultType]> {
  let summary = "marks a piece input";
  let description = [{
    Wraps a function argument of a piece. `role` tells the runtime what the
    input carries (`hidden`, `position_ids`, `mask`, `history_k`, ...); it is
    kept through lowering so the binary can describe its IO bindings.

    ```mlir
    %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x16xi32>) -> tensor<1x16xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, OptionalAttr<StrAttr>:$role);
  let results = (outs AnyRankedTensor:$output);
}

def Top_WeightOp : Top_ComputeOp<"Weight"> {
  let summary = "a named tensor of the model's weight source";
  let description = [{
    Refers to the tensor `name` of the model's external weight source (a
    safetensors file, GGUF file or ONNX initializer). The IR never holds weight
    data: the result type states the shape and the element type the tensor
    is read as, and backends fetch the bytes when they emit the binary. The
    shape may differ from the stored one with the same element count: the
    tensor is then read row-major (a convolution kernel [out, in, h, w] as
    a MatMul's [out, in·h·w]).

    ```mlir
    %w = top.Weight "model.layers.0.mlp.up_proj.weight" : () -> tensor<768x256xf32>
    ```

    `stored` marks a weight the checkpoint stores quantized (a
    `#top.stored_quant`); it must be a matrix whose K its group size divides.
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<Top_StoredQuantAttr>:$stored);
  let results = (outs AnyStaticShapeTensor:$output);
  let builders = [
    OpBuilder<(ins "mlir::Type":$type, "llvm::StringRef":$name), [{
      build($_builder, $_state, type, name, StoredQuantAttr());
    }]>,
  ];
  let assemblyFormat = "$name attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Top_NoneOp : Top_Op<"None", [Pure]> {
  let summary = "the absent value of an optional operand";
  let description = [{
    Produces the value that stands for an omitted optional operand, such as
    the bias of a MatMul without bias or the mask of an unmasked attention.

    ```mlir
    %none = top.None : none
    ```
  }];
  let results = (outs NoneType:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

def Top_ConstantOp : Top_ComputeOp<"Constant", [ConstantLike,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "a small tensor stated in the IR";
  let description = [{
    The tensor `value`, held in the IR: thresholds, fill values and masks
    that a piece computes with, such as the 0 a sampling head compares
    logits with or the -inf that filtered logits become. Checkpoint tensors
    never become constants; they stay `top.Weight` so that the IR stays
    small and backends place them once. `value` is a dense attribute of
    floats or signless integers (i1 for masks).

    ```mlir
    %zero = top.Constant dense<0.0> : tensor<1x1xf32>
    %first = top.Constant dense<[[true, false, false]]> : tensor<1x3xi1>
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

def Top_MatMulOp : Top_ComputeOp<"MatMul"> {
  let summary = "matrix multiplication with optional bias";
  let description = [{
    `output = input x right + bias` over the last two dimensions, with
    leading dimensions broadcast. `input` is [..., M, K] ([..., K, M] when
    `left_transpose`), `right` is [..., K, N] ([..., N, K] when
    `right_transpose`, the layout of a Linear layer's weight). `bias` is a
    tensor ending in N, or none.
  }];
  let arguments = (ins Top_FloatTensor:$input, Top_FloatTensor:$right,
                   Top_FloatTensorOrNone:$bias,
                   DefaultValuedAttr<BoolAttr, "false">:$left_transpose,
                   DefaultValuedAttr<BoolAttr, "false">:$right_transpose);
  let results = (outs Top_FloatTensor:$output);
}

def Top_RMSNormOp : Top_ComputeOp<"RMSNorm"> {
  let summary = "root-mean-square normalization over the last dimension";
  let description = [{
    `output = input / sqrt(mean(input^2) + eps) * weight`, with the mean over
    the last dimension. `weight` is [D] or none (no scaling).
  }];
  let arguments = (ins Top_FloatTensor:$input, Top_FloatTensorOrNone:$weight,
                   PositiveF64Attr:$eps);
  let results = (outs Top_FloatTensor:$output);
}

def Top_LayerNormOp : Top_ComputeOp<"LayerNorm"> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    `output = (input - mean) / sqrt(var + eps) * weight + bias`, with mean and
    (biased) variance over the last dimension. `weight` and `bias` are [D] or
    none.
  }];
  let arguments = (ins Top_FloatTensor:$input, Top_FloatTensorOrNone:$weight,
                   Top_FloatTensorOrNone:$bias, PositiveF64Attr:$eps);
  let results = (outs Top_FloatTensor:$output);
}

def Top_GatherOp : Top_ComputeOp<"Gather"> {
  let summary = "selects slices of a table by index";
  let description = [{
    Picks the slices of `table` along `axis` named by `indices`: the result
    shape is table[:axis] + indices + table[axis+1:]. With a [vocab, hidden]
    table and [1, L] token ids it is the token embedding; with a
    [positions, rotary_dim] table and position ids it fetches rotary cos/sin.
    Indices out of range are an error at run time.
  }];
  let arguments = (ins Top_FloatTensor:$table, Top_IndexTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Top_FloatTensor:$output);
}

//===----------------------------------------------------------------------===//
// Fused transformer blocks
//===----------------------------------------------------------------------===//

def Top_RopeOp : Top_ComputeOp<"Rope"> {
  let summary = "rotary position embedding";
  let description = [{
    Rotates channel pairs of every head of `input` [B, L, H, D] by the angles
    whose cosines and sines are given per position in `cos` and `sin`
    [B or 1, L, R]. The first R channels of each head rotate; the others pass
    through. In `half` mode channel i pairs with i + R/2 and cos/sin hold
    each angle twice (`[c0..c(R/2-1), c0..c(R/2-1)]`, the Hugging Face
    layout); in `interleaved` mode channel 2i pairs with 2i + 1 and cos/sin
    hold each angle at 2i and 2i + 1.
  }];
  let arguments = (ins Top_FloatTensor:$input, Top_FloatTensor:$cos,
                   Top_FloatTensor:$sin,
                   DefaultValuedAttr<Top_RopeModeAttr, "RopeMode::Half">:$mode);
  let results = (outs Top_FloatTensor:$output);
}

def Top_FAttentionOp : Top_ComputeOp<"FAttention"> {
  let summary = "fused scaled-dot-product attention with grouped KV heads";
  let description = [{
    `softmax(q k^T * scale + mask) v` per head, for `q` [B, Lq, q_head,
    head_dim] and `k`, `v` [B, Lk, kv_head, head_dim]. Query head h reads KV
    head h / (q_head / kv_head): grouped-query attention without repeating
    K/V. `mask` [B or 1, Lq, Lk] is added to the scores (0 or -inf style
    values) or is none. With `causal`, query i also ignores keys after
    position Lk - Lq + i, so prompt queries that follow a history of
    Lk - Lq cached keys see the history and the earlier prompt tokens. The
    result is [B, Lq, q_head * head_dim], the layout the output projection
    consumes. A positive `softcap` c bounds the scaled scores to (-c, c)
    before the mask, `c * tanh(s / c)` (Gemma 2's attention logit
    soft-capping); 0 leaves them as they are.
  }];
  let arguments = (ins Top_FloatTensor:$q, Top_FloatTensor:$k,
                   Top_FloatTensor:$v, Top_FloatTensorOrNone:$mask,
                   PositiveF64Attr:$scale, I64Attr:$q_head, I64Attr:$kv_head,
                   I64Attr:$head_dim,
                   DefaultValuedAttr<BoolAttr, "false">:$causal,
                   DefaultValuedAttr<NonNegativeF64Attr, "0.0">:$softcap);
  let results = (outs Top_FloatTensor:$output);
}

def Top_MLPOp : Top_ComputeOp<"MLP"> {
  let summary = "fused gated MLP";
  let description = [{
    `down(act(gate(x)) * up(x))` with weights in Linear layout ([out, in]):
    `gate` and `up` are [F, D], `down` is [D, F]. This is the feed-forward
    block of Llama and Qwen (`act` = silu); it stays fused so a backend can
    stream the three weights once per token.
  }];
  let arguments = (ins Top_FloatTensor:$input, Top_FloatTensor:$gate,
                   Top_FloatTensor:$up, Top_FloatTensor:$down,
                   DefaultValuedAttr<Top_ActivationAttr,
                                     "Activation::SiLU">:$activation);
  let results = (outs Top_FloatTensor:$output);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Top_AddOp : Top_ComputeOp<"Add", [Commutative,
    SameOperandsAndResultElementType]> {
  let summary = "elementwise sum with broadcasting";
  let description = [{
    `lhs + rhs` with NumPy broadcasting; the residual connections of a block.
  }];
  let arguments = (ins Top_FloatTensor:$lhs, Top_FloatTensor:$rhs);
  let results = (outs Top_FloatTensor:$output);
}

def Top_MulOp : Top_ComputeOp<"Mul", [Commutative,
    SameOperandsAndResultElementType]> {
  let summary = "elementwise product with broadcasting";
  let description = [{ `lhs * rhs` with NumPy broadcasting. }];
  let arguments = (ins Top_FloatTensor:$lhs, Top_FloatTensor:$rhs);
  let results = (outs Top_FloatTensor:$output);
}

def Top_DivOp : Top_ComputeOp<"Div", [SameOperandsAndResultElementType]> {
  let summary = "elementwise quotient with broadcasting";
  let description = [{
    `lhs / rhs` with NumPy broadcasting and IEEE 754 semantics (x / 0 is an
    infinity, 0 / 0 is NaN). A sampling head divides logits by the
    temperature and by the repetition penalty, both [1, 1] inputs.
  }];
  let arguments = (ins Top_FloatTensor:$lhs, Top_FloatTensor:$rhs);
  let results = (outs Top_FloatTensor:$output);
}

def Top_MulConstOp : Top_ComputeOp<"MulConst", [SameOperandsAndResultType]> {
  let summary = "multiplies by a constant";
  let description = [{
    `input * const_val`; for example Gemma-style embedding scaling or a
    temperature applied to logits.
  }];
  let arguments = (ins Top_FloatTensor:$input, F64Attr:$const_val);
  let results = (outs Top_FloatTensor:$output);
  let hasFolder = 1;
}

def Top_FakeQuantOp : Top_ComputeOp<"FakeQuant",
    [SameOperandsAndResultType]> {
  let summary = "rounds values to an 8-bit quantization grid";
  let description = [{
    `(clamp(round(input / scale) + zero_point, qmin, qmax) - zero_point) *
    scale`, in float32 (`round` half away from zero): the values an INT8
    kernel sees after quantizing its activation. `llmc eval --quantize
    INT8` inserts it so the reference interpreter computes on the numbers
    the chip does; no checkpoint produces it.

    ```mlir
    %q = top.FakeQuant %x {scale = 0.025 : f64, zero_point = 0 : i64,
                           qmin = -128 : i64, qmax = 127 : i64}
        : (tensor<1x16x256xf32>) -> tensor<1x16x256xf32>
    ```
  }];
  let arguments = (ins Top_FloatTensor:$input, PositiveF64Attr:$scale,
                       I64Attr:$zero_point, I64Attr:$qmin, I64Attr:$qmax);
  let results = (outs Top_FloatTensor:$output);
}

def Top_SiLUOp : Top_ComputeOp<"SiLU", [SameOperandsAndResultType]> {
  let summary = "sigmoid linear unit";
  let description = [{ `input * sigmoid(input)`. }];
  let arguments = (ins Top_FloatTensor:$input);
  let results = (outs Top_FloatTensor:$output);
}

def Top_TanhOp : Top_ComputeOp<"Tanh", [SameOperandsAndResultType]> {
  let summary = "hyperbolic tangent";
  let description = [{
    `tanh(input)`. Soft-capping, `c * tanh(x / c)`, is this between two
    `top.MulConst` (Gemma 2's final logits; ONNX's Tanh).
  }];
  let arguments = (ins Top_FloatTensor:$input);
  let results = (outs Top_FloatTensor:$output);
}

def Top_SigmoidOp : Top_ComputeOp<"Sigmoid", [SameOperandsAndResultType]> {
  let summary = "logistic sigmoid";
  let description = [{
    `1 / (1 + exp(-input))`. ONNX exports of SiLU are `input * Sigmoid(input)`
    until a raising pattern fuses them into `top.SiLU`.

    ```mlir
    %0 = top.Sigmoid %x : (tensor<1x8x768xf32>) -> tensor<1x8x768xf32>
    ```
  }];
  let arguments = (ins Top_FloatTensor:$input);
  let results = (outs Top_FloatTensor:$output);
}

def Top_GELUOp : Top_ComputeOp<"GELU", [SameOperandsAndResultType]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `input * Phi(input)`, with Phi the standard normal CDF computed exactly
    (`none`) or with the tanh approximation (`tanh`), as the checkpoint's
    `hidden_act` says.
  }];
  let arguments = (ins Top_FloatTensor:$input,
                   DefaultValuedAttr<Top_GELUApproximationAttr,
                                     "GELUApproximation::None">:$approximation);
  let results = (outs Top_FloatTensor:$output);
}

def Top_SqrtOp : Top_ComputeOp<"Sqrt", [SameOperandsAndResultType]> {
  let summary = "elementwise square root";
  let description = [{
    `sqrt(input)` with IEEE 754 semantics: a negative element gives NaN.
    ONNX exports of RMSNorm take the root of the mean of squares with it.

    ```mlir
    %0 = top.Sqrt %x : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
    ```
  }];
  let arguments = (ins Top_FloatTensor:$input);
  let results = (outs Top_FloatTensor:$output);
}

def Top_PowOp : Top_ComputeOp<"Pow", [SameOperandsAndResultType]> {
  let summary = "raises every element to a constant power";
  let description = [{
    `input ^ exponent` elementwise: ONNX's Pow with a scalar constant
    exponent, such as the square in an exported RMSNorm. An exponent of 2 is
    computed as `input * input`; others follow C's `pow` (a negative element
    to a non-integer power is NaN).

    ```mlir
    %0 = top.Pow %x {exponent = 2.000000e+00 : f64} : (tensor<1x8x768xf32>) -> tensor<1x8x768xf32>
    ```
  }];
  let arguments = (ins Top_FloatTensor:$input, F64Attr:$exponent);
  let results = (outs Top_FloatTensor:$output);
}

def Top_SoftmaxOp : Top_ComputeOp<"Softmax", [SameOperandsAndResultType]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis` (negative counts from the
    end); the probabilities of a sampling head.
  }];
  let arguments = (ins Top_FloatTensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Top_FloatTensor:$output);
}

def Top_CumSumOp : Top_ComputeOp<"CumSum", [SameOperandsAndResultType]> {
  let summary = "running sum along one axis";
  let description = [{
    `output[i] = input[0] + ... + input[i]` along `axis` (negative counts
    from the end), as ONNX's CumSum: with `exclusive` the element itself is
    left out (`output[0] = 0`), with `reverse` the sum runs from the end.
    Sums accumulate in higher precision and each output is rounded once, so
    an exclusive sum equals the inclusive sum of the previous position
    exactly. Top-p filtering compares the exclusive running sum of sorted
    probabilities with p: a token stays when the tokens ranked above it
    hold less than p.
  }];
  let arguments = (ins Top_FloatTensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Top_FloatTensor:$output);
}

def Top_ReduceMeanOp : Top_ComputeOp<"ReduceMean", [
    SameOperandsAndResultElementType]> {
  let summary = "mean over some axes";
  let description = [{
    The mean of `input` over `axes` (negative counts from the end; distinct,
    at least one), as ONNX's ReduceMean: with `keepdims` the reduced
    dimensions stay as 1, without it they are removed. Sums accumulate in
    double in element order and each mean is rounded once, as `top.RMSNorm`
    takes its mean of squares. ONNX exports of RMSNorm and LayerNorm take
    their statistics with it.

    ```mlir
    %0 = top.ReduceMean %x {axes = array<i64: -1>} : (tensor<1x8x768xf32>) -> tensor<1x8x1xf32>
    ```
  }];
  let arguments = (ins Top_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Top_FloatTensor:$output);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Top_ReshapeOp : Top_ComputeOp<"Reshape", [SameOperandsAndResultElementType]> {
  let summary = "reinterprets a tensor with a new shape";
  let description = [{
    Same elements in the same row-major order, new shape (the result type's).
    One result dimension may be dynamic; shape inference resolves it from the
    element count.
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Top_ExpandOp : Top_ComputeOp<"Expand", [SameOperandsAndResultElementType]> {
  let summary = "broadcasts a tensor to a larger shape";
  let description = [{
    NumPy broadcasting of `input` to the result type's shape, as ONNX's
    Expand once its shape operand is known: the shapes align at the last
    dimension, missing leading dimensions count as 1, and every input
    dimension is 1 (repeated) or the result's. A dynamic result dimension
    takes the input's when that is not 1.

    ```mlir
    %0 = top.Expand %mask : (tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
}

def Top_PermuteOp : Top_ComputeOp<"Permute", [SameOperandsAndResultElementType]> {
  let summary = "transposes dimensions";
  let description = [{ `output[i...] = input[...]` with result dimension i being input dimension `order[i]`. }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$order);
  let results = (outs AnyRankedTensor:$output);
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Top_ConcatOp : Top_ComputeOp<"Concat", [SameOperandsAndResultElementType]> {
  let summary = "joins tensors along one axis";
  let description = [{
    Concatenates `inputs` along `axis`; every other dimension must agree. The
    prefill_kv block uses it to put history K/V in front of the new tokens'.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
}

def Top_SliceOp : Top_ComputeOp<"Slice", [SameOperandsAndResultElementType]> {
  let summary = "strided slice";
  let description = [{
    Keeps `input[starts[d] : ends[d] : steps[d]]` in every dimension d.
    Negative starts and ends count from the end; ends are clamped to the
    dimension; steps are positive.
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs AnyRankedTensor:$output);
}

def Top_ScatterElementsOp : Top_ComputeOp<"ScatterElements", [
    AllElementTypesMatch<["data", "updates", "output"]>]> {
  let summary = "writes updates into a copy of data at indexed positions";
  let description = [{
    ONNX's ScatterElements without reduction: the result is `data` with, for
    every position p of `indices`, the element at p with p[axis] replaced by
    `indices[p]` set to `updates[p]`. `indices` and `updates` have one shape,
    of `data`'s rank and no larger than `data` outside `axis`. An index
    outside [0, data.shape[axis]) is an error at run time; unlike ONNX,
    negative indices do not count from the end (as for `top.Gather`, an
    importer normalizes them).

    Updates apply in row-major order of `indices`, so when several name one
    element the last one wins. The repetition penalty relies on this only
    where it cannot matter: repeated token ids carry identical updates.
  }];
  let arguments = (ins Top_NumericTensor:$data, Top_IndexTensor:$indices,
                   Top_NumericTensor:$updates,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Top_NumericTensor:$output);
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

def Top_CompareOp : Top_ComputeOp<"Compare", [
    AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    `lhs <mode> rhs` with NumPy broadcasting, for floats or integers of one
    element type. The result holds 1 where the relation holds and 0 where it
    does not, in its integer type: i1 normally, a wider integer where a
    consumer wants one. A NaN makes every relation false except `ne`.

    ```mlir
    %empty = top.Compare %ids, %zero {mode = #top<compare_mode lt>} : (tensor<1x64xi32>, tensor<1x1xi32>) -> tensor<1x64xi1>
    ```
  }];
  let arguments = (ins Top_NumericTensor:$lhs, Top_NumericTensor:$rhs,
                   Top_CompareModeAttr:$mode);
  let results = (outs Top_IndexTensor:$output);
}

def Top_WhereOp : Top_ComputeOp<"Where", [
    AllElementTypesMatch<["x", "y", "output"]>]> {
  let summary = "elementwise choice between two tensors";
  let description = [{
    `cond ? x : y` elementwise with NumPy broadcasting of all three operands:
    an element of `cond` (any integer type; nonzero is true) picks the
    element of `x`, zero picks `y`. With integer `x` and `y` it also
    combines masks: `Where(a, a, b)` is `a or b`.
  }];
  let arguments = (ins Top_IndexTensor:$cond, Top_NumericTensor:$x,
                   Top_NumericTensor:$y);
  let results = (outs Top_NumericTensor:$output);
}

def Top_ArgOp : Top_ComputeOp<"Arg"> {
  let summary = "index of the largest or smallest element";
  let description = [{
    The index along `axis` of the maximum (`argmax`) or minimum (`argmin`);
    the first one on ties. The greedy head is an argmax over the logits.
  }];
  let arguments = (ins Top_FloatTensor:$input, I64Attr:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   DefaultValuedAttr<Top_ArgModeAttr, "ArgMode::ArgMax">:$mode);
  let results = (outs Top_IndexTensor:$indices);
}

def Top_TopKOp : Top_ComputeOp<"TopK"> {
  let summary = "the k largest or smallest elements and their indices";
  let description = [{
    Along `axis`, the k largest (`largest`) or smallest values in descending
    (ascending) order with their indices; ties keep the lower index first.
    The sampling head uses it before top-p filtering.
  }];
  let arguments = (ins Top_FloatTensor:$input, I64Attr:$k,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs Top_FloatTensor:$values, Top_IndexTensor:$indices);
}

#endif // LLMC_DIALECTS_TOP_TOPOPS_TD
