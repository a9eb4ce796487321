// RUN: llmc-opt %s --split-input-file --verify-diagnostics --tpu-lower-top="mode=W8BF16 q-group-size=64" | FileCheck %s --check-prefix=W8
// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=F16 | FileCheck %s --check-prefix=F16
// RUN: echo "lm_head.weight W4BF16" > %t.qtable
// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=W8BF16 q-group-size=32 qtable=%t.qtable" 2>/dev/null | FileCheck %s --check-prefix=QTABLE

// A weight the checkpoint stores quantized (a GGUF Q4_0 tensor here) keeps
// its stored scheme in every weight-only mode, whatever bits and group size
// the mode gives the weights llmc quantizes itself; float modes read its
// dequantized values.

// W8-LABEL: func.func @linear
// W8: %[[Q:.*]] = top.Weight "blk.0.attn_q.weight#w4_g32_sym_f16.qweight" : () -> tensor<32x64x!quant.any<i4:f16>>
// W8: %[[S:.*]] = top.Weight "blk.0.attn_q.weight#w4_g32_sym_f16.scale" : () -> tensor<32x2xf16>
// W8: tpu.A16MatMul %{{.*}}, %[[Q]], %[[S]], %{{.*}}, %{{.*}} {q_group_size = 32 : i64, weight_bits = 4 : i64} : (tensor<1x4x64xbf16>, tensor<32x64x!quant.any<i4:f16>>, tensor<32x2xf16>, none, none) -> tensor<1x4x32xbf16>
// W8: top.Weight "blk.0.attn_k.weight#w8_ch_sym_bf16.qweight"
// W8: tpu.A16MatMul {{.*}} {weight_bits = 8 : i64}

// F16-LABEL: func.func @linear
// F16: top.Weight "blk.0.attn_q.weight" : () -> tensor<32x64xf16>
// F16: tpu.MatMul
// F16-NOT: A16MatMul
func.func @linear(%arg0: tensor<1x4x64xf32>) -> (tensor<1x4x32xf32>, tensor<1x4x32xf32>) {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %none = top.None : none
  %w = top.Weight "blk.0.attn_q.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<32x64xf32>
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, none) -> tensor<1x4x32xf32>
  %k = top.Weight "blk.0.attn_k.weight" : () -> tensor<32x64xf32>
  %z = top.MatMul %x, %k, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, none) -> tensor<1x4x32xf32>
  return %y, %z : tensor<1x4x32xf32>, tensor<1x4x32xf32>
}

// -----

// Three weights stored alike lower to one A16MLP with their scheme.

// W8-LABEL: func.func @mlp
// W8-DAG: %[[G:.*]] = top.Weight "blk.0.ffn_gate.weight#w4_g32_sym_f16.qweight" : () -> tensor<128x64x!quant.any<i4:f16>>
// W8-DAG: %[[D:.*]] = top.Weight "blk.0.ffn_down.weight#w4_g32_sym_f16.qweight" : () -> tensor<64x128x!quant.any<i4:f16>>
// W8-DAG: %[[DS:.*]] = top.Weight "blk.0.ffn_down.weight#w4_g32_sym_f16.scale" : () -> tensor<64x4xf16>
// W8: tpu.A16MLP {{.*}} {q_group_size = 32 : i64, weight_bits = 4 : i64}
func.func @mlp(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %g = top.Weight "blk.0.ffn_gate.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<128x64xf32>
  %u = top.Weight "blk.0.ffn_up.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<128x64xf32>
  %d = top.Weight "blk.0.ffn_down.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<64x128xf32>
  %y = top.MLP %x, %g, %u, %d : (tensor<1x4x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<1x4x64xf32>
  return %y : tensor<1x4x64xf32>
}

// -----

// One A16MLP needs one layout: weights stored in two (a Q4_0 gate, a Q8_0 up)
// are requantized with the mode's scheme, and the compiler says so.

// W8-LABEL: func.func @mixed_mlp
// W8-DAG: top.Weight "blk.0.ffn_gate.weight#w8_ch_sym_bf16.qweight"
// W8-DAG: top.Weight "blk.0.ffn_up.weight#w8_ch_sym_bf16.qweight"
// W8-DAG: top.Weight "blk.0.ffn_down.weight#w8_g64_sym_bf16.qweight"
// W8: tpu.A16MLP {{.*}} {q_group_size = 64 : i64, weight_bits = 8 : i64}
func.func @mixed_mlp(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x64xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %g = top.Weight "blk.0.ffn_gate.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<128x64xf32>
  %u = top.Weight "blk.0.ffn_up.weight" {stored = #top.stored_quant<bits = 8, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<128x64xf32>
  %d = top.Weight "blk.0.ffn_down.weight" : () -> tensor<64x128xf32>
  // expected-warning @+1 {{the checkpoint stores the MLP's weights in different quantized layouts; they are requantized in W8BF16}}
  %y = top.MLP %x, %g, %u, %d : (tensor<1x4x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<1x4x64xf32>
  return %y : tensor<1x4x64xf32>
}

// -----

// GGUF Q4_1 (`d * q + m`) is stored asymmetric with float zero points
// (-m / d): unsigned integers, and an f32 zero-point weight.

// W8-LABEL: func.func @float_zero_points
// W8: %[[Q:.*]] = top.Weight "blk.0.attn_v.weight#w4_g32_asymf_f16.qweight" : () -> tensor<32x64x!quant.any<u4:f16>>
// W8: %[[S:.*]] = top.Weight "blk.0.attn_v.weight#w4_g32_asymf_f16.scale" : () -> tensor<32x2xf16>
// W8: %[[Z:.*]] = top.Weight "blk.0.attn_v.weight#w4_g32_asymf_f16.zp" : () -> tensor<32x2xf32>
// W8: tpu.A16MatMul %{{.*}}, %[[Q]], %[[S]], %[[Z]], %{{.*}} {q_group_size = 32 : i64, weight_bits = 4 : i64}
func.func @float_zero_points(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x32xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %none = top.None : none
  %w = top.Weight "blk.0.attn_v.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = true, scaleType = f16, floatZeroPoints = true>} : () -> tensor<32x64xf32>
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, none) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

// A piece of a checkpoint whose author quantized it keeps the Linear weights
// it stores in float (a GPTQ LM head) in the mode's float type; a qtable
// rule or pin still decides when it names the op.

// W8-LABEL: func.func @left_float_by_choice
// W8: top.Weight "blk.0.attn_q.weight#w4_g32_sym_f16.qweight"
// W8: tpu.A16MatMul
// W8: top.Weight "lm_head.weight" : () -> tensor<32x64xbf16>
// W8: tpu.MatMul {{.*}} -> tensor<1x4x32xbf16>
// W8-NOT: A16MatMul
func.func @left_float_by_choice(%arg0: tensor<1x4x64xf32>) -> (tensor<1x4x32xf32>, tensor<1x4x32xf32>) attributes {llmc.keeps_float_weights} {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %none = top.None : none
  %w = top.Weight "blk.0.attn_q.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<32x64xf32>
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, none) -> tensor<1x4x32xf32>
  %h = top.Weight "lm_head.weight" : () -> tensor<32x64xf32>
  %z = top.MatMul %x, %h, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, none) -> tensor<1x4x32xf32>
  return %y, %z : tensor<1x4x32xf32>, tensor<1x4x32xf32>
}
// QTABLE-LABEL: func.func @left_float_by_choice
// QTABLE: top.Weight "lm_head.weight#w4_g32_sym_bf16.qweight"
