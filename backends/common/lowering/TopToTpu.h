//===- TopToTpu.h - patterns lowering top ops to tpu ops -------*- C++ -*-===//
//
// One pattern per top op, replacing it by its tpu op with the element types
// the op's quantization mode chooses:
//
// - F32 computes in f32. F16 and BF16 (and the activations of the
//   weight-only modes) compute in f16 / bf16: float operands are cast, float
//   weights (norms, biases, embedding and rotary tables) are read in that
//   type. Piece inputs and outputs keep the types the graph builder gave
//   them (f32, i32): tpu.Cast converts at the boundaries.
// - Data movement (Reshape, Permute, Slice) and selection (Arg, TopK) keep
//   their input's element type: they compute nothing that precision
//   changes, and argmax over f32 logits keeps its ties.
// - W8/W4 modes quantize the weight of every Linear layer (a MatMul whose
//   right operand is a [N, K] top.Weight read transposed, the LM head
//   included) into tpu.A16MatMul, and the three weights of a gated MLP into
//   tpu.A16MLP, which stays one fused op. Their weights become derived
//   top.Weights (quant/DerivedWeightName.h) of `!quant.any` element type,
//   with scales in the activation type and, asymmetric, ui4/ui8 zero points.
// - INT8 quantizes the input of every Linear layer per tensor (tpu.Cast to
//   `!quant.uniform<i8:f16, s>`, or u8 with a zero point when asymmetric,
//   s from the calibration table) and its weight per channel, symmetric
//   (derived weights `W#w8_ch_sym_f32.{qweight,scale}`): tpu.A8MatMul. A
//   gated MLP becomes one tpu.A8MLP, its intermediate quantized with the
//   calibrated `intermediate` type. Everything else computes in f16.
//
// The patterns are conversion patterns (tpu-lower-top applies them as a
// partial dialect conversion) that read their operands from the adaptor, as
// lowered. The float patterns have benefit 1 and the weight-only and INT8
// ones 2; a chip adds its own patterns with a higher benefit to take over an
// op for the element types it handles differently.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_TOPTOTPU_H
#define LLMC_BACKENDS_COMMON_LOWERING_TOPTOTPU_H

#include "backends/common/lowering/LoweringOptions.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace llmc::lowering {

/// Adds the common top -> tpu patterns. `options` must have passed
/// validate().
void populateTopToTpuPatterns(mlir::RewritePatternSet &patterns,
                              const LoweringOptions &options);

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_TOPTOTPU_H
