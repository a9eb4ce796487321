// RUN: llmc-opt %s --split-input-file --verify-diagnostics --tpu-lower-top="mode=W4F16 q-group-size=64" | FileCheck %s

// A group size that does not divide a weight's K falls back to the largest
// group from half of it up that does, else to per-channel, and says so once
// for the weight; the layer is never left in float.

// CHECK-LABEL: func.func @linear
// CHECK: top.Weight "k48.weight#w4_g48_sym_f16.qweight" : () -> tensor<32x96x!quant.any<i4:f16>>
// CHECK: tpu.A16MatMul {{.*}} {q_group_size = 48 : i64, weight_bits = 4 : i64}
// CHECK: top.Weight "k4304.weight#w4_ch_sym_f16.qweight" : () -> tensor<8x4304x!quant.any<i4:f16>>
// CHECK: tpu.A16MatMul {{.*}} {weight_bits = 4 : i64}
func.func @linear(%arg0: tensor<1x2x96xf32>, %arg1: tensor<1x2x4304xf32>) -> (tensor<1x2x32xf32>, tensor<1x2x8xf32>) {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x2x96xf32>) -> tensor<1x2x96xf32>
  %w = top.Weight "k48.weight" : () -> tensor<32x96xf32>
  // expected-warning @+1 {{group size 64 does not divide K = 96 of 'k48.weight'; it is quantized in groups of 48}}
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x2x96xf32>, tensor<32x96xf32>, none) -> tensor<1x2x32xf32>
  %x2 = top.Input %arg1 {role = "hidden"} : (tensor<1x2x4304xf32>) -> tensor<1x2x4304xf32>
  %w2 = top.Weight "k4304.weight" : () -> tensor<8x4304xf32>
  // expected-warning @+1 {{group size 64 does not divide K = 4304 of 'k4304.weight'; it is quantized per channel}}
  %z = top.MatMul %x2, %w2, %none {right_transpose = true} : (tensor<1x2x4304xf32>, tensor<8x4304xf32>, none) -> tensor<1x2x8xf32>
  return %y, %z : tensor<1x2x32xf32>, tensor<1x2x8xf32>
}

// -----

// An MLP's three weights share one q_group_size: when the down projection
// (K = 160) falls back to groups of 40 while gate and up (K = 128) take 64,
// all three are quantized per channel.

// CHECK-LABEL: func.func @mlp
// CHECK-DAG: top.Weight "mlp.gate.weight#w4_ch_sym_f16.qweight"
// CHECK-DAG: top.Weight "mlp.down.weight#w4_ch_sym_f16.qweight"
// CHECK: tpu.A16MLP {{.*}} {weight_bits = 4 : i64}
func.func @mlp(%arg0: tensor<1x2x128xf32>) -> tensor<1x2x128xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x2x128xf32>) -> tensor<1x2x128xf32>
  %g = top.Weight "mlp.gate.weight" : () -> tensor<160x128xf32>
  %u = top.Weight "mlp.up.weight" : () -> tensor<160x128xf32>
  %d = top.Weight "mlp.down.weight" : () -> tensor<128x160xf32>
  // expected-warning @+2 {{group size 64 does not divide K = 160 of 'mlp.down.weight'; it is quantized in groups of 40}}
  // expected-warning @+1 {{the MLP weights 'mlp.gate.weight', 'mlp.up.weight' and 'mlp.down.weight' take no one group size; they are quantized per channel}}
  %y = top.MLP %x, %g, %u, %d : (tensor<1x2x128xf32>, tensor<160x128xf32>, tensor<160x128xf32>, tensor<128x160xf32>) -> tensor<1x2x128xf32>
  return %y : tensor<1x2x128xf32>
}
