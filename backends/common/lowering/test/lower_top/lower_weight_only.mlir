// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=W8F16 --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=W8F16
// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=W4BF16 q-group-size=32 asymmetric=true" | FileCheck %s --check-prefix=W4ASYM
// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=W4F16 q-group-size=0" | FileCheck %s --check-prefix=W4CH
// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=W8BF16 q-group-size=64" | FileCheck %s --check-prefix=W8K

// Weight-only modes quantize Linear weights into derived top.Weights named
// `<source>#<derivation>.<part>` and located at the source's name; the
// activations compute in f16 or bf16.

// W8F16-LABEL: func.func @linear
// W8F16: %[[X:.*]] = tpu.Cast %{{.*}} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf16>
// W8F16: %[[Q:.*]] = top.Weight "layers.0.proj.weight#w8_ch_sym_f16.qweight" : () -> tensor<32x64x!quant.any<i8:f16>> loc("layers.0.proj.weight")
// W8F16: %[[S:.*]] = top.Weight "layers.0.proj.weight#w8_ch_sym_f16.scale" : () -> tensor<32x1xf16> loc("layers.0.proj.weight")
// W8F16: %[[B:.*]] = top.Weight "layers.0.proj.bias" : () -> tensor<32xf16>
// W8F16: %[[Y:.*]] = tpu.A16MatMul %[[X]], %[[Q]], %[[S]], %{{.*}}, %[[B]] {weight_bits = 8 : i64} : (tensor<1x4x64xf16>, tensor<32x64x!quant.any<i8:f16>>, tensor<32x1xf16>, none, tensor<32xf16>) -> tensor<1x4x32xf16> loc("layers.0.proj")
// W8F16: tpu.Cast %[[Y]] : (tensor<1x4x32xf16>) -> tensor<1x4x32xf32>

// Asymmetric: unsigned storage and a zero-point weight.
// W4ASYM-LABEL: func.func @linear
// W4ASYM: %[[Q:.*]] = top.Weight "layers.0.proj.weight#w4_g32_asym_bf16.qweight" : () -> tensor<32x64x!quant.any<u4:bf16>>
// W4ASYM: %[[S:.*]] = top.Weight "layers.0.proj.weight#w4_g32_asym_bf16.scale" : () -> tensor<32x2xbf16>
// W4ASYM: %[[Z:.*]] = top.Weight "layers.0.proj.weight#w4_g32_asym_bf16.zp" : () -> tensor<32x2xui4>
// W4ASYM: tpu.A16MatMul %{{.*}}, %[[Q]], %[[S]], %[[Z]], %{{.*}} {q_group_size = 32 : i64, weight_bits = 4 : i64} : (tensor<1x4x64xbf16>, tensor<32x64x!quant.any<u4:bf16>>, tensor<32x2xbf16>, tensor<32x2xui4>, tensor<32xbf16>) -> tensor<1x4x32xbf16>

// W4CH-LABEL: func.func @linear
// W4CH: top.Weight "layers.0.proj.weight#w4_ch_sym_f16.qweight" : () -> tensor<32x64x!quant.any<i4:f16>>
// W4CH: top.Weight "layers.0.proj.weight#w4_ch_sym_f16.scale" : () -> tensor<32x1xf16>
// W4CH: tpu.A16MatMul {{.*}} {weight_bits = 4 : i64}

// A group of K is per-channel: the same bytes get the same name.
// W8K-LABEL: func.func @linear
// W8K: top.Weight "layers.0.proj.weight#w8_ch_sym_bf16.qweight"
// W8K: tpu.A16MatMul {{.*}} {weight_bits = 8 : i64}
func.func @linear(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x32xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32> loc("hidden")
  %w = top.Weight "layers.0.proj.weight" : () -> tensor<32x64xf32> loc("layers.0.proj.weight")
  %b = top.Weight "layers.0.proj.bias" : () -> tensor<32xf32> loc("layers.0.proj.bias")
  %y = top.MatMul %x, %w, %b {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<1x4x32xf32> loc("layers.0.proj")
  return %y : tensor<1x4x32xf32>
}

// -----

// The gated MLP stays one op, tpu.A16MLP; each weight is grouped along its
// own K (64 for gate and up, 128 for down).

// W4ASYM-LABEL: func.func @mlp
// W4ASYM-DAG: %[[G:.*]] = top.Weight "mlp.gate_proj.weight#w4_g32_asym_bf16.qweight" : () -> tensor<128x64x!quant.any<u4:bf16>>
// W4ASYM-DAG: %[[GS:.*]] = top.Weight "mlp.gate_proj.weight#w4_g32_asym_bf16.scale" : () -> tensor<128x2xbf16>
// W4ASYM-DAG: %[[GZ:.*]] = top.Weight "mlp.gate_proj.weight#w4_g32_asym_bf16.zp" : () -> tensor<128x2xui4>
// W4ASYM-DAG: %[[U:.*]] = top.Weight "mlp.up_proj.weight#w4_g32_asym_bf16.qweight"
// W4ASYM-DAG: %[[US:.*]] = top.Weight "mlp.up_proj.weight#w4_g32_asym_bf16.scale"
// W4ASYM-DAG: %[[UZ:.*]] = top.Weight "mlp.up_proj.weight#w4_g32_asym_bf16.zp"
// W4ASYM-DAG: %[[D:.*]] = top.Weight "mlp.down_proj.weight#w4_g32_asym_bf16.qweight" : () -> tensor<64x128x!quant.any<u4:bf16>>
// W4ASYM-DAG: %[[DS:.*]] = top.Weight "mlp.down_proj.weight#w4_g32_asym_bf16.scale" : () -> tensor<64x4xbf16>
// W4ASYM-DAG: %[[DZ:.*]] = top.Weight "mlp.down_proj.weight#w4_g32_asym_bf16.zp" : () -> tensor<64x4xui4>
// W4ASYM: tpu.A16MLP %{{.*}}, %[[G]], %[[U]], %[[D]], %[[GS]], %[[US]], %[[DS]], %[[GZ]], %[[UZ]], %[[DZ]] {q_group_size = 32 : i64, weight_bits = 4 : i64} : {{.*}} -> tensor<1x4x64xbf16>

// With a group of K = 64 for gate and up but not for down, their names say
// per-channel while the op keeps the group size.
// W8K-LABEL: func.func @mlp
// W8K-DAG: top.Weight "mlp.gate_proj.weight#w8_ch_sym_bf16.qweight"
// W8K-DAG: top.Weight "mlp.down_proj.weight#w8_g64_sym_bf16.qweight" : () -> tensor<64x128x!quant.any<i8:bf16>>
// W8K-DAG: top.Weight "mlp.down_proj.weight#w8_g64_sym_bf16.scale" : () -> tensor<64x2xbf16>
// W8K: tpu.A16MLP {{.*}} {q_group_size = 64 : i64, weight_bits = 8 : i64}
func.func @mlp(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %g = top.Weight "mlp.gate_proj.weight" : () -> tensor<128x64xf32>
  %u = top.Weight "mlp.up_proj.weight" : () -> tensor<128x64xf32>
  %d = top.Weight "mlp.down_proj.weight" : () -> tensor<64x128xf32>
  %y = top.MLP %x, %g, %u, %d : (tensor<1x4x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<1x4x64xf32>
  return %y : tensor<1x4x64xf32>
}

// -----

// What is not a Linear weight stays float in the activation type: the
// embedding table, a matmul of two activations, a weight read untransposed.
// The LM head is a Linear layer like any other.

// W8F16-LABEL: func.func @not_linear
// W8F16: %[[T:.*]] = top.Weight "embed.weight" : () -> tensor<512x64xf16>
// W8F16: tpu.Gather %[[T]], %{{.*}} : (tensor<512x64xf16>, tensor<1x4xi32>) -> tensor<1x4x64xf16>
// W8F16: tpu.MatMul %{{.*}}, %{{.*}}, %{{.*}} {right_transpose = true} : (tensor<1x4x64xf16>, tensor<1x4x64xf16>, none) -> tensor<1x4x4xf16>
// W8F16: %[[K:.*]] = top.Weight "proj_kn.weight" : () -> tensor<64x64xf16>
// W8F16: tpu.MatMul %{{.*}}, %[[K]], %{{.*}} : (tensor<1x4x64xf16>, tensor<64x64xf16>, none) -> tensor<1x4x64xf16>
// W8F16: top.Weight "lm_head.weight#w8_ch_sym_f16.qweight" : () -> tensor<512x64x!quant.any<i8:f16>>
// W8F16: tpu.A16MatMul {{.*}} -> tensor<1x4x512xf16>
func.func @not_linear(%arg0: tensor<1x4xi32>) -> (tensor<1x4x4xf32>, tensor<1x4x64xf32>, tensor<1x4x512xf32>) {
  %none = top.None : none
  %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %table = top.Weight "embed.weight" : () -> tensor<512x64xf32>
  %h = top.Gather %table, %ids {axis = 0 : i64} : (tensor<512x64xf32>, tensor<1x4xi32>) -> tensor<1x4x64xf32>
  %s = top.MatMul %h, %h, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<1x4x64xf32>, none) -> tensor<1x4x4xf32>
  %kn = top.Weight "proj_kn.weight" : () -> tensor<64x64xf32>
  %p = top.MatMul %h, %kn, %none : (tensor<1x4x64xf32>, tensor<64x64xf32>, none) -> tensor<1x4x64xf32>
  %head = top.Weight "lm_head.weight" : () -> tensor<512x64xf32>
  %logits = top.MatMul %h, %head, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<512x64xf32>, none) -> tensor<1x4x512xf32>
  return %s, %p, %logits : tensor<1x4x4xf32>, tensor<1x4x64xf32>, tensor<1x4x512xf32>
}

// -----

// Two Linear layers reading one weight share its derived tensors, and the
// pipeline (shape inference, canonicalization, lowering, CSE) runs the same
// lowering.
// RUN: llmc-opt %s --split-input-file --tpu-lower-top-pipeline="mode=W4F16 q-group-size=32" | FileCheck %s --check-prefix=PIPELINE

// PIPELINE-LABEL: func.func @shared
// PIPELINE: %[[Q:.*]] = top.Weight "shared.weight#w4_g32_sym_f16.qweight"
// PIPELINE-NEXT: %[[S:.*]] = top.Weight "shared.weight#w4_g32_sym_f16.scale"
// PIPELINE-NOT: top.Weight "shared.weight#
// PIPELINE: tpu.A16MatMul %{{.*}}, %[[Q]], %[[S]], {{.*}} {q_group_size = 32 : i64, weight_bits = 4 : i64}
// PIPELINE-NOT: top.Weight "shared.weight#
// PIPELINE: tpu.A16MatMul %{{.*}}, %[[Q]], %[[S]], {{.*}} {q_group_size = 32 : i64, weight_bits = 4 : i64}
func.func @shared(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x64xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %w = top.Weight "shared.weight" : () -> tensor<64x64xf32>
  %a = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<64x64xf32>, none) -> tensor<1x4x64xf32>
  %b = top.MatMul %a, %w, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<64x64xf32>, none) -> tensor<1x4x64xf32>
  return %b : tensor<1x4x64xf32>
}
