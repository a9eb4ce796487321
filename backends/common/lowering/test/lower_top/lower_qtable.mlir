// RUN: llmc-opt %s --tpu-lower-top="mode=W8BF16 qtable=%S/qtable.txt" | FileCheck %s

// The qtable (qtable.txt) matches ops by location name or by the names of
// the weights they read; the last matching rule wins.

// CHECK-LABEL: func.func @block
// CHECK: %[[X:.*]] = tpu.Cast %{{.*}} : (tensor<1x4x64xf32>) -> tensor<1x4x64xbf16>

// No rule matches q_proj: the run's mode, W8BF16.
// CHECK: %[[Q:.*]] = tpu.A16MatMul %[[X]], {{.*}} {weight_bits = 8 : i64} : (tensor<1x4x64xbf16>, tensor<64x64x!quant.any<i8:bf16>>, tensor<64x1xbf16>, none, none) -> tensor<1x4x64xbf16>

// Layer 0's MLP matches `model.layers.*.mlp*` through its weights: F16, a
// float tpu.MLP between casts from and back to bf16.
// CHECK: %[[Q16:.*]] = tpu.Cast %[[Q]] : (tensor<1x4x64xbf16>) -> tensor<1x4x64xf16>
// CHECK: %[[G0:.*]] = top.Weight "model.layers.0.mlp.gate_proj.weight" : () -> tensor<128x64xf16>
// CHECK: %[[M0:.*]] = tpu.MLP %[[Q16]], %[[G0]], %{{.*}}, %{{.*}} : (tensor<1x4x64xf16>, tensor<128x64xf16>, tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<1x4x64xf16>
// CHECK: %[[M0B:.*]] = tpu.Cast %[[M0]] : (tensor<1x4x64xf16>) -> tensor<1x4x64xbf16>

// Layer 1's MLP also matches the later rule: W4F16.
// CHECK: top.Weight "model.layers.1.mlp.gate_proj.weight#w4_ch_sym_f16.qweight"
// CHECK: top.Weight "model.layers.1.mlp.down_proj.weight#w4_g64_sym_f16.qweight"
// CHECK: %[[M1:.*]] = tpu.A16MLP {{.*}} {q_group_size = 64 : i64, weight_bits = 4 : i64} : (tensor<1x4x64xf16>, {{.*}}) -> tensor<1x4x64xf16>
// CHECK: %[[M1B:.*]] = tpu.Cast %[[M1]] : (tensor<1x4x64xf16>) -> tensor<1x4x64xbf16>
// CHECK: %[[SUM:.*]] = tpu.Add %[[M0B]], %[[M1B]] : (tensor<1x4x64xbf16>, tensor<1x4x64xbf16>) -> tensor<1x4x64xbf16>

// The LM head matches `lm_head` by its location: F32, unquantized.
// CHECK: %[[SUM32:.*]] = tpu.Cast %[[SUM]] : (tensor<1x4x64xbf16>) -> tensor<1x4x64xf32>
// CHECK: %[[H:.*]] = top.Weight "lm_head.weight" : () -> tensor<512x64xf32>
// CHECK: %[[L:.*]] = tpu.MatMul %[[SUM32]], %[[H]], %{{.*}} {right_transpose = true} : (tensor<1x4x64xf32>, tensor<512x64xf32>, none) -> tensor<1x4x512xf32>
// CHECK: return %[[L]] : tensor<1x4x512xf32>
func.func @block(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x512xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %wq = top.Weight "model.layers.0.self_attn.q_proj.weight" : () -> tensor<64x64xf32> loc("model.layers.0.self_attn.q_proj.weight")
  %q = top.MatMul %x, %wq, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<64x64xf32>, none) -> tensor<1x4x64xf32> loc("model.layers.0.self_attn.q_proj")
  %g0 = top.Weight "model.layers.0.mlp.gate_proj.weight" : () -> tensor<128x64xf32>
  %u0 = top.Weight "model.layers.0.mlp.up_proj.weight" : () -> tensor<128x64xf32>
  %d0 = top.Weight "model.layers.0.mlp.down_proj.weight" : () -> tensor<64x128xf32>
  %m0 = top.MLP %q, %g0, %u0, %d0 : (tensor<1x4x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<1x4x64xf32> loc("layers.0.mlp")
  %g1 = top.Weight "model.layers.1.mlp.gate_proj.weight" : () -> tensor<128x64xf32>
  %u1 = top.Weight "model.layers.1.mlp.up_proj.weight" : () -> tensor<128x64xf32>
  %d1 = top.Weight "model.layers.1.mlp.down_proj.weight" : () -> tensor<64x128xf32>
  %m1 = top.MLP %q, %g1, %u1, %d1 : (tensor<1x4x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<1x4x64xf32> loc("layers.1.mlp")
  %sum = top.Add %m0, %m1 : (tensor<1x4x64xf32>, tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %head = top.Weight "lm_head.weight" : () -> tensor<512x64xf32>
  %logits = top.MatMul %sum, %head, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<512x64xf32>, none) -> tensor<1x4x512xf32> loc("lm_head")
  return %logits : tensor<1x4x512xf32>
}
