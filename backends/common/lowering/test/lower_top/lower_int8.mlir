// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=INT8 calibration-table=%S/int8_table.txt" | FileCheck %s --check-prefix=SYM
// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=INT8 asymmetric=true calibration-table=%S/int8_table.txt" | FileCheck %s --check-prefix=ASYM
// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=INT8 calibration-table=%S/int8_table.txt" | llmc-opt --split-input-file | FileCheck %s --check-prefix=SYM

// INT8 quantizes a Linear layer's input per tensor with its calibrated
// range (symmetric: threshold / 127; asymmetric: u8 over [min, max] with a
// zero point) and its weight per channel, symmetric, with f32 scales.

// SYM-LABEL: func.func @linear
// SYM: %[[X:.*]] = tpu.Cast %{{.*}} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf16>
// SYM: %[[Q:.*]] = tpu.Cast %[[X]] : (tensor<1x4x64xf16>) -> tensor<1x4x64x!quant.uniform<i8:f16, 0.031496062874794006>>
// SYM: %[[W:.*]] = top.Weight "layers.0.proj.weight#w8_ch_sym_f32.qweight" : () -> tensor<32x64x!quant.any<i8:f32>>
// SYM: %[[S:.*]] = top.Weight "layers.0.proj.weight#w8_ch_sym_f32.scale" : () -> tensor<32x1xf32>
// SYM: %[[B:.*]] = top.Weight "layers.0.proj.bias" : () -> tensor<32xf16>
// SYM: %[[Y:.*]] = tpu.A8MatMul %[[Q]], %[[W]], %[[S]], %[[B]] : (tensor<1x4x64x!quant.uniform<i8:f16, 0.031496062874794006>>, tensor<32x64x!quant.any<i8:f32>>, tensor<32x1xf32>, tensor<32xf16>) -> tensor<1x4x32xf16>
// SYM: tpu.Cast %[[Y]] : (tensor<1x4x32xf16>) -> tensor<1x4x32xf32>

// ASYM-LABEL: func.func @linear
// ASYM: tpu.Cast %{{.*}} : (tensor<1x4x64xf16>) -> tensor<1x4x64x!quant.uniform<u8:f16, 0.031372550874948502:64>>
// ASYM: tpu.A8MatMul
func.func @linear(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x32xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32> loc("hidden")
  %w = top.Weight "layers.0.proj.weight" : () -> tensor<32x64xf32> loc("layers.0.proj.weight")
  %b = top.Weight "layers.0.proj.bias" : () -> tensor<32xf32> loc("layers.0.proj.bias")
  %y = top.MatMul %x, %w, %b {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<1x4x32xf32> loc("layers.0.proj")
  return %y : tensor<1x4x32xf32>
}

// -----

// The gated MLP stays one op: its input quantized with the MLP's range, its
// intermediate with the down projection's (named after the down weight).

// SYM-LABEL: func.func @mlp
// SYM: %[[Q:.*]] = tpu.Cast %{{.*}} : (tensor<1x4x64xf16>) -> tensor<1x4x64x!quant.uniform<i8:f16, 0.0099999997764825821>>
// SYM: tpu.A8MLP %[[Q]], {{.*}} {intermediate = !quant.uniform<i8:f16, 0.019999999552965164>} : (tensor<1x4x64x!quant.uniform<i8:f16, 0.0099999997764825821>>, tensor<128x64x!quant.any<i8:f32>>, tensor<128x64x!quant.any<i8:f32>>, tensor<64x128x!quant.any<i8:f32>>, tensor<128x1xf32>, tensor<128x1xf32>, tensor<64x1xf32>) -> tensor<1x4x64xf16>

// ASYM-LABEL: func.func @mlp
// ASYM: tpu.A8MLP {{.*}} {intermediate = !quant.uniform<u8:f16, 0.013725490309298038:36>}
func.func @mlp(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %g = top.Weight "mlp.gate_proj.weight" : () -> tensor<128x64xf32>
  %u = top.Weight "mlp.up_proj.weight" : () -> tensor<128x64xf32>
  %d = top.Weight "mlp.down_proj.weight" : () -> tensor<64x128xf32>
  %y = top.MLP %x, %g, %u, %d : (tensor<1x4x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<1x4x64xf32> loc("layers.0.mlp")
  return %y : tensor<1x4x64xf32>
}

// -----

// A matmul of two activations, attention and norms stay f16.

// SYM-LABEL: func.func @activations
// SYM: tpu.MatMul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf16>, tensor<8x4xf16>, none) -> tensor<4x4xf16>
func.func @activations(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %none = top.None : none
  %a = top.Input %arg0 {role = "hidden"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = top.Input %arg1 {role = "hidden"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = top.MatMul %a, %b, %none : (tensor<4x8xf32>, tensor<8x4xf32>, none) -> tensor<4x4xf32> loc("scores")
  return %y : tensor<4x4xf32>
}
