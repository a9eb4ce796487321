//===- TpuBase.td - the tpu dialect and its base op class -*- tablegen -*-===//

#ifndef LLMC_DIALECTS_TPU_TPUBASE_TD
#define LLMC_DIALECTS_TPU_TPUBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Dialect/Quant/IR/QuantBase.td"

def Tpu_Dialect : Dialect {
  let name = "tpu";
  let cppNamespace = "::llmc::tpu";
  let summary = "An LLM graph after the decisions of one chip";
  let description = [{
    `tpu` computes what `top` computes, after a backend has decided how its
    chip computes it: element types are chosen (f32, f16, bf16, or MLIR
    `quant` types for INT8 activations and weight-only W4/W8 weights),
    weight-only quantized linear layers are `tpu.A16MatMul`, ops are grouped
    into layer groups (`tpu.Group`) whose data moves through local memory
    with `tpu.Load` and `tpu.Store`, and values receive global-memory
    addresses.

    The leaves of a `tpu` module stay `top.Input`, `top.Weight` and
    `top.None`, as in TPU-MLIR: weights keep their names in the weight
    source, and optional operands are still `top.None` values.

    Chip decisions travel as optional attributes of every compute op:
    `lg` (`#tpu.lg<...>`, the op's place in its layer group), `addr` (one
    `#tpu.mem<...>` per result, its global-memory address) and `core_split`
    (`#tpu.core_split<...>`, how the op is split across cores). Values that
    ops outside the dialect define (`top.Weight`, `top.Input`) get their
    global-memory addresses as the discardable attribute `tpu.addr`, with
    the same meaning as `addr`.

    Every tensor with a per-axis or sub-channel quantized element type is
    checked against its shape: the quantized dimension exists, and there is
    one scale per channel or per block.

    Lowering may read a weight in a narrower float type (the `top.Weight`
    result type says which), and replaces a weight-only quantized weight by
    derived tensors: the integers (a `!quant.any` element type), their
    scales and, when asymmetric, zero points. A derived `top.Weight` is
    named after its source and its derivation,
    `<source>#<derivation>[.<part>]` (`model.layers.0.mlp.up_proj.weight#w4_g64_sym_f16.qweight`,
    `.scale`, `.zp`), and located at its source's name; the compiler
    computes its bytes from the checkpoint when it writes the binary (see
    docs/quantization.md).
  }];
  let dependentDialects = [
    "::mlir::quant::QuantDialect",
    "::llmc::top::TopDialect",
  ];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Adds the attributes; beside their storage classes in TpuAttrs.cpp.
    void registerAttributes();
  }];
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Traits
//===----------------------------------------------------------------------===//

/// Per-axis and sub-channel quantized tensors of the op's operands and
/// results agree with their shapes (see TpuTraits.h).
def Tpu_QuantizedTypesMatchShapes
    : NativeOpTrait<"QuantizedTypesMatchShapes"> {
  let cppNamespace = "::llmc::tpu";
}

/// The op's `lg`, `addr` and `core_split` attributes agree with the op and
/// its enclosing layer group (see TpuTraits.h).
def Tpu_ChipAnnotations : NativeOpTrait<"ChipAnnotations"> {
  let cppNamespace = "::llmc::tpu";
}

/// Operand and result element types are equal, or all quantized with the
/// same storage and expressed types: an INT8 kernel may rescale.
def Tpu_SameElementTypeUpToQuantParams
    : NativeOpTrait<"SameElementTypeUpToQuantParams"> {
  let cppNamespace = "::llmc::tpu";
}

/// Base class of every `tpu` op.
class Tpu_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tpu_Dialect, mnemonic,
         !listconcat(traits, [Tpu_QuantizedTypesMatchShapes])>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// A floating-point tensor.
def Tpu_FloatTensor : TensorOf<[AnyFloat]>;
/// A tensor of token ids, positions or indices.
def Tpu_IndexTensor : TensorOf<[AnySignlessInteger]>;
/// A tensor of a `quant` dialect type: per-tensor, per-axis or sub-channel.
def Tpu_QuantTensor : TensorOf<[quant_QuantizedType]>;
/// A float tensor or a quantized one.
def Tpu_FloatOrQuantTensor : TensorOf<[AnyFloat, quant_QuantizedType]>;
/// Any value a chip computes on: float, integer or quantized elements.
def Tpu_Tensor : TensorOf<[AnyFloat, AnySignlessInteger, quant_QuantizedType]>;
/// Plain numbers: float or signless integer elements (i1 for masks), never
/// quantized.
def Tpu_NumericTensor : TensorOf<[AnyFloat, AnySignlessInteger]>;
/// The activation of a weight-only quantized matmul.
def Tpu_ActivationTensor : TensorOf<[F16, BF16, F32]>;
/// The stored weight of a weight-only quantized matmul: raw 4- or 8-bit
/// integers, or a quantized type whose storage is one of them.
def Tpu_QuantWeightTensor
    : TensorOf<[AnyI<4>, AnyI<8>, quant_QuantizedType]>;
/// A zero-point tensor: integers of any signedness, or floats.
def Tpu_ZeroPointTensor : TensorOf<[AnyInteger, AnyFloat]>;

/// What a layer group reads: any tensor its ops read, stored weights of
/// unsigned integers and zero points among them.
def Tpu_GroupInputTensor
    : TensorOf<[AnyFloat, AnyInteger, quant_QuantizedType]>;

/// Optional operands: a tensor, or the result of `top.None`.
def Tpu_TensorOrNone : AnyTypeOf<[Tpu_Tensor, NoneType]>;
def Tpu_FloatTensorOrNone : AnyTypeOf<[Tpu_FloatTensor, NoneType]>;
def Tpu_ZeroPointTensorOrNone : AnyTypeOf<[Tpu_ZeroPointTensor, NoneType]>;

#endif // LLMC_DIALECTS_TPU_TPUBASE_TD
