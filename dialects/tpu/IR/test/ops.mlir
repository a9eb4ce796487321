// RUN: llmc-opt %s | llmc-opt | FileCheck %s
// RUN: llmc-opt %s --mlir-print-op-generic | llmc-opt | FileCheck %s

// Every tpu op and attribute survives printing and parsing, in the custom and
// in the generic form, with float, integer and quantized (per-tensor,
// per-axis, sub-channel) element types.

// CHECK-LABEL: func.func @matmul_f16
// CHECK: tpu.MatMul %{{.*}}, %{{.*}}, %{{.*}} {addr = [#tpu.mem<region = activation, offset = 65536, size = 24576>], core_split = #tpu.core_split<cores = 2, axis = 2>, right_transpose = true} : (tensor<1x16x256xf16>, tensor<768x256xf16>, none) -> tensor<1x16x768xf16>
func.func @matmul_f16(%x: tensor<1x16x256xf16>, %w: tensor<768x256xf16>) -> tensor<1x16x768xf16> {
  %none = top.None : none
  %y = tpu.MatMul %x, %w, %none {right_transpose = true, core_split = #tpu.core_split<cores = 2, axis = 2>, addr = [#tpu.mem<region = activation, offset = 65536, size = 24576>]} : (tensor<1x16x256xf16>, tensor<768x256xf16>, none) -> tensor<1x16x768xf16>
  return %y : tensor<1x16x768xf16>
}

// INT8: per-tensor symmetric activation, per-axis weight along N, i32 bias,
// asymmetric per-tensor output.
// CHECK-LABEL: func.func @matmul_int8
// CHECK: tpu.MatMul {{.*}} : (tensor<16x4x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<3x4x!quant.uniform<i8:f32:0, {2.500000e-01,5.000000e-01,1.250000e-01}>>, tensor<3xi32>) -> tensor<16x3x!quant.uniform<i8:f32, 2.500000e-01:-3>>
func.func @matmul_int8(%x: tensor<16x4x!quant.uniform<i8:f32, 0.5>>, %w: tensor<3x4x!quant.uniform<i8:f32:0, {0.25, 0.5, 0.125}>>, %b: tensor<3xi32>) -> tensor<16x3x!quant.uniform<i8:f32, 0.25:-3>> {
  %y = tpu.MatMul %x, %w, %b {right_transpose = true} : (tensor<16x4x!quant.uniform<i8:f32, 0.5>>, tensor<3x4x!quant.uniform<i8:f32:0, {0.25, 0.5, 0.125}>>, tensor<3xi32>) -> tensor<16x3x!quant.uniform<i8:f32, 0.25:-3>>
  return %y : tensor<16x3x!quant.uniform<i8:f32, 0.25:-3>>
}

// W4 asymmetric, group 64, raw 4-bit storage with a zero-point tensor.
// CHECK-LABEL: func.func @a16_w4_asym
// CHECK: tpu.A16MatMul {{.*}} {q_group_size = 64 : i64, weight_bits = 4 : i64} : (tensor<1x16x128xf16>, tensor<4x128xui4>, tensor<4x2xf16>, tensor<4x2xui4>, none) -> tensor<1x16x4xf16>
func.func @a16_w4_asym(%x: tensor<1x16x128xf16>, %w: tensor<4x128xui4>, %s: tensor<4x2xf16>, %zp: tensor<4x2xui4>) -> tensor<1x16x4xf16> {
  %none = top.None : none
  %y = tpu.A16MatMul %x, %w, %s, %zp, %none {weight_bits = 4, q_group_size = 64} : (tensor<1x16x128xf16>, tensor<4x128xui4>, tensor<4x2xf16>, tensor<4x2xui4>, none) -> tensor<1x16x4xf16>
  return %y : tensor<1x16x4xf16>
}

// W8 symmetric per-channel (q_group_size defaults to 0), with bias.
// CHECK-LABEL: func.func @a16_w8_sym
// CHECK: tpu.A16MatMul {{.*}} {weight_bits = 8 : i64} : (tensor<16x128xbf16>, tensor<4x128xi8>, tensor<4x1xbf16>, none, tensor<4xbf16>) -> tensor<16x4xbf16>
func.func @a16_w8_sym(%x: tensor<16x128xbf16>, %w: tensor<4x128xi8>, %s: tensor<4x1xbf16>, %b: tensor<4xbf16>) -> tensor<16x4xbf16> {
  %none = top.None : none
  %y = tpu.A16MatMul %x, %w, %s, %none, %b {weight_bits = 8} : (tensor<16x128xbf16>, tensor<4x128xi8>, tensor<4x1xbf16>, none, tensor<4xbf16>) -> tensor<16x4xbf16>
  return %y : tensor<16x4xbf16>
}

// W4 asymmetric group-wise as a sub-channel quantized type.
// CHECK-LABEL: func.func @a16_w4_subchannel
// CHECK: tpu.A16MatMul {{.*}} : (tensor<16x128xf16>, tensor<2x128x!quant.uniform<u4:f16:{0:1, 1:64}, {{\{}}{5.000000e-01:3, 2.500000e-01:4}, {1.250000e-01:5, 6.250000e-02:6}}>>, tensor<2x2xf16>, tensor<2x2xui4>, none) -> tensor<16x2xf16>
func.func @a16_w4_subchannel(%x: tensor<16x128xf16>, %w: tensor<2x128x!quant.uniform<u4:f16:{0:1, 1:64}, {{0.5:3, 0.25:4}, {0.125:5, 0.0625:6}}>>, %s: tensor<2x2xf16>, %zp: tensor<2x2xui4>) -> tensor<16x2xf16> {
  %none = top.None : none
  %y = tpu.A16MatMul %x, %w, %s, %zp, %none {weight_bits = 4, q_group_size = 64} : (tensor<16x128xf16>, tensor<2x128x!quant.uniform<u4:f16:{0:1, 1:64}, {{0.5:3, 0.25:4}, {0.125:5, 0.0625:6}}>>, tensor<2x2xf16>, tensor<2x2xui4>, none) -> tensor<16x2xf16>
  return %y : tensor<16x2xf16>
}

// W8 symmetric per-channel as a per-axis type; q_group_size = K means the
// same as 0.
// CHECK-LABEL: func.func @a16_w8_per_axis
// CHECK: tpu.A16MatMul {{.*}} {q_group_size = 128 : i64, weight_bits = 8 : i64} : (tensor<16x128xf16>, tensor<2x128x!quant.uniform<i8:f16:0, {5.000000e-01,2.500000e-01}>>, tensor<2x1xf16>, none, none) -> tensor<16x2xf16>
func.func @a16_w8_per_axis(%x: tensor<16x128xf16>, %w: tensor<2x128x!quant.uniform<i8:f16:0, {0.5, 0.25}>>, %s: tensor<2x1xf16>) -> tensor<16x2xf16> {
  %none = top.None : none
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8, q_group_size = 128} : (tensor<16x128xf16>, tensor<2x128x!quant.uniform<i8:f16:0, {0.5, 0.25}>>, tensor<2x1xf16>, none, none) -> tensor<16x2xf16>
  return %y : tensor<16x2xf16>
}

// W4 symmetric group-wise with a !quant.any weight: the values of scale and
// zp are the weight's parameters.
// CHECK-LABEL: func.func @a16_w4_any
// CHECK: tpu.A16MatMul {{.*}} : (tensor<16x128xbf16>, tensor<2x128x!quant.any<i4<-7:7>:bf16>>, tensor<2x2xbf16>, none, none) -> tensor<16x2xbf16>
// CHECK: tpu.A16MatMul {{.*}} : (tensor<16x128xbf16>, tensor<2x128x!quant.any<u8:bf16>>, tensor<2x1xbf16>, tensor<2x1xui8>, none) -> tensor<16x2xbf16>
func.func @a16_w4_any(%x: tensor<16x128xbf16>, %w: tensor<2x128x!quant.any<i4<-7:7>:bf16>>, %s: tensor<2x2xbf16>, %u: tensor<2x128x!quant.any<u8:bf16>>, %us: tensor<2x1xbf16>, %zp: tensor<2x1xui8>) -> (tensor<16x2xbf16>, tensor<16x2xbf16>) {
  %none = top.None : none
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 4, q_group_size = 64} : (tensor<16x128xbf16>, tensor<2x128x!quant.any<i4<-7:7>:bf16>>, tensor<2x2xbf16>, none, none) -> tensor<16x2xbf16>
  %z = tpu.A16MatMul %x, %u, %us, %zp, %none {weight_bits = 8} : (tensor<16x128xbf16>, tensor<2x128x!quant.any<u8:bf16>>, tensor<2x1xbf16>, tensor<2x1xui8>, none) -> tensor<16x2xbf16>
  return %y, %z : tensor<16x2xbf16>, tensor<16x2xbf16>
}

// The fused MLP with W4 asymmetric group-wise weights.
// CHECK-LABEL: func.func @a16_mlp
// CHECK: tpu.A16MLP {{.*}} {activation = #top<activation gelu>, q_group_size = 4 : i64, weight_bits = 4 : i64} : (tensor<1x4x8xf16>, tensor<16x8x!quant.any<u4:f16>>, tensor<16x8x!quant.any<u4:f16>>, tensor<8x16x!quant.any<u4:f16>>, tensor<16x2xf16>, tensor<16x2xf16>, tensor<8x4xf16>, tensor<16x2xui4>, tensor<16x2xui4>, tensor<8x4xui4>) -> tensor<1x4x8xf16>
func.func @a16_mlp(%x: tensor<1x4x8xf16>, %g: tensor<16x8x!quant.any<u4:f16>>, %d: tensor<8x16x!quant.any<u4:f16>>, %gs: tensor<16x2xf16>, %ds: tensor<8x4xf16>, %gz: tensor<16x2xui4>, %dz: tensor<8x4xui4>) -> tensor<1x4x8xf16> {
  %y = tpu.A16MLP %x, %g, %g, %d, %gs, %gs, %ds, %gz, %gz, %dz {weight_bits = 4, q_group_size = 4, activation = #top<activation gelu>} : (tensor<1x4x8xf16>, tensor<16x8x!quant.any<u4:f16>>, tensor<16x8x!quant.any<u4:f16>>, tensor<8x16x!quant.any<u4:f16>>, tensor<16x2xf16>, tensor<16x2xf16>, tensor<8x4xf16>, tensor<16x2xui4>, tensor<16x2xui4>, tensor<8x4xui4>) -> tensor<1x4x8xf16>
  return %y : tensor<1x4x8xf16>
}

// CHECK-LABEL: func.func @norms
// CHECK: tpu.RMSNorm {{.*}} {eps = 9.9999999999999995E-7 : f64} : (tensor<1x16x256xf16>, tensor<256xf16>) -> tensor<1x16x256xf16>
// CHECK: tpu.LayerNorm {{.*}} {eps = 1.000000e-05 : f64} : (tensor<1x16x256xf16>, tensor<256xf16>, none) -> tensor<1x16x256xf16>
func.func @norms(%x: tensor<1x16x256xf16>, %w: tensor<256xf16>) -> tensor<1x16x256xf16> {
  %none = top.None : none
  %a = tpu.RMSNorm %x, %w {eps = 1.0e-6 : f64} : (tensor<1x16x256xf16>, tensor<256xf16>) -> tensor<1x16x256xf16>
  %b = tpu.LayerNorm %a, %w, %none {eps = 1.0e-5 : f64} : (tensor<1x16x256xf16>, tensor<256xf16>, none) -> tensor<1x16x256xf16>
  return %b : tensor<1x16x256xf16>
}

// An INT8 (asymmetric, unsigned) embedding table.
// CHECK-LABEL: func.func @gather
// CHECK: tpu.Gather {{.*}} : (tensor<1000x64x!quant.uniform<u8:f32, 5.000000e-01:128>>, tensor<1x16xi32>) -> tensor<1x16x64x!quant.uniform<u8:f32, 5.000000e-01:128>>
func.func @gather(%table: tensor<1000x64x!quant.uniform<u8:f32, 0.5:128>>, %ids: tensor<1x16xi32>) -> tensor<1x16x64x!quant.uniform<u8:f32, 0.5:128>> {
  %y = tpu.Gather %table, %ids : (tensor<1000x64x!quant.uniform<u8:f32, 0.5:128>>, tensor<1x16xi32>) -> tensor<1x16x64x!quant.uniform<u8:f32, 0.5:128>>
  return %y : tensor<1x16x64x!quant.uniform<u8:f32, 0.5:128>>
}

// A tied embedding gathered from the LM head's 4-bit form.
// CHECK-LABEL: func.func @a16_gather
// CHECK: tpu.A16Gather {{.*}}q_group_size = 64 : i64, weight_bits = 4 : i64{{.*}} -> tensor<1x16x256xbf16>
func.func @a16_gather(%w: tensor<4096x256x!quant.any<i4:bf16>>, %s: tensor<4096x4xbf16>, %ids: tensor<1x16xi32>) -> tensor<1x16x256xbf16> {
  %none = top.None : none
  %e = tpu.A16Gather %w, %s, %none, %ids {weight_bits = 4 : i64, q_group_size = 64 : i64} : (tensor<4096x256x!quant.any<i4:bf16>>, tensor<4096x4xbf16>, none, tensor<1x16xi32>) -> tensor<1x16x256xbf16>
  return %e : tensor<1x16x256xbf16>
}

// CHECK-LABEL: func.func @attention
// CHECK: tpu.Rope {{.*}} {mode = #top<rope_mode interleaved>} : (tensor<1x16x8x32xf16>, tensor<1x16x32xf16>, tensor<1x16x32xf16>) -> tensor<1x16x8x32xf16>
// CHECK: tpu.FAttention {{.*}} {causal = true, head_dim = 32 : i64, kv_head = 2 : i64, q_head = 8 : i64, scale = 1.250000e-01 : f64} : (tensor<1x16x8x32xf16>, tensor<1x64x2x32x!quant.uniform<i8:f16, 6.250000e-02>>, tensor<1x64x2x32x!quant.uniform<i8:f16, 6.250000e-02>>, none) -> tensor<1x16x256xf16>
func.func @attention(%q: tensor<1x16x8x32xf16>, %cos: tensor<1x16x32xf16>, %k: tensor<1x64x2x32x!quant.uniform<i8:f16, 0.0625>>, %v: tensor<1x64x2x32x!quant.uniform<i8:f16, 0.0625>>) -> tensor<1x16x256xf16> {
  %none = top.None : none
  %r = tpu.Rope %q, %cos, %cos {mode = #top<rope_mode interleaved>} : (tensor<1x16x8x32xf16>, tensor<1x16x32xf16>, tensor<1x16x32xf16>) -> tensor<1x16x8x32xf16>
  %y = tpu.FAttention %r, %k, %v, %none {scale = 0.125 : f64, q_head = 8 : i64, kv_head = 2 : i64, head_dim = 32 : i64, causal = true} : (tensor<1x16x8x32xf16>, tensor<1x64x2x32x!quant.uniform<i8:f16, 0.0625>>, tensor<1x64x2x32x!quant.uniform<i8:f16, 0.0625>>, none) -> tensor<1x16x256xf16>
  return %y : tensor<1x16x256xf16>
}

// Weight-only quantized MLP: group-wise gate and up, per-channel down.
// CHECK-LABEL: func.func @mlp
// CHECK: tpu.MLP {{.*}} {activation = #top<activation gelu>} : (tensor<1x4x4xf16>, tensor<2x4x!quant.uniform<i4:f16:{0:1, 1:2}, {{\{}}{5.000000e-01, 5.000000e-01}, {2.500000e-01, 2.500000e-01}}>>, tensor<2x4xf16>, tensor<4x2x!quant.uniform<i8:f16:0, {5.000000e-01,5.000000e-01,5.000000e-01,5.000000e-01}>>) -> tensor<1x4x4xf16>
func.func @mlp(%x: tensor<1x4x4xf16>, %gate: tensor<2x4x!quant.uniform<i4:f16:{0:1, 1:2}, {{0.5, 0.5}, {0.25, 0.25}}>>, %up: tensor<2x4xf16>, %down: tensor<4x2x!quant.uniform<i8:f16:0, {0.5, 0.5, 0.5, 0.5}>>) -> tensor<1x4x4xf16> {
  %y = tpu.MLP %x, %gate, %up, %down {activation = #top<activation gelu>} : (tensor<1x4x4xf16>, tensor<2x4x!quant.uniform<i4:f16:{0:1, 1:2}, {{0.5, 0.5}, {0.25, 0.25}}>>, tensor<2x4xf16>, tensor<4x2x!quant.uniform<i8:f16:0, {0.5, 0.5, 0.5, 0.5}>>) -> tensor<1x4x4xf16>
  return %y : tensor<1x4x4xf16>
}

// Quantized elementwise ops may change scale and zero point.
// CHECK-LABEL: func.func @elementwise_int8
// CHECK: tpu.Add {{.*}} : (tensor<1x16x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<1x16x!quant.uniform<i8:f32, 2.500000e-01:2>>) -> tensor<1x16x!quant.uniform<i8:f32, 1.000000e+00>>
// CHECK: tpu.SiLU {{.*}} : (tensor<1x16x!quant.uniform<i8:f32, 1.000000e+00>>) -> tensor<1x16x!quant.uniform<i8:f32, 1.250000e-01:-1>>
// CHECK: tpu.MulConst {{.*}} {const_val = 2.000000e+00 : f64} : (tensor<1x16x!quant.uniform<i8:f32, 1.250000e-01:-1>>) -> tensor<1x16x!quant.uniform<i8:f32, 2.500000e-01:-1>>
func.func @elementwise_int8(%a: tensor<1x16x!quant.uniform<i8:f32, 0.5>>, %b: tensor<1x16x!quant.uniform<i8:f32, 0.25:2>>) -> tensor<1x16x!quant.uniform<i8:f32, 0.25:-1>> {
  %s = tpu.Add %a, %b : (tensor<1x16x!quant.uniform<i8:f32, 0.5>>, tensor<1x16x!quant.uniform<i8:f32, 0.25:2>>) -> tensor<1x16x!quant.uniform<i8:f32, 1.0>>
  %t = tpu.SiLU %s : (tensor<1x16x!quant.uniform<i8:f32, 1.0>>) -> tensor<1x16x!quant.uniform<i8:f32, 0.125:-1>>
  %u = tpu.MulConst %t {const_val = 2.0 : f64} : (tensor<1x16x!quant.uniform<i8:f32, 0.125:-1>>) -> tensor<1x16x!quant.uniform<i8:f32, 0.25:-1>>
  return %u : tensor<1x16x!quant.uniform<i8:f32, 0.25:-1>>
}

// CHECK-LABEL: func.func @elementwise_float
// CHECK: tpu.Mul {{.*}} : (tensor<2x16xbf16>, tensor<16xbf16>) -> tensor<2x16xbf16>
// CHECK: tpu.GELU {{.*}} {approximation = #top<gelu_approximation tanh>} : (tensor<2x16xbf16>) -> tensor<2x16xbf16>
// CHECK: tpu.Softmax {{.*}} {axis = 0 : i64} : (tensor<2x16xbf16>) -> tensor<2x16xbf16>
func.func @elementwise_float(%a: tensor<2x16xbf16>, %b: tensor<16xbf16>) -> tensor<2x16xbf16> {
  %m = tpu.Mul %a, %b : (tensor<2x16xbf16>, tensor<16xbf16>) -> tensor<2x16xbf16>
  %g = tpu.GELU %m {approximation = #top<gelu_approximation tanh>} : (tensor<2x16xbf16>) -> tensor<2x16xbf16>
  %s = tpu.Softmax %g {axis = 0 : i64} : (tensor<2x16xbf16>) -> tensor<2x16xbf16>
  return %s : tensor<2x16xbf16>
}

// CHECK-LABEL: func.func @casts
// CHECK: tpu.Cast {{.*}} : (tensor<4x8xf32>) -> tensor<4x8xf16>
// CHECK: tpu.Cast {{.*}} : (tensor<4x8xf32>) -> tensor<4x8x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: tpu.Cast {{.*}} : (tensor<4x8x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4x8x!quant.uniform<i8:f32:1, {2.500000e-01:1,2.500000e-01:2,2.500000e-01:3,2.500000e-01:4,2.500000e-01:5,2.500000e-01:6,2.500000e-01:7,2.500000e-01:8}>>
// CHECK: tpu.Cast {{.*}} : (tensor<4x8x!quant.uniform<i8:f32:1, {{.*}}>>) -> tensor<4x8xf32>
func.func @casts(%x: tensor<4x8xf32>) -> (tensor<4x8xf16>, tensor<4x8xf32>) {
  %h = tpu.Cast %x : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %q = tpu.Cast %x : (tensor<4x8xf32>) -> tensor<4x8x!quant.uniform<i8:f32, 0.5>>
  %r = tpu.Cast %q : (tensor<4x8x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x8x!quant.uniform<i8:f32:1, {0.25:1, 0.25:2, 0.25:3, 0.25:4, 0.25:5, 0.25:6, 0.25:7, 0.25:8}>>
  %d = tpu.Cast %r : (tensor<4x8x!quant.uniform<i8:f32:1, {0.25:1, 0.25:2, 0.25:3, 0.25:4, 0.25:5, 0.25:6, 0.25:7, 0.25:8}>>) -> tensor<4x8xf32>
  return %h, %d : tensor<4x8xf16>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @data_movement
// CHECK: tpu.Reshape {{.*}} : (tensor<1x16x256x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<1x16x8x32x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: tpu.Permute {{.*}} {order = array<i64: 0, 2, 1, 3>}
// CHECK: tpu.Concat {{.*}} {axis = 2 : i64} : (tensor<1x8x16x32x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<1x8x16x32x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<1x8x32x32x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: tpu.Slice {{.*}} {ends = array<i64: 1, 8, 32, 16>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 1>}
func.func @data_movement(%x: tensor<1x16x256x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x8x16x16x!quant.uniform<i8:f32, 0.5>> {
  %r = tpu.Reshape %x : (tensor<1x16x256x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x16x8x32x!quant.uniform<i8:f32, 0.5>>
  %p = tpu.Permute %r {order = array<i64: 0, 2, 1, 3>} : (tensor<1x16x8x32x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x8x16x32x!quant.uniform<i8:f32, 0.5>>
  %c = tpu.Concat %p, %p {axis = 2 : i64} : (tensor<1x8x16x32x!quant.uniform<i8:f32, 0.5>>, tensor<1x8x16x32x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x8x32x32x!quant.uniform<i8:f32, 0.5>>
  %s = tpu.Slice %c {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 8, 32, 16>, steps = array<i64: 1, 1, 2, 1>} : (tensor<1x8x32x32x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x8x16x16x!quant.uniform<i8:f32, 0.5>>
  return %s : tensor<1x8x16x16x!quant.uniform<i8:f32, 0.5>>
}

// CHECK-LABEL: func.func @selection
// CHECK: tpu.Arg {{.*}} {axis = 1 : i64, keepdims = false, mode = #top<arg_mode argmin>} : (tensor<1x1000x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<1xi32>
// CHECK: tpu.TopK {{.*}} {axis = 1 : i64, k = 40 : i64, largest = false} : (tensor<1x1000xf16>) -> (tensor<1x40xf16>, tensor<1x40xi32>)
func.func @selection(%q: tensor<1x1000x!quant.uniform<i8:f32, 0.5>>, %x: tensor<1x1000xf16>) -> (tensor<1xi32>, tensor<1x40xf16>, tensor<1x40xi32>) {
  %a = tpu.Arg %q {axis = 1 : i64, keepdims = false, mode = #top<arg_mode argmin>} : (tensor<1x1000x!quant.uniform<i8:f32, 0.5>>) -> tensor<1xi32>
  %v, %i = tpu.TopK %x {k = 40 : i64, axis = 1 : i64, largest = false} : (tensor<1x1000xf16>) -> (tensor<1x40xf16>, tensor<1x40xi32>)
  return %a, %v, %i : tensor<1xi32>, tensor<1x40xf16>, tensor<1x40xi32>
}

// A layer group: weights and inputs come in from global memory, every op
// inside is placed in the pipeline, and the result is stored back. The
// weight's global address is the discardable tpu.addr.
// CHECK-LABEL: func.func @layer_group
// CHECK: top.Weight "norm.weight" {tpu.addr = [#tpu.mem<region = coeff, offset = 0, size = 512>]}
// CHECK: %[[Y:.*]] = tpu.Group(%{{.*}}, %{{.*}}) {group_id = 3 : i64, stages = 3 : i64, tile_factors = array<i64: 1, 4, 1>} : (tensor<1x16x256xf16>, tensor<256xf16>) -> tensor<1x16x256xf16> {
// CHECK-NEXT: ^bb0(%[[GX:.*]]: tensor<1x16x256xf16>, %[[GW:.*]]: tensor<256xf16>):
// CHECK-NEXT: %[[LX:.*]] = tpu.Load %[[GX]] {lg = #tpu.lg<id = 3, stage = 0, timestep = 0, local_addr = 0, local_size = 2048, bank = 0>}
// CHECK-NEXT: %[[LW:.*]] = tpu.Load %[[GW]] {lg = #tpu.lg<id = 3, stage = 0, timestep = 0, local_addr = 2048, local_size = 512, bank = 1>}
// CHECK-NEXT: %[[N:.*]] = tpu.RMSNorm %[[LX]], %[[LW]] {eps = {{.*}}, lg = #tpu.lg<id = 3, stage = 1, timestep = 1, local_addr = 4096, local_size = 2048, bank = 2>}
// CHECK-NEXT: %[[A:.*]] = tpu.Add %[[N]], %[[LX]] {lg = #tpu.lg<id = 3, stage = 1, timestep = 2, local_addr = 8192, local_size = 2048, bank = 3>}
// CHECK-NEXT: %[[S:.*]] = tpu.Store %[[A]] {addr = [#tpu.mem<region = io, offset = 4096, size = 8192>], lg = #tpu.lg<id = 3, stage = 2, timestep = 3, local_addr = 8192, local_size = 2048, bank = 3>}
// CHECK-NEXT: tpu.Yield %[[S]] : tensor<1x16x256xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[Y]]
func.func @layer_group(%arg0: tensor<1x16x256xf16>) -> tensor<1x16x256xf16> {
  %x = top.Input %arg0 : (tensor<1x16x256xf16>) -> tensor<1x16x256xf16>
  %w = top.Weight "norm.weight" {tpu.addr = [#tpu.mem<region = coeff, offset = 0, size = 512>]} : () -> tensor<256xf16>
  %y = tpu.Group(%x, %w) {group_id = 3 : i64, tile_factors = array<i64: 1, 4, 1>, stages = 3 : i64} : (tensor<1x16x256xf16>, tensor<256xf16>) -> tensor<1x16x256xf16> {
  ^bb0(%gx: tensor<1x16x256xf16>, %gw: tensor<256xf16>):
    %lx = tpu.Load %gx {lg = #tpu.lg<id = 3, stage = 0, timestep = 0, local_addr = 0, local_size = 2048, bank = 0>} : (tensor<1x16x256xf16>) -> tensor<1x16x256xf16>
    %lw = tpu.Load %gw {lg = #tpu.lg<id = 3, stage = 0, timestep = 0, local_addr = 2048, local_size = 512, bank = 1>} : (tensor<256xf16>) -> tensor<256xf16>
    %n = tpu.RMSNorm %lx, %lw {eps = 1.0e-6 : f64, lg = #tpu.lg<id = 3, stage = 1, timestep = 1, local_addr = 4096, local_size = 2048, bank = 2>} : (tensor<1x16x256xf16>, tensor<256xf16>) -> tensor<1x16x256xf16>
    %a = tpu.Add %n, %lx {lg = #tpu.lg<stage = 1, id = 3, timestep = 2, local_addr = 8192, local_size = 2048, bank = 3>} : (tensor<1x16x256xf16>, tensor<1x16x256xf16>) -> tensor<1x16x256xf16>
    %s = tpu.Store %a {lg = #tpu.lg<id = 3, stage = 2, timestep = 3, local_addr = 8192, local_size = 2048, bank = 3>, addr = [#tpu.mem<region = io, offset = 4096, size = 8192>]} : (tensor<1x16x256xf16>) -> tensor<1x16x256xf16>
    tpu.Yield %s : tensor<1x16x256xf16>
  }
  return %y : tensor<1x16x256xf16>
}

// A group without results may leave its empty tpu.Yield implicit; the
// printer leaves it out again.
// CHECK-LABEL: func.func @group_without_results
// CHECK: tpu.Group(%{{.*}}) {group_id = 0 : i64, tile_factors = array<i64>} : (tensor<4xf32>) -> () {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>):
// CHECK-NEXT: }
func.func @group_without_results(%x: tensor<4xf32>) {
  tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64>} : (tensor<4xf32>) -> () {
  ^bb0(%gx: tensor<4xf32>):
  }
  return
}

// Unranked operands defer the shape rules (and the checks that need ranks)
// until shapes are known.
// CHECK-LABEL: func.func @unranked
// CHECK: tpu.MatMul {{.*}} : (tensor<*x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<*x!quant.uniform<i8:f32:0, {2.500000e-01,1.250000e-01}>>, none) -> tensor<*xi32>
// CHECK: tpu.A16MatMul {{.*}} : (tensor<*xf16>, tensor<*x!quant.uniform<i8:f16:0, {2.500000e-01,1.250000e-01}>>, tensor<2x1xf16>, none, none) -> tensor<*xf16>
func.func @unranked(%x: tensor<*x!quant.uniform<i8:f32, 0.5>>, %w: tensor<*x!quant.uniform<i8:f32:0, {0.25, 0.125}>>, %a: tensor<*xf16>, %q: tensor<*x!quant.uniform<i8:f16:0, {0.25, 0.125}>>, %s: tensor<2x1xf16>) -> (tensor<*xi32>, tensor<*xf16>) {
  %none = top.None : none
  %y = tpu.MatMul %x, %w, %none : (tensor<*x!quant.uniform<i8:f32, 0.5>>, tensor<*x!quant.uniform<i8:f32:0, {0.25, 0.125}>>, none) -> tensor<*xi32>
  %z = tpu.A16MatMul %a, %q, %s, %none, %none {weight_bits = 8} : (tensor<*xf16>, tensor<*x!quant.uniform<i8:f16:0, {0.25, 0.125}>>, tensor<2x1xf16>, none, none) -> tensor<*xf16>
  return %y, %z : tensor<*xi32>, tensor<*xf16>
}

// Gemma's soft caps: the scores' cap on FAttention, the logits' tanh.
// CHECK-LABEL: func.func @soft_caps
// CHECK: tpu.FAttention {{.*}} softcap = 5.000000e+01 : f64} : (tensor<1x4x2x16xbf16>, tensor<1x4x2x16xbf16>, tensor<1x4x2x16xbf16>, none) -> tensor<1x4x32xbf16>
// CHECK: tpu.Tanh {{.*}} : (tensor<1x4x32xbf16>) -> tensor<1x4x32xbf16>
func.func @soft_caps(%q: tensor<1x4x2x16xbf16>) -> tensor<1x4x32xbf16> {
  %none = top.None : none
  %a = tpu.FAttention %q, %q, %q, %none {scale = 0.25 : f64, q_head = 2 : i64, kv_head = 2 : i64, head_dim = 16 : i64, softcap = 50.0 : f64} : (tensor<1x4x2x16xbf16>, tensor<1x4x2x16xbf16>, tensor<1x4x2x16xbf16>, none) -> tensor<1x4x32xbf16>
  %t = tpu.Tanh %a : (tensor<1x4x32xbf16>) -> tensor<1x4x32xbf16>
  return %t : tensor<1x4x32xbf16>
}
