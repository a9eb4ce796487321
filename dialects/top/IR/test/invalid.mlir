// RUN: llmc-opt %s --split-input-file --verify-diagnostics

// One case per error the top ops report: their verifiers, the shape
// functions they share with tpu, the shape-inference interface and the ODS
// constraints.

//===----------------------------------------------------------------------===//
// Custom verifiers
//===----------------------------------------------------------------------===//

func.func @weight_empty_name() -> tensor<4xf32> {
  // expected-error @+1 {{'top.Weight' op needs the name of a tensor in the weight source}}
  %0 = top.Weight "" : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rmsnorm_zero_eps(%x: tensor<2x4xf32>, %w: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.RMSNorm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = top.RMSNorm %x, %w {eps = 0.0 : f64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @rmsnorm_negative_eps(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.RMSNorm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = top.RMSNorm %x, %none {eps = -1.0e-6 : f64} : (tensor<2x4xf32>, none) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @rmsnorm_nan_eps(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.RMSNorm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = top.RMSNorm %x, %none {eps = 0x7FF8000000000000 : f64} : (tensor<2x4xf32>, none) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @layernorm_zero_eps(%x: tensor<2x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.LayerNorm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = top.LayerNorm %x, %w, %b {eps = 0.0 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @fattention_zero_scale(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x8x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op attribute 'scale' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.0 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_negative_scale(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x8x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op attribute 'scale' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = -0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_negative_softcap(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x8x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op attribute 'softcap' failed to satisfy constraint: 64-bit float attribute whose value is zero or positive}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64, softcap = -1.0 : f64} : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @tanh_type_mismatch(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'top.Tanh' op requires the same type for all operands and results}}
  %0 = top.Tanh %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// SameOperandsAndResultElementType rejects a Concat without inputs before
// the shape function or ConcatOp::verify see it.
func.func @concat_no_inputs() -> tensor<2xf32> {
  // expected-error @+1 {{'top.Concat' op expected 1 or more operands, but found 0}}
  %0 = top.Concat {axis = 0 : i64} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// Declared result shapes against the inferred ones
//===----------------------------------------------------------------------===//

// -----

func.func @result_shape_mismatch(%x: tensor<1x8x256xf32>, %w: tensor<768x256xf32>) -> tensor<1x8x512xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.MatMul' op result #0 has shape [1, 8, 512] but the operands imply [1, 8, 768]}}
  %0 = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x8x256xf32>, tensor<768x256xf32>, none) -> tensor<1x8x512xf32>
  return %0 : tensor<1x8x512xf32>
}

// -----

func.func @result_rank_mismatch(%x: tensor<2x4xf32>, %y: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'top.Add' op result #0 has shape [8] but the operands imply [2, 4]}}
  %0 = top.Add %x, %y : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Dynamic dimensions print as `?` and are compatible with any size; a static
// dimension that disagrees is still an error.
func.func @result_shape_mismatch_dynamic(%x: tensor<?x4xf32>) -> tensor<3x?xf32> {
  // expected-error @+1 {{'top.Permute' op result #0 has shape [3, ?] but the operands imply [4, ?]}}
  %0 = top.Permute %x {order = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

func.func @topk_second_result_mismatch(%x: tensor<1x100xf32>) -> (tensor<1x5xf32>, tensor<1x4xi32>) {
  // expected-error @+1 {{'top.TopK' op result #1 has shape [1, 4] but the operands imply [1, 5]}}
  %0:2 = top.TopK %x {k = 5 : i64} : (tensor<1x100xf32>) -> (tensor<1x5xf32>, tensor<1x4xi32>)
  return %0#0, %0#1 : tensor<1x5xf32>, tensor<1x4xi32>
}

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

// -----

func.func @softmax_axis_out_of_range(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.Softmax' op axis 2 is out of range for rank 2}}
  %0 = top.Softmax %x {axis = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @gather_axis_out_of_range(%table: tensor<100x64xf32>, %ids: tensor<8xi32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'top.Gather' op axis -3 is out of range for rank 2}}
  %0 = top.Gather %table, %ids {axis = -3 : i64} : (tensor<100x64xf32>, tensor<8xi32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @arg_axis_out_of_range(%x: tensor<1x1000xf32>) -> tensor<1x1xi32> {
  // expected-error @+1 {{'top.Arg' op axis 2 is out of range for rank 2}}
  %0 = top.Arg %x {axis = 2 : i64} : (tensor<1x1000xf32>) -> tensor<1x1xi32>
  return %0 : tensor<1x1xi32>
}

// -----

func.func @topk_axis_out_of_range(%x: tensor<1x1000xf32>) -> (tensor<1x5xf32>, tensor<1x5xi32>) {
  // expected-error @+1 {{'top.TopK' op axis -3 is out of range for rank 2}}
  %0:2 = top.TopK %x {k = 5 : i64, axis = -3 : i64} : (tensor<1x1000xf32>) -> (tensor<1x5xf32>, tensor<1x5xi32>)
  return %0#0, %0#1 : tensor<1x5xf32>, tensor<1x5xi32>
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'top.Concat' op axis 2 is out of range for rank 2}}
  %0 = top.Concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// Broadcasting and MatMul
//===----------------------------------------------------------------------===//

// -----

func.func @add_no_broadcast(%x: tensor<2x3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'top.Add' op operands do not broadcast: dimension 0 is 2 and 4}}
  %0 = top.Add %x, %y : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @mul_no_broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.Mul' op operands do not broadcast: dimension 1 is 3 and 4}}
  %0 = top.Mul %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @matmul_rank_1(%x: tensor<256xf32>, %w: tensor<256x768xf32>) -> tensor<768xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.MatMul' op matmul operands need rank >= 2, got 1 and 2}}
  %0 = top.MatMul %x, %w, %none : (tensor<256xf32>, tensor<256x768xf32>, none) -> tensor<768xf32>
  return %0 : tensor<768xf32>
}

// -----

func.func @matmul_contraction_mismatch(%x: tensor<8x256xf32>, %w: tensor<128x768xf32>) -> tensor<8x768xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.MatMul' op contraction dimensions differ: input has K = 256, right operand has K = 128}}
  %0 = top.MatMul %x, %w, %none : (tensor<8x256xf32>, tensor<128x768xf32>, none) -> tensor<8x768xf32>
  return %0 : tensor<8x768xf32>
}

// -----

// With right_transpose the weight is [N, K]: a [K, N] weight is rejected.
func.func @matmul_transposed_contraction_mismatch(%x: tensor<8x256xf32>, %w: tensor<256x768xf32>) -> tensor<8x256xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.MatMul' op contraction dimensions differ: input has K = 256, right operand has K = 768}}
  %0 = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<8x256xf32>, tensor<256x768xf32>, none) -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}

// -----

func.func @matmul_left_transposed_contraction_mismatch(%x: tensor<8x256xf32>, %w: tensor<256x768xf32>) -> tensor<256x768xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.MatMul' op contraction dimensions differ: input has K = 8, right operand has K = 256}}
  %0 = top.MatMul %x, %w, %none {left_transpose = true} : (tensor<8x256xf32>, tensor<256x768xf32>, none) -> tensor<256x768xf32>
  return %0 : tensor<256x768xf32>
}

// -----

func.func @matmul_batch_mismatch(%x: tensor<2x8x16xf32>, %w: tensor<3x16x4xf32>) -> tensor<3x8x4xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.MatMul' op operands do not broadcast: dimension 0 is 2 and 3}}
  %0 = top.MatMul %x, %w, %none : (tensor<2x8x16xf32>, tensor<3x16x4xf32>, none) -> tensor<3x8x4xf32>
  return %0 : tensor<3x8x4xf32>
}

// -----

func.func @matmul_bias_not_n(%x: tensor<8x256xf32>, %w: tensor<256x768xf32>, %b: tensor<512xf32>) -> tensor<8x768xf32> {
  // expected-error @+1 {{'top.MatMul' op bias must end in N = 768}}
  %0 = top.MatMul %x, %w, %b : (tensor<8x256xf32>, tensor<256x768xf32>, tensor<512xf32>) -> tensor<8x768xf32>
  return %0 : tensor<8x768xf32>
}

// -----

func.func @matmul_scalar_bias(%x: tensor<8x256xf32>, %w: tensor<256x?xf32>, %b: tensor<f32>) -> tensor<8x?xf32> {
  // expected-error @+1 {{'top.MatMul' op bias must end in N = ?}}
  %0 = top.MatMul %x, %w, %b : (tensor<8x256xf32>, tensor<256x?xf32>, tensor<f32>) -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// -----

func.func @matmul_bias_no_broadcast(%x: tensor<1x8x256xf32>, %w: tensor<256x768xf32>, %b: tensor<3x768xf32>) -> tensor<1x8x768xf32> {
  // expected-error @+1 {{'top.MatMul' op operands do not broadcast: dimension 1 is 8 and 3}}
  %0 = top.MatMul %x, %w, %b : (tensor<1x8x256xf32>, tensor<256x768xf32>, tensor<3x768xf32>) -> tensor<1x8x768xf32>
  return %0 : tensor<1x8x768xf32>
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// -----

func.func @norm_scalar_input(%x: tensor<f32>) -> tensor<f32> {
  %none = top.None : none
  // expected-error @+1 {{'top.RMSNorm' op normalized input must have rank >= 1}}
  %0 = top.RMSNorm %x, %none {eps = 1.0e-6 : f64} : (tensor<f32>, none) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @rmsnorm_weight_size(%x: tensor<2x256xf32>, %w: tensor<128xf32>) -> tensor<2x256xf32> {
  // expected-error @+1 {{'top.RMSNorm' op weight must have shape [256]}}
  %0 = top.RMSNorm %x, %w {eps = 1.0e-6 : f64} : (tensor<2x256xf32>, tensor<128xf32>) -> tensor<2x256xf32>
  return %0 : tensor<2x256xf32>
}

// -----

func.func @rmsnorm_weight_rank(%x: tensor<2x?xf32>, %w: tensor<1x256xf32>) -> tensor<2x?xf32> {
  // expected-error @+1 {{'top.RMSNorm' op weight must have shape [?]}}
  %0 = top.RMSNorm %x, %w {eps = 1.0e-6 : f64} : (tensor<2x?xf32>, tensor<1x256xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

func.func @layernorm_weight_size(%x: tensor<2x256xf32>, %w: tensor<255xf32>) -> tensor<2x256xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.LayerNorm' op weight must have shape [256]}}
  %0 = top.LayerNorm %x, %w, %none {eps = 1.0e-5 : f64} : (tensor<2x256xf32>, tensor<255xf32>, none) -> tensor<2x256xf32>
  return %0 : tensor<2x256xf32>
}

// -----

func.func @layernorm_bias_size(%x: tensor<2x256xf32>, %w: tensor<256xf32>, %b: tensor<2x256xf32>) -> tensor<2x256xf32> {
  // expected-error @+1 {{'top.LayerNorm' op bias must have shape [256]}}
  %0 = top.LayerNorm %x, %w, %b {eps = 1.0e-5 : f64} : (tensor<2x256xf32>, tensor<256xf32>, tensor<2x256xf32>) -> tensor<2x256xf32>
  return %0 : tensor<2x256xf32>
}

//===----------------------------------------------------------------------===//
// Rope
//===----------------------------------------------------------------------===//

// -----

func.func @rope_input_rank(%x: tensor<1x8x256xf32>, %c: tensor<1x8x64xf32>) -> tensor<1x8x256xf32> {
  // expected-error @+1 {{'top.Rope' op rope input must be [batch, seq, heads, head_dim]}}
  %0 = top.Rope %x, %c, %c : (tensor<1x8x256xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

func.func @rope_cos_rank(%x: tensor<1x8x4x64xf32>, %c: tensor<8x64xf32>) -> tensor<1x8x4x64xf32> {
  // expected-error @+1 {{'top.Rope' op cos and sin must both be [batch, seq, rotary_dim]}}
  %0 = top.Rope %x, %c, %c : (tensor<1x8x4x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<1x8x4x64xf32>
  return %0 : tensor<1x8x4x64xf32>
}

// -----

func.func @rope_cos_sin_differ(%x: tensor<1x8x4x64xf32>, %c: tensor<1x8x64xf32>, %s: tensor<1x8x32xf32>) -> tensor<1x8x4x64xf32> {
  // expected-error @+1 {{'top.Rope' op cos and sin must both be [batch, seq, rotary_dim]}}
  %0 = top.Rope %x, %c, %s : (tensor<1x8x4x64xf32>, tensor<1x8x64xf32>, tensor<1x8x32xf32>) -> tensor<1x8x4x64xf32>
  return %0 : tensor<1x8x4x64xf32>
}

// -----

func.func @rope_batch_mismatch(%x: tensor<3x8x4x64xf32>, %c: tensor<2x8x64xf32>) -> tensor<3x8x4x64xf32> {
  // expected-error @+1 {{'top.Rope' op cos/sin batch and sequence must match the input}}
  %0 = top.Rope %x, %c, %c : (tensor<3x8x4x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>) -> tensor<3x8x4x64xf32>
  return %0 : tensor<3x8x4x64xf32>
}

// -----

func.func @rope_seq_mismatch(%x: tensor<1x8x4x64xf32>, %c: tensor<1x16x64xf32>) -> tensor<1x8x4x64xf32> {
  // expected-error @+1 {{'top.Rope' op cos/sin batch and sequence must match the input}}
  %0 = top.Rope %x, %c, %c : (tensor<1x8x4x64xf32>, tensor<1x16x64xf32>, tensor<1x16x64xf32>) -> tensor<1x8x4x64xf32>
  return %0 : tensor<1x8x4x64xf32>
}

// -----

func.func @rope_odd_rotary_dim(%x: tensor<1x8x4x64xf32>, %c: tensor<1x8x31xf32>) -> tensor<1x8x4x64xf32> {
  // expected-error @+1 {{'top.Rope' op rotary_dim 31 must be even and at most head_dim 64}}
  %0 = top.Rope %x, %c, %c : (tensor<1x8x4x64xf32>, tensor<1x8x31xf32>, tensor<1x8x31xf32>) -> tensor<1x8x4x64xf32>
  return %0 : tensor<1x8x4x64xf32>
}

// -----

func.func @rope_odd_rotary_dim_dynamic_head(%x: tensor<1x8x4x?xf32>, %c: tensor<1x8x31xf32>) -> tensor<1x8x4x?xf32> {
  // expected-error @+1 {{'top.Rope' op rotary_dim 31 must be even and at most head_dim ?}}
  %0 = top.Rope %x, %c, %c : (tensor<1x8x4x?xf32>, tensor<1x8x31xf32>, tensor<1x8x31xf32>) -> tensor<1x8x4x?xf32>
  return %0 : tensor<1x8x4x?xf32>
}

// -----

func.func @rope_rotary_dim_too_large(%x: tensor<1x8x4x64xf32>, %c: tensor<1x8x128xf32>) -> tensor<1x8x4x64xf32> {
  // expected-error @+1 {{'top.Rope' op rotary_dim 128 must be even and at most head_dim 64}}
  %0 = top.Rope %x, %c, %c {mode = #top<rope_mode interleaved>} : (tensor<1x8x4x64xf32>, tensor<1x8x128xf32>, tensor<1x8x128xf32>) -> tensor<1x8x4x64xf32>
  return %0 : tensor<1x8x4x64xf32>
}

//===----------------------------------------------------------------------===//
// FAttention
//===----------------------------------------------------------------------===//

// -----

func.func @fattention_rank(%q: tensor<1x8x64xf32>, %kv: tensor<1x8x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op q, k and v must be [batch, seq, heads, head_dim]}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x64xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_heads_not_grouped(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x8x3x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op q_head (4) must be a positive multiple of kv_head (3) and head_dim positive}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 3 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x8x3x16xf32>, tensor<1x8x3x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_zero_kv_head(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x8x?x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op q_head (4) must be a positive multiple of kv_head (0) and head_dim positive}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 0 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x8x?x16xf32>, tensor<1x8x?x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_zero_head_dim(%q: tensor<1x8x4x?xf32>, %kv: tensor<1x8x2x?xf32>) -> tensor<1x8x?xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op q_head (4) must be a positive multiple of kv_head (2) and head_dim positive}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 0 : i64} : (tensor<1x8x4x?xf32>, tensor<1x8x2x?xf32>, tensor<1x8x2x?xf32>, none) -> tensor<1x8x?xf32>
  return %0 : tensor<1x8x?xf32>
}

// -----

func.func @fattention_q_heads(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x8x2x16xf32>) -> tensor<1x8x128xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op q must have 8 heads of 16}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 8 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, none) -> tensor<1x8x128xf32>
  return %0 : tensor<1x8x128xf32>
}

// -----

func.func @fattention_q_head_dim(%q: tensor<1x8x4x32xf32>, %kv: tensor<1x8x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op q must have 4 heads of 16}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x32xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_k_heads(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x4x16xf32>, %v: tensor<1x8x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op k and v must have 2 heads of 16}}
  %0 = top.FAttention %q, %k, %v, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_v_head_dim(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x8xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op k and v must have 2 heads of 16}}
  %0 = top.FAttention %q, %k, %v, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x8xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_batch_mismatch(%q: tensor<1x8x4x16xf32>, %kv: tensor<2x8x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op k and v must share q's batch and each other's length}}
  %0 = top.FAttention %q, %kv, %kv, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_kv_length_mismatch(%q: tensor<1x8x4x16xf32>, %k: tensor<1x24x2x16xf32>, %v: tensor<1x16x2x16xf32>) -> tensor<1x8x64xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.FAttention' op k and v must share q's batch and each other's length}}
  %0 = top.FAttention %q, %k, %v, %none {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x24x2x16xf32>, tensor<1x16x2x16xf32>, none) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_mask_rank(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x24x2x16xf32>, %mask: tensor<8x24xf32>) -> tensor<1x8x64xf32> {
  // expected-error @+1 {{'top.FAttention' op mask must be [batch or 1, q_len, kv_len]}}
  %0 = top.FAttention %q, %kv, %kv, %mask {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x8x4x16xf32>, tensor<1x24x2x16xf32>, tensor<1x24x2x16xf32>, tensor<8x24xf32>) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

// -----

func.func @fattention_mask_batch(%q: tensor<2x8x4x16xf32>, %kv: tensor<2x24x2x16xf32>, %mask: tensor<3x8x24xf32>) -> tensor<2x8x64xf32> {
  // expected-error @+1 {{'top.FAttention' op mask must be [batch or 1, q_len, kv_len]}}
  %0 = top.FAttention %q, %kv, %kv, %mask {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<2x8x4x16xf32>, tensor<2x24x2x16xf32>, tensor<2x24x2x16xf32>, tensor<3x8x24xf32>) -> tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// -----

func.func @fattention_mask_kv_len(%q: tensor<1x8x4x16xf32>, %kv: tensor<1x24x2x16xf32>, %mask: tensor<1x8x8xf32>) -> tensor<1x8x64xf32> {
  // expected-error @+1 {{'top.FAttention' op mask must be [batch or 1, q_len, kv_len]}}
  %0 = top.FAttention %q, %kv, %kv, %mask {scale = 0.25 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64, causal = true} : (tensor<1x8x4x16xf32>, tensor<1x24x2x16xf32>, tensor<1x24x2x16xf32>, tensor<1x8x8xf32>) -> tensor<1x8x64xf32>
  return %0 : tensor<1x8x64xf32>
}

//===----------------------------------------------------------------------===//
// MLP
//===----------------------------------------------------------------------===//

// -----

func.func @mlp_weight_rank(%x: tensor<1x8x256xf32>, %gate: tensor<1x688x256xf32>, %up: tensor<688x256xf32>, %down: tensor<256x688xf32>) -> tensor<1x8x256xf32> {
  // expected-error @+1 {{'top.MLP' op MLP weights must be 2-D and the input at least 1-D}}
  %0 = top.MLP %x, %gate, %up, %down : (tensor<1x8x256xf32>, tensor<1x688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

func.func @mlp_scalar_input(%x: tensor<f32>, %gate: tensor<688x256xf32>, %up: tensor<688x256xf32>, %down: tensor<256x688xf32>) -> tensor<f32> {
  // expected-error @+1 {{'top.MLP' op MLP weights must be 2-D and the input at least 1-D}}
  %0 = top.MLP %x, %gate, %up, %down : (tensor<f32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A gate weight in [in, out] layout rather than Linear's [out, in].
func.func @mlp_gate_layout(%x: tensor<1x8x256xf32>, %gate: tensor<256x688xf32>, %up: tensor<688x256xf32>, %down: tensor<256x688xf32>) -> tensor<1x8x256xf32> {
  // expected-error @+1 {{'top.MLP' op gate and up weights must both be [intermediate, 256]}}
  %0 = top.MLP %x, %gate, %up, %down : (tensor<1x8x256xf32>, tensor<256x688xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

func.func @mlp_gate_up_differ(%x: tensor<1x8x?xf32>, %gate: tensor<688x256xf32>, %up: tensor<512x256xf32>, %down: tensor<256x688xf32>) -> tensor<1x8x?xf32> {
  // expected-error @+1 {{'top.MLP' op gate and up weights must both be [intermediate, ?]}}
  %0 = top.MLP %x, %gate, %up, %down : (tensor<1x8x?xf32>, tensor<688x256xf32>, tensor<512x256xf32>, tensor<256x688xf32>) -> tensor<1x8x?xf32>
  return %0 : tensor<1x8x?xf32>
}

// -----

func.func @mlp_down_layout(%x: tensor<1x8x256xf32>, %gate: tensor<688x256xf32>, %up: tensor<688x256xf32>, %down: tensor<688x256xf32>) -> tensor<1x8x256xf32> {
  // expected-error @+1 {{'top.MLP' op down weight must be [256, intermediate]}}
  %0 = top.MLP %x, %gate, %up, %down {activation = #top<activation gelu>} : (tensor<1x8x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_count(%x: tensor<1x8x256xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'top.Reshape' op reshape changes the element count from 2048 to 1024}}
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

func.func @reshape_not_divisible(%x: tensor<1x8x256xf32>) -> tensor<3x?xf32> {
  // expected-error @+1 {{'top.Reshape' op cannot reshape 2048 elements}}
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

func.func @reshape_zero_known_elements(%x: tensor<1x8x256xf32>) -> tensor<0x?xf32> {
  // expected-error @+1 {{'top.Reshape' op cannot reshape 2048 elements}}
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<0x?xf32>
  return %0 : tensor<0x?xf32>
}

// -----

func.func @permute_order_size(%x: tensor<1x8x256xf32>) -> tensor<8x1xf32> {
  // expected-error @+1 {{'top.Permute' op order has 2 entries for rank 3}}
  %0 = top.Permute %x {order = array<i64: 1, 0>} : (tensor<1x8x256xf32>) -> tensor<8x1xf32>
  return %0 : tensor<8x1xf32>
}

// -----

func.func @permute_repeated_axis(%x: tensor<1x8x256xf32>) -> tensor<8x8x256xf32> {
  // expected-error @+1 {{'top.Permute' op order is not a permutation of 0..2}}
  %0 = top.Permute %x {order = array<i64: 1, 1, 2>} : (tensor<1x8x256xf32>) -> tensor<8x8x256xf32>
  return %0 : tensor<8x8x256xf32>
}

// -----

func.func @permute_axis_out_of_range(%x: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  // expected-error @+1 {{'top.Permute' op order is not a permutation of 0..2}}
  %0 = top.Permute %x {order = array<i64: 0, 1, -1>} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'top.Concat' op concat inputs must have the same rank}}
  %0 = top.Concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_other_dim_mismatch(%past: tensor<1x16x2x64xf32>, %new: tensor<1x8x4x64xf32>) -> tensor<1x24x2x64xf32> {
  // expected-error @+1 {{'top.Concat' op concat inputs differ in dimension 2, which is not the concat axis}}
  %0 = top.Concat %past, %new {axis = 1 : i64} : (tensor<1x16x2x64xf32>, tensor<1x8x4x64xf32>) -> tensor<1x24x2x64xf32>
  return %0 : tensor<1x24x2x64xf32>
}

// -----

func.func @slice_entry_count(%x: tensor<1x8x256xf32>) -> tensor<1x4x256xf32> {
  // expected-error @+1 {{'top.Slice' op starts, ends and steps need one entry per dimension (3)}}
  %0 = top.Slice %x {starts = array<i64: 0, 0>, ends = array<i64: 1, 4, 256>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x256xf32>) -> tensor<1x4x256xf32>
  return %0 : tensor<1x4x256xf32>
}

// -----

func.func @slice_zero_step(%x: tensor<1x8x256xf32>) -> tensor<1x4x256xf32> {
  // expected-error @+1 {{'top.Slice' op slice steps must be positive}}
  %0 = top.Slice %x {starts = array<i64: 0, 0, 0>, ends = array<i64: 1, 4, 256>, steps = array<i64: 1, 0, 1>} : (tensor<1x8x256xf32>) -> tensor<1x4x256xf32>
  return %0 : tensor<1x4x256xf32>
}

// -----

// Steps must be positive even on a dynamic dimension.
func.func @slice_negative_step(%x: tensor<1x?x256xf32>) -> tensor<1x?x256xf32> {
  // expected-error @+1 {{'top.Slice' op slice steps must be positive}}
  %0 = top.Slice %x {starts = array<i64: 0, -1, 0>, ends = array<i64: 1, 0, 256>, steps = array<i64: 1, -1, 1>} : (tensor<1x?x256xf32>) -> tensor<1x?x256xf32>
  return %0 : tensor<1x?x256xf32>
}

// -----

func.func @slice_start_past_end(%x: tensor<1x8x256xf32>) -> tensor<1x1x256xf32> {
  // expected-error @+1 {{'top.Slice' op slice [9, 10) is out of range for dimension 1 of size 8}}
  %0 = top.Slice %x {starts = array<i64: 0, 9, 0>, ends = array<i64: 1, 10, 256>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x256xf32>) -> tensor<1x1x256xf32>
  return %0 : tensor<1x1x256xf32>
}

// -----

func.func @slice_start_before_begin(%x: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  // expected-error @+1 {{'top.Slice' op slice [-9, 8) is out of range for dimension 1 of size 8}}
  %0 = top.Slice %x {starts = array<i64: 0, -9, 0>, ends = array<i64: 1, 8, 256>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

func.func @slice_end_before_start(%x: tensor<1x8x256xf32>) -> tensor<1x8x0xf32> {
  // expected-error @+1 {{'top.Slice' op slice [128, -200) is out of range for dimension 2 of size 256}}
  %0 = top.Slice %x {starts = array<i64: 0, 0, 128>, ends = array<i64: 1, 8, -200>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x256xf32>) -> tensor<1x8x0xf32>
  return %0 : tensor<1x8x0xf32>
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

// -----

func.func @topk_k_too_large(%x: tensor<1x1000xf32>) -> (tensor<1x2000xf32>, tensor<1x2000xi32>) {
  // expected-error @+1 {{'top.TopK' op k = 2000 must be in [1, 1000]}}
  %0:2 = top.TopK %x {k = 2000 : i64} : (tensor<1x1000xf32>) -> (tensor<1x2000xf32>, tensor<1x2000xi32>)
  return %0#0, %0#1 : tensor<1x2000xf32>, tensor<1x2000xi32>
}

// -----

func.func @topk_k_zero(%x: tensor<1x?xf32>) -> (tensor<1x0xf32>, tensor<1x0xi32>) {
  // expected-error @+1 {{'top.TopK' op k = 0 must be in [1, ?]}}
  %0:2 = top.TopK %x {k = 0 : i64} : (tensor<1x?xf32>) -> (tensor<1x0xf32>, tensor<1x0xi32>)
  return %0#0, %0#1 : tensor<1x0xf32>, tensor<1x0xi32>
}

//===----------------------------------------------------------------------===//
// ODS constraints
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_integer_input(%x: tensor<8x256xi32>, %w: tensor<256x768xf32>) -> tensor<8x768xf32> {
  %none = top.None : none
  // expected-error @+1 {{'top.MatMul' op operand #0 must be tensor of floating-point values, but got 'tensor<8x256xi32>'}}
  %0 = top.MatMul %x, %w, %none : (tensor<8x256xi32>, tensor<256x768xf32>, none) -> tensor<8x768xf32>
  return %0 : tensor<8x768xf32>
}

// -----

func.func @matmul_integer_bias(%x: tensor<8x256xf32>, %w: tensor<256x768xf32>, %b: tensor<768xi32>) -> tensor<8x768xf32> {
  // expected-error @+1 {{'top.MatMul' op operand #2 must be tensor of floating-point values or none type, but got 'tensor<768xi32>'}}
  %0 = top.MatMul %x, %w, %b : (tensor<8x256xf32>, tensor<256x768xf32>, tensor<768xi32>) -> tensor<8x768xf32>
  return %0 : tensor<8x768xf32>
}

// -----

func.func @gather_float_indices(%table: tensor<100x64xf32>, %ids: tensor<8xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'top.Gather' op operand #1 must be tensor of signless integer values, but got 'tensor<8xf32>'}}
  %0 = top.Gather %table, %ids : (tensor<100x64xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @arg_float_result(%x: tensor<1x1000xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{'top.Arg' op result #0 must be tensor of signless integer values, but got 'tensor<1x1xf32>'}}
  %0 = top.Arg %x {axis = -1 : i64} : (tensor<1x1000xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @weight_dynamic_shape() -> tensor<?x256xf32> {
  // expected-error @+1 {{'top.Weight' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?x256xf32>'}}
  %0 = top.Weight "w" : () -> tensor<?x256xf32>
  return %0 : tensor<?x256xf32>
}

// -----

func.func @input_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'top.Input' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = top.Input %x : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @none_of_tensor_type() -> tensor<f32> {
  // expected-error @+1 {{'top.None' op result #0 must be none type, but got 'tensor<f32>'}}
  %0 = "top.None"() : () -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @rmsnorm_missing_eps(%x: tensor<2x4xf32>, %w: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.RMSNorm' op requires attribute 'eps'}}
  %0 = top.RMSNorm %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @rmsnorm_f32_eps(%x: tensor<2x4xf32>, %w: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.RMSNorm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute}}
  %0 = top.RMSNorm %x, %w {eps = 1.0e-6 : f32} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @add_element_type_mismatch(%x: tensor<2x4xf32>, %y: tensor<2x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.Add' op requires the same element type for all operands and results}}
  %0 = top.Add %x, %y : (tensor<2x4xf32>, tensor<2x4xf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @mulconst_result_type(%x: tensor<2x4xf32>) -> tensor<2x4xf16> {
  // expected-error @+1 {{'top.MulConst' op requires the same type for all operands and results}}
  %0 = top.MulConst %x {const_val = 2.0 : f64} : (tensor<2x4xf32>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

func.func @unknown_enum_case(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{expected ::llmc::top::GELUApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Top_GELUApproximationAttr parameter 'value'}}
  %0 = top.GELU %x {approximation = #top<gelu_approximation erf>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @enum_of_another_kind(%x: tensor<1x8x256xf32>, %gate: tensor<688x256xf32>, %up: tensor<688x256xf32>, %down: tensor<256x688xf32>) -> tensor<1x8x256xf32> {
  // expected-error @+1 {{'top.MLP' op attribute 'activation' failed to satisfy constraint: an elementwise activation}}
  %0 = top.MLP %x, %gate, %up, %down {activation = #top<rope_mode half>} : (tensor<1x8x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

func.func @enum_as_integer(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.GELU' op attribute 'approximation' failed to satisfy constraint: how GELU evaluates the Gaussian CDF}}
  %0 = top.GELU %x {approximation = 1 : i32} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @enum_as_integer_generic(%x: tensor<1x8x4x64xf32>, %c: tensor<1x8x64xf32>) -> tensor<1x8x4x64xf32> {
  // expected-error @+1 {{invalid properties {mode = 1 : i32} for op top.Rope: Invalid attribute `mode` in property conversion: 1 : i32}}
  %0 = "top.Rope"(%x, %c, %c) <{mode = 1 : i32}> : (tensor<1x8x4x64xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x4x64xf32>
  return %0 : tensor<1x8x4x64xf32>
}

//===----------------------------------------------------------------------===//
// Constant, Div, Compare, Where, ScatterElements, CumSum
//===----------------------------------------------------------------------===//

// -----

func.func @constant_type_mismatch() -> tensor<1x2xf32> {
  // expected-error @+1 {{'top.Constant' op failed to verify that all of {value, output} have same type}}
  %0 = "top.Constant"() <{value = dense<0.0> : tensor<1x1xf32>}> : () -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

func.func @constant_resource() -> tensor<2xf32> {
  // expected-error @+1 {{'top.Constant' op value must be a dense attribute of integers or floats}}
  %0 = top.Constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @div_integer(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'top.Div' op operand #0 must be tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = top.Div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @div_no_broadcast(%a: tensor<1x512xf32>, %b: tensor<1x50xf32>) -> tensor<1x512xf32> {
  // expected-error @+1 {{'top.Div' op operands do not broadcast: dimension 1 is 512 and 50}}
  %0 = top.Div %a, %b : (tensor<1x512xf32>, tensor<1x50xf32>) -> tensor<1x512xf32>
  return %0 : tensor<1x512xf32>
}

// -----

func.func @compare_mixed_types(%ids: tensor<1x64xi32>, %zero: tensor<1x1xf32>) -> tensor<1x64xi1> {
  // expected-error @+1 {{'top.Compare' op failed to verify that all of {lhs, rhs} have same element type}}
  %0 = top.Compare %ids, %zero {mode = #top<compare_mode lt>} : (tensor<1x64xi32>, tensor<1x1xf32>) -> tensor<1x64xi1>
  return %0 : tensor<1x64xi1>
}

// -----

func.func @compare_float_result(%x: tensor<1x64xf32>, %y: tensor<1x1xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{'top.Compare' op result #0 must be tensor of signless integer values, but got 'tensor<1x64xf32>'}}
  %0 = top.Compare %x, %y {mode = #top<compare_mode gt>} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

func.func @compare_missing_mode(%x: tensor<1x64xf32>, %y: tensor<1x1xf32>) -> tensor<1x64xi1> {
  // expected-error @+1 {{'top.Compare' op requires attribute 'mode'}}
  %0 = top.Compare %x, %y : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xi1>
  return %0 : tensor<1x64xi1>
}

// -----

func.func @compare_no_broadcast(%x: tensor<1x64xf32>, %y: tensor<1x50xf32>) -> tensor<1x64xi1> {
  // expected-error @+1 {{'top.Compare' op operands do not broadcast: dimension 1 is 64 and 50}}
  %0 = top.Compare %x, %y {mode = #top<compare_mode ge>} : (tensor<1x64xf32>, tensor<1x50xf32>) -> tensor<1x64xi1>
  return %0 : tensor<1x64xi1>
}

// -----

func.func @where_float_condition(%c: tensor<1x64xf32>, %x: tensor<1x64xf32>, %y: tensor<1x64xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{'top.Where' op operand #0 must be tensor of signless integer values, but got 'tensor<1x64xf32>'}}
  %0 = top.Where %c, %x, %y : (tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

func.func @where_branch_types(%c: tensor<1x64xi1>, %x: tensor<1x64xf32>, %y: tensor<1x64xi32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{'top.Where' op failed to verify that all of {x, y, output} have same element type}}
  %0 = top.Where %c, %x, %y : (tensor<1x64xi1>, tensor<1x64xf32>, tensor<1x64xi32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

func.func @where_condition_no_broadcast(%c: tensor<1x50xi1>, %x: tensor<1x64xf32>, %y: tensor<1x1xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{'top.Where' op operands do not broadcast: dimension 1 is 50 and 64}}
  %0 = top.Where %c, %x, %y : (tensor<1x50xi1>, tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// The result is the broadcast of all three operands, the condition's too.
func.func @where_result_ignores_condition(%c: tensor<4x1xi1>, %x: tensor<3xf32>, %y: tensor<1xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'top.Where' op result #0 has shape [3] but the operands imply [4, 3]}}
  %0 = top.Where %c, %x, %y : (tensor<4x1xi1>, tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @scatter_rank_mismatch(%d: tensor<1x513xf32>, %i: tensor<64xi32>, %u: tensor<64xf32>) -> tensor<1x513xf32> {
  // expected-error @+1 {{'top.ScatterElements' op data, indices and updates must have the same rank}}
  %0 = top.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x513xf32>, tensor<64xi32>, tensor<64xf32>) -> tensor<1x513xf32>
  return %0 : tensor<1x513xf32>
}

// -----

func.func @scatter_updates_shape(%d: tensor<1x513xf32>, %i: tensor<1x64xi32>, %u: tensor<1x?xf32>, %v: tensor<1x32xf32>) -> tensor<1x513xf32> {
  // A dynamic dimension of updates is compatible with the indices'.
  %0 = top.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x?xf32>) -> tensor<1x513xf32>
  // expected-error @+1 {{'top.ScatterElements' op indices and updates differ in dimension 1 (64 and 32)}}
  %1 = top.ScatterElements %0, %i, %v {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x32xf32>) -> tensor<1x513xf32>
  return %1 : tensor<1x513xf32>
}

// -----

func.func @scatter_indices_exceed_data(%d: tensor<1x513xf32>, %i: tensor<2x64xi32>, %u: tensor<2x64xf32>) -> tensor<1x513xf32> {
  // expected-error @+1 {{'top.ScatterElements' op indices dimension 0 (2) exceeds the data dimension (1)}}
  %0 = top.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x513xf32>, tensor<2x64xi32>, tensor<2x64xf32>) -> tensor<1x513xf32>
  return %0 : tensor<1x513xf32>
}

// -----

func.func @scatter_axis_out_of_range(%d: tensor<1x513xf32>, %i: tensor<1x64xi32>, %u: tensor<1x64xf32>) -> tensor<1x513xf32> {
  // expected-error @+1 {{'top.ScatterElements' op axis 2 is out of range for rank 2}}
  %0 = top.ScatterElements %d, %i, %u {axis = 2 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x64xf32>) -> tensor<1x513xf32>
  return %0 : tensor<1x513xf32>
}

// -----

func.func @scatter_updates_type(%d: tensor<1x513xf32>, %i: tensor<1x64xi32>, %u: tensor<1x64xf16>) -> tensor<1x513xf32> {
  // expected-error @+1 {{'top.ScatterElements' op failed to verify that all of {data, updates, output} have same element type}}
  %0 = top.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x64xf16>) -> tensor<1x513xf32>
  return %0 : tensor<1x513xf32>
}

// -----

func.func @cumsum_axis_out_of_range(%p: tensor<1x50xf32>) -> tensor<1x50xf32> {
  // expected-error @+1 {{'top.CumSum' op axis -3 is out of range for rank 2}}
  %0 = top.CumSum %p {axis = -3 : i64} : (tensor<1x50xf32>) -> tensor<1x50xf32>
  return %0 : tensor<1x50xf32>
}

// -----

func.func @cumsum_integer(%p: tensor<1x50xi32>) -> tensor<1x50xi32> {
  // expected-error @+1 {{'top.CumSum' op operand #0 must be tensor of floating-point values, but got 'tensor<1x50xi32>'}}
  %0 = top.CumSum %p : (tensor<1x50xi32>) -> tensor<1x50xi32>
  return %0 : tensor<1x50xi32>
}

// -----

func.func @stored_weight_not_matrix() -> tensor<256xf32> {
  // expected-error @+1 {{'top.Weight' op stored quantized weight must be a matrix, not 'tensor<256xf32>'}}
  %0 = top.Weight "w" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<256xf32>
  return %0 : tensor<256xf32>
}

// -----

func.func @stored_weight_group_does_not_divide() -> tensor<8x48xf32> {
  // expected-error @+1 {{'top.Weight' op stored group size 32 does not divide the weight's K = 48}}
  %0 = top.Weight "w" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<8x48xf32>
  return %0 : tensor<8x48xf32>
}

// -----

func.func @stored_weight_bits() -> tensor<8x64xf32> {
  // expected-error @+1 {{stored weights have 4 or 8 bits, not 3}}
  %0 = top.Weight "w" {stored = #top.stored_quant<bits = 3, groupSize = 32, asymmetric = false, scaleType = f16>} : () -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @stored_weight_scale_type() -> tensor<8x64xf32> {
  // expected-error @+1 {{scales are f32, f16 or bf16, not 'i8'}}
  %0 = top.Weight "w" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = i8>} : () -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

//===----------------------------------------------------------------------===//
// Sqrt, Sigmoid, Pow, ReduceMean, Expand
//===----------------------------------------------------------------------===//

// -----

func.func @sqrt_integer(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'top.Sqrt' op operand #0 must be tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = top.Sqrt %x : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @sigmoid_type_mismatch(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'top.Sigmoid' op requires the same type for all operands and results}}
  %0 = top.Sigmoid %x : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @pow_no_exponent(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'top.Pow' op requires attribute 'exponent'}}
  %0 = top.Pow %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pow_shape_mismatch(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'top.Pow' op requires the same type for all operands and results}}
  %0 = top.Pow %x {exponent = 2.0 : f64} : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_mean_no_axes(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'top.ReduceMean' op axes must name at least one dimension}}
  %0 = top.ReduceMean %x {axes = array<i64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce_mean_axis_out_of_range(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'top.ReduceMean' op axis -3 is out of range for rank 2}}
  %0 = top.ReduceMean %x {axes = array<i64: -3>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_mean_repeated_axis(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'top.ReduceMean' op axes name dimension 1 more than once}}
  %0 = top.ReduceMean %x {axes = array<i64: 1, -1>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_mean_keepdims_shape(%x: tensor<2x4xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'top.ReduceMean' op result #0 has shape [2, 1] but the operands imply [2]}}
  %0 = top.ReduceMean %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @reduce_mean_element_type(%x: tensor<2x4xf32>) -> tensor<2x1xf16> {
  // expected-error @+1 {{'top.ReduceMean' op requires the same element type for all operands and results}}
  %0 = top.ReduceMean %x {axes = array<i64: 1>} : (tensor<2x4xf32>) -> tensor<2x1xf16>
  return %0 : tensor<2x1xf16>
}

// -----

func.func @expand_lower_rank(%x: tensor<2x3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'top.Expand' op cannot expand rank 3 to rank 2}}
  %0 = top.Expand %x : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @expand_dimension_not_one(%x: tensor<3x2xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'top.Expand' op input dimension 1 (2) is neither 1 nor result dimension 2 (4)}}
  %0 = top.Expand %x : (tensor<3x2xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @expand_element_type(%x: tensor<3x1xf32>) -> tensor<3x4xf16> {
  // expected-error @+1 {{'top.Expand' op requires the same element type for all operands and results}}
  %0 = top.Expand %x : (tensor<3x1xf32>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

func.func @stored_weight_float_zero_points_symmetric() -> tensor<8x64xf32> {
  // expected-error @+1 {{float zero points need an asymmetric weight}}
  %0 = top.Weight "w" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = false, scaleType = f16, floatZeroPoints = true>} : () -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
