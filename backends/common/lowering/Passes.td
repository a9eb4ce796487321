//===- Passes.td - the top -> tpu lowering of the common backend -*- tablegen -*-===//
//
// The lowering is the chips' common backend's, not the tpu dialect's: its
// patterns decide element types and quantization, a chip's decisions.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_PASSES_TD
#define LLMC_BACKENDS_COMMON_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def TpuLowerTopPass : Pass<"tpu-lower-top"> {
  let summary = "lowers top ops to tpu ops in a quantization mode";
  let description = [{
    Replaces every top op (but the leaves `top.Input`, `top.Weight` and
    `top.None`) by its tpu op, with the element types the op's
    quantization mode chooses (backends/common/lowering/TopToTpu.h):

    - `F32`: f32 everywhere.
    - `F16`, `BF16`: computation in f16 / bf16; float weights are read in
      that type, and `tpu.Cast` converts piece inputs and outputs, which
      keep their f32 types.
    - `W8F16`, `W8BF16`, `W4F16`, `W4BF16`: activations as in F16 / BF16,
      and the weights of Linear layers (the LM head included) and gated
      MLPs quantized weight-only to 8 or 4 bits, group-wise along K
      (`q-group-size`, 0 for per-channel), symmetric or `asymmetric`:
      `tpu.A16MatMul` and `tpu.A16MLP` reading derived weights named
      `<source>#w4_g64_sym_f16.{qweight,scale,zp}`. Embedding and rotary
      tables, norms and biases stay float.
    - `INT8`: activations as in F16, and every Linear layer and gated MLP
      on 8-bit activations, quantized per tensor with the ranges of the
      `calibration-table` (symmetric i8, or `asymmetric` u8 with a zero
      point; `tpu.Cast` to `!quant.uniform`), and per-channel symmetric
      8-bit weights (`<source>#w8_ch_sym_f32.{qweight,scale}`):
      `tpu.A8MatMul` and `tpu.A8MLP`.

    A `qtable` file puts chosen ops in another mode: one
    `<op name or glob> <mode>` rule per line, matched against the op's
    location name and the names of the weights it reads; the last matching
    rule wins.

    It is a partial dialect conversion: the top dialect is illegal but for
    those leaves, tpu is legal. An op's element types follow from its own
    mode, not from its operands' types (a qtable may give neighbours
    different modes), so the patterns take their operands as lowered, with
    no type converter, and cast where the op's mode needs; the piece outputs
    the graph builder typed get a `tpu.Cast` before the return.

    The pass fails on an unknown mode, an unreadable qtable or calibration
    table, a group size that does not divide a quantized weight's K, an
    INT8 tensor the calibration table does not list, and any top op it has
    no lowering for.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"F32\"",
           "Quantization mode: F32, F16, BF16, W8F16, W8BF16, W4F16, W4BF16, "
           "INT8">,
    Option<"groupSize", "q-group-size", "int64_t", /*default=*/"64",
           "Weights per quantization group along K (0: per channel)">,
    Option<"asymmetric", "asymmetric", "bool", /*default=*/"false",
           "Quantize weights (INT8: activations) asymmetrically (unsigned, "
           "with zero points)">,
    Option<"qtable", "qtable", "std::string", /*default=*/"\"\"",
           "A file of '<op name or glob> <mode>' rules">,
    Option<"calibrationTable", "calibration-table", "std::string",
           /*default=*/"\"\"",
           "INT8: the activation ranges 'llmc calibrate' wrote">,
  ];
  let dependentDialects = [
    "::llmc::top::TopDialect",
    "::llmc::tpu::TpuDialect",
    "::mlir::quant::QuantDialect",
  ];
}

#endif // LLMC_BACKENDS_COMMON_LOWERING_PASSES_TD
