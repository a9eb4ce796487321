// RUN: llmc-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

func.func @lg_negative_id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.lg id must be >= 0, got -1}}
  %y = tpu.SiLU %x {lg = #tpu.lg<id = -1, stage = 0, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lg_negative_stage(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.lg stage must be >= 0, got -2}}
  %y = tpu.SiLU %x {lg = #tpu.lg<id = 0, stage = -2, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lg_negative_timestep(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.lg timestep must be >= 0, got -1}}
  %y = tpu.SiLU %x {lg = #tpu.lg<id = 0, stage = 0, timestep = -1, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lg_negative_local_addr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.lg local_addr must be >= 0, got -64}}
  %y = tpu.SiLU %x {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = -64, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lg_empty_local_size(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.lg local_size must be >= 1, got 0}}
  %y = tpu.SiLU %x {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 0, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lg_negative_bank(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.lg bank must be >= 0, got -3}}
  %y = tpu.SiLU %x {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 16, bank = -3>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @mem_negative_offset(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.mem offset must be >= 0, got -16}}
  %y = tpu.SiLU %x {addr = [#tpu.mem<region = activation, offset = -16, size = 16>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @mem_empty_size(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.mem size must be >= 1, got 0}}
  %y = tpu.SiLU %x {addr = [#tpu.mem<region = activation, offset = 0, size = 0>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @mem_unknown_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::llmc::tpu::MemRegion to be one of: coeff, activation, io}}
  // expected-error @+1 {{failed to parse Tpu_MemAttr parameter 'region'}}
  %y = tpu.SiLU %x {addr = [#tpu.mem<region = weights, offset = 0, size = 16>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @core_split_no_cores(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.core_split cores must be >= 1, got 0}}
  %y = tpu.SiLU %x {core_split = #tpu.core_split<cores = 0, axis = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @core_split_negative_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#tpu.core_split axis must be >= 0, got -1}}
  %y = tpu.SiLU %x {core_split = #tpu.core_split<cores = 2, axis = -1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Chip annotations on ops
//===----------------------------------------------------------------------===//

func.func @lg_outside_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.SiLU' op has a layer-group attribute outside a tpu.Group}}
  %y = tpu.SiLU %x {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @lg_other_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tpu.Group(%x) {group_id = 1 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    // expected-error @+1 {{'tpu.Load' op lg.id 2 differs from the group_id 1 of its tpu.Group}}
    %l = tpu.Load %gx {lg = #tpu.lg<id = 2, stage = 0, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
    tpu.Yield %l : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @lg_stage_beyond_pipeline(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>, stages = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    // expected-error @+1 {{'tpu.Store' op lg.stage 2 is not below the 2 stages of its tpu.Group}}
    %s = tpu.Store %gx {lg = #tpu.lg<id = 0, stage = 2, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
    tpu.Yield %s : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @addr_not_mem(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.SiLU' op attribute 'addr' failed to satisfy constraint: one #tpu.mem per result}}
  %y = tpu.SiLU %x {addr = [0 : i64]} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @addr_per_result(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'tpu.TopK' op 'addr' has 1 ranges for 2 results}}
  %v, %i = tpu.TopK %x {k = 2 : i64, addr = [#tpu.mem<region = activation, offset = 0, size = 8>]} : (tensor<1x8xf32>) -> (tensor<1x2xf32>, tensor<1x2xi32>)
  return %v : tensor<1x2xf32>
}

// -----

func.func @addr_too_small(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  // expected-error @+1 {{'tpu.SiLU' op 'addr' gives result #0 16 bytes but it needs 32}}
  %y = tpu.SiLU %x {addr = [#tpu.mem<region = activation, offset = 0, size = 16>]} : (tensor<2x8xf16>) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}

// -----

// Four-bit elements take half a byte each.
func.func @addr_too_small_for_int4(%x: tensor<1x16xf16>, %w: tensor<8x16xi4>, %s: tensor<8x1xf16>) -> tensor<8x16xi4> {
  // expected-error @+1 {{'top.Weight' op 'tpu.addr' gives result #0 63 bytes but it needs 64}}
  %w2 = top.Weight "w" {tpu.addr = [#tpu.mem<region = coeff, offset = 0, size = 63>]} : () -> tensor<8x16xi4>
  return %w2 : tensor<8x16xi4>
}

// -----

func.func @core_split_axis_out_of_range(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tpu.SiLU' op core_split axis 2 is out of range for rank 2}}
  %y = tpu.SiLU %x {core_split = #tpu.core_split<cores = 2, axis = 2>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @core_split_too_many_cores(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tpu.SiLU' op cannot split dimension 0 of size 2 across 4 cores}}
  %y = tpu.SiLU %x {core_split = #tpu.core_split<cores = 4, axis = 0>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Discardable tpu attributes
//===----------------------------------------------------------------------===//

func.func @unknown_dialect_attribute() -> tensor<4xf32> {
  // expected-error @+1 {{unknown tpu attribute 'tpu.address'}}
  %w = top.Weight "w" {tpu.address = [#tpu.mem<region = coeff, offset = 0, size = 16>]} : () -> tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

func.func @dialect_addr_on_tpu_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.SiLU' op carries its addresses in 'addr', not 'tpu.addr'}}
  %y = tpu.SiLU %x {tpu.addr = [#tpu.mem<region = activation, offset = 0, size = 16>]} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @dialect_addr_not_mem() -> tensor<4xf32> {
  // expected-error @+1 {{'top.Weight' op 'tpu.addr' must be an array of #tpu.mem}}
  %w = top.Weight "w" {tpu.addr = #tpu.mem<region = coeff, offset = 0, size = 16>} : () -> tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Quantized types against shapes
//===----------------------------------------------------------------------===//

func.func @per_axis_dim_out_of_range(%x: tensor<4x!quant.uniform<i8:f32:1, {0.5}>>) -> tensor<4x!quant.uniform<i8:f32:1, {0.5}>> {
  // expected-error @+1 {{'tpu.SiLU' op operand #0 is quantized along dimension 1 but has rank 1}}
  %y = tpu.SiLU %x : (tensor<4x!quant.uniform<i8:f32:1, {0.5}>>) -> tensor<4x!quant.uniform<i8:f32:1, {0.5}>>
  return %y : tensor<4x!quant.uniform<i8:f32:1, {0.5}>>
}

// -----

func.func @per_axis_scale_count(%x: tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  // expected-error @+1 {{'tpu.Cast' op result #0 has 2 scales for the 3 channels of dimension 1}}
  %y = tpu.Cast %x : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  return %y : tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}

// -----

// A permute moves the quantized dimension: the type must move with it.
func.func @per_axis_after_permute(%x: tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.5, 0.5}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.5, 0.5}>> {
  // expected-error @+1 {{'tpu.Permute' op result #0 has 3 scales for the 2 channels of dimension 1}}
  %y = tpu.Permute %x {order = array<i64: 1, 0>} : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.5, 0.5}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.5, 0.5}>>
  return %y : tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.5, 0.5}>>
}

// -----

func.func @sub_channel_dim_out_of_range(%x: tensor<2x4x!quant.uniform<i8:f32:{2:2}, {{0.5}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{2:2}, {{0.5}}>> {
  // expected-error @+1 {{'tpu.SiLU' op operand #0 has a block size for dimension 2 but rank 2}}
  %y = tpu.SiLU %x : (tensor<2x4x!quant.uniform<i8:f32:{2:2}, {{0.5}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{2:2}, {{0.5}}>>
  return %y : tensor<2x4x!quant.uniform<i8:f32:{2:2}, {{0.5}}>>
}

// -----

func.func @sub_channel_scale_rank(%x: tensor<2x4x2x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}}>>) -> tensor<2x4x2x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}}>> {
  // expected-error @+1 {{'tpu.SiLU' op operand #0 has a rank-2 scale tensor for rank 3}}
  %y = tpu.SiLU %x : (tensor<2x4x2x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}}>>) -> tensor<2x4x2x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}}>>
  return %y : tensor<2x4x2x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}}>>
}

// -----

func.func @sub_channel_block_does_not_divide(%x: tensor<2x6x!quant.uniform<i8:f32:{1:4}, {{0.5, 0.5}}>>) -> tensor<2x6x!quant.uniform<i8:f32:{1:4}, {{0.5, 0.5}}>> {
  // expected-error @+1 {{'tpu.SiLU' op operand #0 has block size 4 that does not divide dimension 1 of size 6}}
  %y = tpu.SiLU %x : (tensor<2x6x!quant.uniform<i8:f32:{1:4}, {{0.5, 0.5}}>>) -> tensor<2x6x!quant.uniform<i8:f32:{1:4}, {{0.5, 0.5}}>>
  return %y : tensor<2x6x!quant.uniform<i8:f32:{1:4}, {{0.5, 0.5}}>>
}

// -----

// Axis 0 has no block size, so it is one block of 2: one row of scales.
func.func @sub_channel_scale_count(%x: tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}, {0.5, 0.5}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}, {0.5, 0.5}}>> {
  // expected-error @+1 {{'tpu.SiLU' op operand #0 has 2 scales along dimension 0 for 1 blocks}}
  %y = tpu.SiLU %x : (tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}, {0.5, 0.5}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}, {0.5, 0.5}}>>
  return %y : tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.5}, {0.5, 0.5}}>>
}

// -----

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

func.func @add_mixed_floats(%a: tensor<4xf16>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Add' op element types 'f16' and 'f32' differ in more than quantization parameters}}
  %y = tpu.Add %a, %b : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @silu_changes_storage(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<u8:f32, 0.5:128>> {
  // expected-error @+1 {{'tpu.SiLU' op element types '!quant.uniform<i8:f32, 5.000000e-01>' and '!quant.uniform<u8:f32, 5.000000e-01:128>' differ in more than quantization parameters}}
  %y = tpu.SiLU %a : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<u8:f32, 0.5:128>>
  return %y : tensor<4x!quant.uniform<u8:f32, 0.5:128>>
}

// -----

func.func @a16_gather_scale_shape(%w: tensor<16x256x!quant.any<i4:bf16>>, %s: tensor<16x2xbf16>, %ids: tensor<3xi32>) -> tensor<3x256xbf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16Gather' op scale must be [16, 4], got 'tensor<16x2xbf16>'}}
  %e = tpu.A16Gather %w, %s, %none, %ids {weight_bits = 4 : i64, q_group_size = 64 : i64} : (tensor<16x256x!quant.any<i4:bf16>>, tensor<16x2xbf16>, none, tensor<3xi32>) -> tensor<3x256xbf16>
  return %e : tensor<3x256xbf16>
}

// -----

func.func @a16_gather_bits(%w: tensor<16x256x!quant.any<i4:bf16>>, %s: tensor<16x4xbf16>, %ids: tensor<3xi32>) -> tensor<3x256xbf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16Gather' op table elements are 4-bit but weight_bits is 8}}
  %e = tpu.A16Gather %w, %s, %none, %ids {weight_bits = 8 : i64, q_group_size = 64 : i64} : (tensor<16x256x!quant.any<i4:bf16>>, tensor<16x4xbf16>, none, tensor<3xi32>) -> tensor<3x256xbf16>
  return %e : tensor<3x256xbf16>
}

// -----

func.func @gather_changes_type(%t: tensor<10x4xf16>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'tpu.Gather' op failed to verify that all of {table, output} have same element type}}
  %y = tpu.Gather %t, %i : (tensor<10x4xf16>, tensor<3xi32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

func.func @matmul_float_by_int8(%x: tensor<2x4xf32>, %w: tensor<4x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.MatMul' op input and right must both be float or both be integer or quantized, got 'f32' and '!quant.uniform<i8:f32, 5.000000e-01>'}}
  %y = tpu.MatMul %x, %w, %none : (tensor<2x4xf32>, tensor<4x3x!quant.uniform<i8:f32, 0.5>>, none) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

func.func @matmul_per_axis_input(%x: tensor<2x4x!quant.uniform<i8:f32:0, {0.5, 0.5}>>, %w: tensor<4x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xi32> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.MatMul' op a quantized input must be per-tensor}}
  %y = tpu.MatMul %x, %w, %none : (tensor<2x4x!quant.uniform<i8:f32:0, {0.5, 0.5}>>, tensor<4x3x!quant.uniform<i8:f32, 0.5>>, none) -> tensor<2x3xi32>
  return %y : tensor<2x3xi32>
}

// -----

func.func @matmul_per_axis_along_k(%x: tensor<2x4x!quant.uniform<i8:f32, 0.5>>, %w: tensor<4x3x!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5, 0.5}>>) -> tensor<2x3xi32> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.MatMul' op a per-axis right operand must be quantized along N (dimension 1), not dimension 0}}
  %y = tpu.MatMul %x, %w, %none : (tensor<2x4x!quant.uniform<i8:f32, 0.5>>, tensor<4x3x!quant.uniform<i8:f32:0, {0.5, 0.5, 0.5, 0.5}>>, none) -> tensor<2x3xi32>
  return %y : tensor<2x3xi32>
}

// -----

func.func @matmul_contraction_mismatch(%x: tensor<2x4xf32>, %w: tensor<5x3xf32>) -> tensor<2x3xf32> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.MatMul' op contraction dimensions differ: input has K = 4, right operand has K = 5}}
  %y = tpu.MatMul %x, %w, %none : (tensor<2x4xf32>, tensor<5x3xf32>, none) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// A16MatMul
//===----------------------------------------------------------------------===//

func.func @a16_weight_bits(%x: tensor<2x8xf16>, %w: tensor<4x8xi8>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op weight_bits must be 4 or 8, got 2}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 2} : (tensor<2x8xf16>, tensor<4x8xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_storage_width(%x: tensor<2x8xf16>, %w: tensor<4x8xi8>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op weight elements are 8-bit but weight_bits is 4}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 4} : (tensor<2x8xf16>, tensor<4x8xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_float_weight(%x: tensor<2x8xf16>, %w: tensor<4x8xf16>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op operand #1 must be tensor of 4-bit integer or 8-bit integer or quantized type values}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8} : (tensor<2x8xf16>, tensor<4x8xf16>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_output_type(%x: tensor<2x8xf16>, %w: tensor<4x8xi8>, %s: tensor<4x1xf16>) -> tensor<2x4xf32> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op output element type must be the input's ('f16'), got 'f32'}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8} : (tensor<2x8xf16>, tensor<4x8xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @a16_weight_rank(%x: tensor<2x8xf16>, %w: tensor<1x4x8xi8>, %s: tensor<4x1xf16>) -> tensor<1x2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op weight must be [N, K], got rank 3}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8} : (tensor<2x8xf16>, tensor<1x4x8xi8>, tensor<4x1xf16>, none, none) -> tensor<1x2x4xf16>
  return %y : tensor<1x2x4xf16>
}

// -----

func.func @a16_negative_group(%x: tensor<2x8xf16>, %w: tensor<4x8xi8>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op q_group_size must be positive, or 0 for per-channel; got -8}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8, q_group_size = -8} : (tensor<2x8xf16>, tensor<4x8xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_group_does_not_divide(%x: tensor<2x8xf16>, %w: tensor<4x8xi8>, %s: tensor<4x2xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op q_group_size 3 does not divide K = 8}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8, q_group_size = 3} : (tensor<2x8xf16>, tensor<4x8xi8>, tensor<4x2xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_scale_shape(%x: tensor<2x8xf16>, %w: tensor<4x8xi8>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op scale must be [N, K / group] = [4, 2]}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8, q_group_size = 4} : (tensor<2x8xf16>, tensor<4x8xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_zp_shape(%x: tensor<2x8xf16>, %w: tensor<4x8xui4>, %s: tensor<4x2xf16>, %zp: tensor<2x4xui4>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op zp must be [N, K / group] = [4, 2]}}
  %y = tpu.A16MatMul %x, %w, %s, %zp, %none {weight_bits = 4, q_group_size = 4} : (tensor<2x8xf16>, tensor<4x8xui4>, tensor<4x2xf16>, tensor<2x4xui4>, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_input_k(%x: tensor<2x6xf16>, %w: tensor<4x8xi8>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op contraction dimensions differ: input has K = 6, right operand has K = 8}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8} : (tensor<2x6xf16>, tensor<4x8xi8>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_per_tensor_weight(%x: tensor<2x8xf16>, %w: tensor<4x8x!quant.uniform<i8:f16, 0.5>>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op a quantized weight must be per-axis (per-channel), sub-channel (group-wise) or !quant.any, got '!quant.uniform<i8:f16, 5.000000e-01>'}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8} : (tensor<2x8xf16>, tensor<4x8x!quant.uniform<i8:f16, 0.5>>, tensor<4x1xf16>, none, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @a16_per_axis_along_k(%x: tensor<2x4xf16>, %w: tensor<2x4x!quant.uniform<i8:f16:1, {0.5, 0.5, 0.5, 0.5}>>, %s: tensor<2x1xf16>) -> tensor<2x2xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op a per-axis weight must be quantized along N (dimension 0)}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8} : (tensor<2x4xf16>, tensor<2x4x!quant.uniform<i8:f16:1, {0.5, 0.5, 0.5, 0.5}>>, tensor<2x1xf16>, none, none) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

func.func @a16_per_axis_grouped(%x: tensor<2x4xf16>, %w: tensor<2x4x!quant.uniform<i8:f16:0, {0.5, 0.5}>>, %s: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op a per-axis weight needs per-channel q_group_size (0 or K)}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8, q_group_size = 2} : (tensor<2x4xf16>, tensor<2x4x!quant.uniform<i8:f16:0, {0.5, 0.5}>>, tensor<2x2xf16>, none, none) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

func.func @a16_sub_channel_blocks(%x: tensor<2x8xf16>, %w: tensor<2x8x!quant.uniform<i4:f16:{0:1, 1:2}, {{0.5, 0.5, 0.5, 0.5}, {0.5, 0.5, 0.5, 0.5}}>>, %s: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op a sub-channel weight needs blocks {0:1, 1:4} to match q_group_size}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 4, q_group_size = 4} : (tensor<2x8xf16>, tensor<2x8x!quant.uniform<i4:f16:{0:1, 1:2}, {{0.5, 0.5, 0.5, 0.5}, {0.5, 0.5, 0.5, 0.5}}>>, tensor<2x2xf16>, none, none) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

func.func @a16_asymmetric_without_zp(%x: tensor<2x8xf16>, %w: tensor<2x8x!quant.uniform<u4:f16:{0:1, 1:4}, {{0.5:3, 0.5:3}, {0.5:3, 0.5:3}}>>, %s: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op has no zp but its weight type has nonzero zero points}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 4, q_group_size = 4} : (tensor<2x8xf16>, tensor<2x8x!quant.uniform<u4:f16:{0:1, 1:4}, {{0.5:3, 0.5:3}, {0.5:3, 0.5:3}}>>, tensor<2x2xf16>, none, none) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

func.func @a16_quantized_dynamic_k(%x: tensor<2x?xf16>, %w: tensor<2x?x!quant.uniform<i8:f16:0, {0.5, 0.5}>>, %s: tensor<2x1xf16>) -> tensor<2x2xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op a quantized weight needs a static K}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 8} : (tensor<2x?xf16>, tensor<2x?x!quant.uniform<i8:f16:0, {0.5, 0.5}>>, tensor<2x1xf16>, none, none) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

func.func @a16_any_expressed_type_differs(%x: tensor<2x8xf16>, %w: tensor<2x8x!quant.any<i4<-7:7>:bf16>>, %s: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op a !quant.any weight expresses 'bf16' but its scale is 'f16'}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 4, q_group_size = 4} : (tensor<2x8xf16>, tensor<2x8x!quant.any<i4<-7:7>:bf16>>, tensor<2x2xf16>, none, none) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

func.func @a16_any_unsigned_without_zp(%x: tensor<2x8xf16>, %w: tensor<2x8x!quant.any<u4:f16>>, %s: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MatMul' op an unsigned !quant.any weight needs a zp}}
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 4, q_group_size = 4} : (tensor<2x8xf16>, tensor<2x8x!quant.any<u4:f16>>, tensor<2x2xf16>, none, none) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

//===----------------------------------------------------------------------===//
// A16MLP
//===----------------------------------------------------------------------===//

func.func @a16mlp_bits(%x: tensor<1x8xf16>, %g: tensor<4x8xi4>, %d: tensor<8x4xi8>, %gs: tensor<4x1xf16>, %ds: tensor<8x1xf16>) -> tensor<1x8xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MLP' op down elements are 8-bit but weight_bits is 4}}
  %y = tpu.A16MLP %x, %g, %g, %d, %gs, %gs, %ds, %none, %none, %none {weight_bits = 4} : (tensor<1x8xf16>, tensor<4x8xi4>, tensor<4x8xi4>, tensor<8x4xi8>, tensor<4x1xf16>, tensor<4x1xf16>, tensor<8x1xf16>, none, none, none) -> tensor<1x8xf16>
  return %y : tensor<1x8xf16>
}

// -----

func.func @a16mlp_group_does_not_divide_f(%x: tensor<1x8xf16>, %g: tensor<4x8xi8>, %d: tensor<8x4xi8>, %gs: tensor<4x1xf16>, %ds: tensor<8x1xf16>) -> tensor<1x8xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MLP' op q_group_size 8 does not divide K = 4 of down}}
  %y = tpu.A16MLP %x, %g, %g, %d, %gs, %gs, %ds, %none, %none, %none {weight_bits = 8, q_group_size = 8} : (tensor<1x8xf16>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<8x4xi8>, tensor<4x1xf16>, tensor<4x1xf16>, tensor<8x1xf16>, none, none, none) -> tensor<1x8xf16>
  return %y : tensor<1x8xf16>
}

// -----

func.func @a16mlp_scale_shape(%x: tensor<1x8xf16>, %g: tensor<4x8xi8>, %d: tensor<8x4xi8>, %gs: tensor<4x1xf16>, %ds: tensor<8x2xf16>) -> tensor<1x8xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MLP' op down_scale must be [N, K / group] = [8, 1]}}
  %y = tpu.A16MLP %x, %g, %g, %d, %gs, %gs, %ds, %none, %none, %none {weight_bits = 8} : (tensor<1x8xf16>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<8x4xi8>, tensor<4x1xf16>, tensor<4x1xf16>, tensor<8x2xf16>, none, none, none) -> tensor<1x8xf16>
  return %y : tensor<1x8xf16>
}

// -----

func.func @a16mlp_mixed_zero_points(%x: tensor<1x8xf16>, %g: tensor<4x8xui8>, %d: tensor<8x4xui8>, %gs: tensor<4x1xf16>, %ds: tensor<8x1xf16>, %gz: tensor<4x1xui8>, %dz: tensor<8x1xui8>) -> tensor<1x8xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MLP' op gate_zp, up_zp and down_zp must all be given (asymmetric) or all be none (symmetric)}}
  %y = tpu.A16MLP %x, %g, %g, %d, %gs, %gs, %ds, %gz, %gz, %none {weight_bits = 8} : (tensor<1x8xf16>, tensor<4x8xui8>, tensor<4x8xui8>, tensor<8x4xui8>, tensor<4x1xf16>, tensor<4x1xf16>, tensor<8x1xf16>, tensor<4x1xui8>, tensor<4x1xui8>, none) -> tensor<1x8xf16>
  return %y : tensor<1x8xf16>
}

// -----

func.func @a16mlp_output_type(%x: tensor<1x8xf16>, %g: tensor<4x8xi8>, %d: tensor<8x4xi8>, %gs: tensor<4x1xf16>, %ds: tensor<8x1xf16>) -> tensor<1x8xf32> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A16MLP' op output element type must be the input's ('f16'), got 'f32'}}
  %y = tpu.A16MLP %x, %g, %g, %d, %gs, %gs, %ds, %none, %none, %none {weight_bits = 8} : (tensor<1x8xf16>, tensor<4x8xi8>, tensor<4x8xi8>, tensor<8x4xi8>, tensor<4x1xf16>, tensor<4x1xf16>, tensor<8x1xf16>, none, none, none) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

func.func @quantize_other_float(%x: tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{'tpu.Cast' op converts 'f16' to '!quant.uniform<i8:f32, 5.000000e-01>', whose expressed types differ ('f16' and 'f32')}}
  %y = tpu.Cast %x : (tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %y : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @dequantize_other_float(%x: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xbf16> {
  // expected-error @+1 {{'tpu.Cast' op converts '!quant.uniform<i8:f32, 5.000000e-01>' to 'bf16', whose expressed types differ ('f32' and 'bf16')}}
  %y = tpu.Cast %x : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// -----

func.func @requantize_other_float(%x: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f16, 0.5>> {
  // expected-error @+1 {{'tpu.Cast' op converts '!quant.uniform<i8:f32, 5.000000e-01>' to '!quant.uniform<i8:f16, 5.000000e-01>', whose expressed types differ ('f32' and 'f16')}}
  %y = tpu.Cast %x : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f16, 0.5>>
  return %y : tensor<4x!quant.uniform<i8:f16, 0.5>>
}

// -----

func.func @cast_changes_shape(%x: tensor<4xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{'tpu.Cast' op result #0 has shape [2] but the operands imply [4]}}
  %y = tpu.Cast %x : (tensor<4xf32>) -> tensor<2xf16>
  return %y : tensor<2xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Ops shared with top
//===----------------------------------------------------------------------===//

func.func @rmsnorm_eps(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.RMSNorm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %y = tpu.RMSNorm %x, %none {eps = 0.0 : f64} : (tensor<2x8xf16>, none) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}

// -----

func.func @layernorm_eps(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.LayerNorm' op attribute 'eps' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %y = tpu.LayerNorm %x, %none, %none {eps = -1.0 : f64} : (tensor<2x8xf16>, none, none) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}

// -----

func.func @layernorm_weight_shape(%x: tensor<2x8xf16>, %w: tensor<4xf16>) -> tensor<2x8xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.LayerNorm' op weight must have shape [8]}}
  %y = tpu.LayerNorm %x, %w, %none {eps = 1.0e-5 : f64} : (tensor<2x8xf16>, tensor<4xf16>, none) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}

// -----

func.func @attention_scale(%q: tensor<1x4x2x8xf16>, %kv: tensor<1x4x2x8xf16>) -> tensor<1x4x16xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.FAttention' op attribute 'scale' failed to satisfy constraint: 64-bit float attribute whose value is positive}}
  %y = tpu.FAttention %q, %kv, %kv, %none {scale = 0.0 : f64, q_head = 2 : i64, kv_head = 2 : i64, head_dim = 8 : i64} : (tensor<1x4x2x8xf16>, tensor<1x4x2x8xf16>, tensor<1x4x2x8xf16>, none) -> tensor<1x4x16xf16>
  return %y : tensor<1x4x16xf16>
}

// -----

func.func @attention_heads(%q: tensor<1x4x3x8xf16>, %kv: tensor<1x4x2x8xf16>) -> tensor<1x4x24xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.FAttention' op q_head (3) must be a positive multiple of kv_head (2) and head_dim positive}}
  %y = tpu.FAttention %q, %kv, %kv, %none {scale = 0.5 : f64, q_head = 3 : i64, kv_head = 2 : i64, head_dim = 8 : i64} : (tensor<1x4x3x8xf16>, tensor<1x4x2x8xf16>, tensor<1x4x2x8xf16>, none) -> tensor<1x4x24xf16>
  return %y : tensor<1x4x24xf16>
}

// -----

func.func @rope_rank(%x: tensor<4x8xf16>, %cos: tensor<1x4x8xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'tpu.Rope' op rope input must be [batch, seq, heads, head_dim]}}
  %y = tpu.Rope %x, %cos, %cos : (tensor<4x8xf16>, tensor<1x4x8xf16>, tensor<1x4x8xf16>) -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

func.func @mlp_weights(%x: tensor<1x4xf16>, %gate: tensor<8x4xf16>, %down: tensor<4x6xf16>) -> tensor<1x4xf16> {
  // expected-error @+1 {{'tpu.MLP' op down weight must be [4, intermediate]}}
  %y = tpu.MLP %x, %gate, %gate, %down : (tensor<1x4xf16>, tensor<8x4xf16>, tensor<8x4xf16>, tensor<4x6xf16>) -> tensor<1x4xf16>
  return %y : tensor<1x4xf16>
}

// -----

func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tpu.Add' op operands do not broadcast: dimension 1 is 3 and 4}}
  %y = tpu.Add %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tpu.Softmax' op axis 2 is out of range for rank 2}}
  %y = tpu.Softmax %x {axis = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x8xf16>) -> tensor<3x5xf16> {
  // expected-error @+1 {{'tpu.Reshape' op reshape changes the element count from 16 to 15}}
  %y = tpu.Reshape %x : (tensor<2x8xf16>) -> tensor<3x5xf16>
  return %y : tensor<3x5xf16>
}

// -----

func.func @concat_no_inputs() -> tensor<2xf16> {
  // expected-error @+1 {{'tpu.Concat' op expected 1 or more operands, but found 0}}
  %y = tpu.Concat {axis = 0 : i64} : () -> tensor<2xf16>
  return %y : tensor<2xf16>
}

// -----

func.func @concat_types(%a: tensor<2xf16>, %b: tensor<2xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'tpu.Concat' op requires the same element type for all operands and results}}
  %y = tpu.Concat %a, %b {axis = 0 : i64} : (tensor<2xf16>, tensor<2xf32>) -> tensor<4xf16>
  return %y : tensor<4xf16>
}

// -----

func.func @slice_step(%x: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{'tpu.Slice' op slice steps must be positive}}
  %y = tpu.Slice %x {starts = array<i64: 0>, ends = array<i64: 8>, steps = array<i64: 0>} : (tensor<8xf16>) -> tensor<8xf16>
  return %y : tensor<8xf16>
}

// -----

func.func @permute_order(%x: tensor<2x8xf16>) -> tensor<8x2xf16> {
  // expected-error @+1 {{'tpu.Permute' op order is not a permutation of 0..1}}
  %y = tpu.Permute %x {order = array<i64: 1, 1>} : (tensor<2x8xf16>) -> tensor<8x2xf16>
  return %y : tensor<8x2xf16>
}

// -----

func.func @arg_result_shape(%x: tensor<2x8xf16>) -> tensor<2x8xi32> {
  // expected-error @+1 {{'tpu.Arg' op result #0 has shape [2, 8] but the operands imply [2, 1]}}
  %y = tpu.Arg %x {axis = 1 : i64} : (tensor<2x8xf16>) -> tensor<2x8xi32>
  return %y : tensor<2x8xi32>
}

// -----

func.func @topk_k(%x: tensor<2x8xf16>) -> tensor<2x9xf16> {
  // expected-error @+1 {{'tpu.TopK' op k = 9 must be in [1, 8]}}
  %v, %i = tpu.TopK %x {k = 9 : i64} : (tensor<2x8xf16>) -> (tensor<2x9xf16>, tensor<2x9xi32>)
  return %v : tensor<2x9xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Layer groups
//===----------------------------------------------------------------------===//

func.func @group_negative_id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Group' op group_id must be >= 0, got -1}}
  %y = tpu.Group(%x) {group_id = -1 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    tpu.Yield %gx : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_no_stages(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Group' op stages must be >= 1, got 0}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>, stages = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    tpu.Yield %gx : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_zero_tiles(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Group' op tile_factors must all be >= 1, got 0}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    tpu.Yield %gx : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_tile_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Group' op has 2 tile_factors but result #0 has rank 1}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1, 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    tpu.Yield %gx : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_too_many_tiles(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Group' op cuts dimension 0 of size 4 into 5 tiles}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 5>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    tpu.Yield %gx : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    // expected-error @+1 {{'tpu.Group' op is nested in another tpu.Group; layer groups do not nest}}
    %z = tpu.Group(%gx) {group_id = 1 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%hx: tensor<4xf32>):
      tpu.Yield %hx : tensor<4xf32>
    }
    tpu.Yield %z : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_argument_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Group' op body takes 2 arguments for 1 inputs}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>, %gy: tensor<4xf32>):
    tpu.Yield %gx : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_argument_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'tpu.Group' op body argument #0 has type 'tensor<4xf16>' but input #0 has type 'tensor<4xf32>'}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%gx: tensor<4xf16>):
    tpu.Yield %gx : tensor<4xf16>
  }
  return %y : tensor<4xf16>
}

// -----

// A body without tpu.Yield gets an empty one, which yields nothing.
func.func @group_missing_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Group' op yields 0 values for 1 results}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    %s = tpu.SiLU %gx : (tensor<4xf32>) -> tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @group_yield_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'tpu.Group' op yields 'tensor<4xf32>' as result #0 of type 'tensor<4xf16>'}}
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%gx: tensor<4xf32>):
    tpu.Yield %gx : tensor<4xf32>
  }
  return %y : tensor<4xf16>
}

// -----

func.func @yield_outside_group(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tpu.Yield' op expects parent op 'tpu.Group'}}
  tpu.Yield %x : tensor<4xf32>
}

// -----

func.func @load_outside_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Load' op expects parent op 'tpu.Group'}}
  %l = tpu.Load %x {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %l : tensor<4xf32>
}

// -----

func.func @store_outside_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Store' op expects parent op 'tpu.Group'}}
  %s = tpu.Store %x {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @load_without_lg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%gx: tensor<4xf32>):
    // expected-error @+1 {{'tpu.Load' op requires attribute 'lg'}}
    %l = tpu.Load %gx : (tensor<4xf32>) -> tensor<4xf32>
    tpu.Yield %l : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @load_changes_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  %y = tpu.Group(%x) {group_id = 0 : i64, tile_factors = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%gx: tensor<4xf32>):
    // expected-error @+1 {{'tpu.Load' op requires the same type for all operands and results}}
    %l = tpu.Load %gx {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 16, bank = 0>} : (tensor<4xf32>) -> tensor<4xf16>
    tpu.Yield %l : tensor<4xf16>
  }
  return %y : tensor<4xf16>
}
