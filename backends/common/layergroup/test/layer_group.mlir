// RUN: llmc-opt %s --split-input-file --tpu-layer-group="lanes=4 lane-bytes=16384 banks=4" | FileCheck %s

// A decode step's norm and the Q and K projections that read it form one
// group: the norm's row is held on every lane at the top of local memory
// (16384 - 128 bytes, bank 3 of 4 banks of 4096), the projections read it
// there, and only their results are stored. The weights enter as inputs
// their projection streams; the hidden state enters through a tpu.Load.
// CHECK-LABEL: func.func @norm_qkv
// CHECK: %[[G:.*]]:2 = tpu.Group(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {group_id = 0 : i64, stages = 3 : i64, tile_factors = array<i64: 1, 1, 1>}
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1x1x64xf16>, %[[NW:.*]]: tensor<64xf16>, %[[WQ:.*]]: tensor<64x64xf16>, %[[WK:.*]]: tensor<16x64xf16>, %[[BK:.*]]: tensor<16xf16>):
// CHECK-NEXT: %[[L:.*]] = tpu.Load %[[X]] {lg = #tpu.lg<id = 0, stage = 0, timestep = 0, local_addr = 0, local_size = 0, bank = 0>}
// CHECK-NEXT: %[[NONE:.*]] = top.None
// CHECK-NEXT: %[[N:.*]] = tpu.RMSNorm %[[L]], %[[NW]] {{{.*}}lg = #tpu.lg<id = 0, stage = 1, timestep = 1, local_addr = 16256, local_size = 128, bank = 3>}
// CHECK-NEXT: %[[Q:.*]] = tpu.MatMul %[[N]], %[[WQ]], %[[NONE]] {lg = #tpu.lg<id = 0, stage = 1, timestep = 2, local_addr = 0, local_size = 0, bank = 0>
// CHECK-NEXT: %[[K:.*]] = tpu.MatMul %[[N]], %[[WK]], %[[BK]] {lg = #tpu.lg<id = 0, stage = 1, timestep = 3,
// CHECK-NEXT: %[[SQ:.*]] = tpu.Store %[[Q]] {lg = #tpu.lg<id = 0, stage = 2, timestep = 4,
// CHECK-NEXT: %[[SK:.*]] = tpu.Store %[[K]] {lg = #tpu.lg<id = 0, stage = 2, timestep = 5,
// CHECK-NEXT: tpu.Yield %[[SQ]], %[[SK]]
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @norm_qkv(%arg0: tensor<1x1x64xf16>) -> (tensor<1x1x64xf16>, tensor<1x1x16xf16>) {
  %x = top.Input %arg0 : (tensor<1x1x64xf16>) -> tensor<1x1x64xf16>
  %none = top.None : none
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x1x64xf16>, tensor<64xf16>) -> tensor<1x1x64xf16>
  %wq = top.Weight "q.weight" : () -> tensor<64x64xf16>
  %q = tpu.MatMul %n, %wq, %none {right_transpose = true} : (tensor<1x1x64xf16>, tensor<64x64xf16>, none) -> tensor<1x1x64xf16>
  %wk = top.Weight "k.weight" : () -> tensor<16x64xf16>
  %bk = top.Weight "k.bias" : () -> tensor<16xf16>
  %k = tpu.MatMul %n, %wk, %bk {right_transpose = true} : (tensor<1x1x64xf16>, tensor<16x64xf16>, tensor<16xf16>) -> tensor<1x1x16xf16>
  return %q, %k : tensor<1x1x64xf16>, tensor<1x1x16xf16>
}

// -----

// The gated MLP after its norm, with the residual add it absorbs: the
// residual is the norm's own input, loaded once; the add's result is the
// group's only result.
// CHECK-LABEL: func.func @norm_mlp_residual
// CHECK: tpu.Group(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {group_id = 0 : i64
// CHECK-NEXT: ^bb0(%[[H:.*]]: tensor<1x1x32xbf16>,
// CHECK-NEXT: %[[L:.*]] = tpu.Load %[[H]]
// CHECK-NEXT: %[[N:.*]] = tpu.RMSNorm %[[L]], {{.*}}local_addr = 16320, local_size = 64, bank = 3>
// CHECK-NEXT: %[[M:.*]] = tpu.MLP %[[N]],
// CHECK-NEXT: %[[A:.*]] = tpu.Add %[[M]], %[[L]]
// CHECK-NEXT: %[[S:.*]] = tpu.Store %[[A]]
// CHECK-NEXT: tpu.Yield %[[S]] : tensor<1x1x32xbf16>
func.func @norm_mlp_residual(%arg0: tensor<1x1x32xbf16>) -> tensor<1x1x32xbf16> {
  %h = top.Input %arg0 : (tensor<1x1x32xbf16>) -> tensor<1x1x32xbf16>
  %nw = top.Weight "norm.weight" : () -> tensor<32xbf16>
  %n = tpu.RMSNorm %h, %nw {eps = 1.0e-6 : f64} : (tensor<1x1x32xbf16>, tensor<32xbf16>) -> tensor<1x1x32xbf16>
  %g = top.Weight "gate.weight" : () -> tensor<64x32xbf16>
  %u = top.Weight "up.weight" : () -> tensor<64x32xbf16>
  %d = top.Weight "down.weight" : () -> tensor<32x64xbf16>
  %m = tpu.MLP %n, %g, %u, %d : (tensor<1x1x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<32x64xbf16>) -> tensor<1x1x32xbf16>
  %y = tpu.Add %m, %h : (tensor<1x1x32xbf16>, tensor<1x1x32xbf16>) -> tensor<1x1x32xbf16>
  return %y : tensor<1x1x32xbf16>
}

// -----

// Not grouped: a norm something other than a projection reads (it must
// reach global memory anyway), and a norm read by a projection split across
// cores (each core's local memory starts empty).
// CHECK-LABEL: func.func @not_grouped
// CHECK-NOT: tpu.Group
// CHECK: return
func.func @not_grouped(%arg0: tensor<1x1x64xf16>) -> (tensor<1x1x64xf16>, tensor<1x1x64xf16>, tensor<1x1x64xf16>) {
  %x = top.Input %arg0 : (tensor<1x1x64xf16>) -> tensor<1x1x64xf16>
  %none = top.None : none
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %w = top.Weight "q.weight" : () -> tensor<64x64xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x1x64xf16>, tensor<64xf16>) -> tensor<1x1x64xf16>
  %q = tpu.MatMul %n, %w, %none {right_transpose = true} : (tensor<1x1x64xf16>, tensor<64x64xf16>, none) -> tensor<1x1x64xf16>
  %s = tpu.SiLU %n : (tensor<1x1x64xf16>) -> tensor<1x1x64xf16>
  %m = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x1x64xf16>, tensor<64xf16>) -> tensor<1x1x64xf16>
  %p = tpu.MatMul %m, %w, %none {right_transpose = true, core_split = #tpu.core_split<cores = 2, axis = 2>} : (tensor<1x1x64xf16>, tensor<64x64xf16>, none) -> tensor<1x1x64xf16>
  return %q, %s, %p : tensor<1x1x64xf16>, tensor<1x1x64xf16>, tensor<1x1x64xf16>
}

// -----

// A prefill's 128 rows of 128 bytes would hold the whole 16 KiB lane on
// every lane: the norm's rows are held over the lanes instead, 32 on each
// (4 KiB at the top of the lane, bank 3), and the projection splits rows
// as they lie.
// CHECK-LABEL: func.func @rows_over_the_lanes
// CHECK: tpu.Group
// CHECK: tpu.RMSNorm
// CHECK-SAME: lg = #tpu.lg<id = 0, stage = 1, timestep = 1, local_addr = 12288, local_size = 4096, bank = 3, rows_per_lane = 32>
// CHECK: tpu.MatMul
// CHECK-NOT: rows_per_lane
// CHECK: tpu.Yield
func.func @rows_over_the_lanes(%arg0: tensor<1x128x64xf16>) -> tensor<1x128x64xf16> {
  %x = top.Input %arg0 : (tensor<1x128x64xf16>) -> tensor<1x128x64xf16>
  %none = top.None : none
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %w = top.Weight "q.weight" : () -> tensor<64x64xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x128x64xf16>, tensor<64xf16>) -> tensor<1x128x64xf16>
  %q = tpu.MatMul %n, %w, %none {right_transpose = true} : (tensor<1x128x64xf16>, tensor<64x64xf16>, none) -> tensor<1x128x64xf16>
  return %q : tensor<1x128x64xf16>
}

// -----

// 512 rows are 128 on each lane, 16 KiB, more than the half of a lane a
// group may hold: the norm runs alone.
// CHECK-LABEL: func.func @too_many_rows
// CHECK-NOT: tpu.Group
// CHECK: return
func.func @too_many_rows(%arg0: tensor<1x512x64xf16>) -> tensor<1x512x64xf16> {
  %x = top.Input %arg0 : (tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  %none = top.None : none
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %w = top.Weight "q.weight" : () -> tensor<64x64xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x512x64xf16>, tensor<64xf16>) -> tensor<1x512x64xf16>
  %q = tpu.MatMul %n, %w, %none {right_transpose = true} : (tensor<1x512x64xf16>, tensor<64x64xf16>, none) -> tensor<1x512x64xf16>
  return %q : tensor<1x512x64xf16>
}

// -----

// Weights defined after the norm move before it, where the group reads
// them.
// CHECK-LABEL: func.func @late_weight
// CHECK: top.Weight "late.weight"
// CHECK-NEXT: tpu.Group
func.func @late_weight(%arg0: tensor<1x1x64xf16>) -> tensor<1x1x64xf16> {
  %x = top.Input %arg0 : (tensor<1x1x64xf16>) -> tensor<1x1x64xf16>
  %none = top.None : none
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x1x64xf16>, tensor<64xf16>) -> tensor<1x1x64xf16>
  %w = top.Weight "late.weight" : () -> tensor<64x64xf16>
  %q = tpu.MatMul %n, %w, %none {right_transpose = true} : (tensor<1x1x64xf16>, tensor<64x64xf16>, none) -> tensor<1x1x64xf16>
  return %q : tensor<1x1x64xf16>
}

// -----

// Weight-only quantized projections: their stored 4-bit weights, scales and
// zero points (unsigned, as a prequantized checkpoint stores them) enter
// the group as inputs.
// CHECK-LABEL: func.func @quantized_weights
// CHECK: tpu.Group({{.*}}) {group_id = 0 : i64{{.*}}} : (tensor<1x1x64xf16>, tensor<64xf16>, tensor<64x64xui4>, tensor<64x1xf16>, tensor<64x1xui4>) -> tensor<1x1x64xf16>
// CHECK: tpu.A16MatMul
func.func @quantized_weights(%arg0: tensor<1x1x64xf16>) -> tensor<1x1x64xf16> {
  %x = top.Input %arg0 : (tensor<1x1x64xf16>) -> tensor<1x1x64xf16>
  %none = top.None : none
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x1x64xf16>, tensor<64xf16>) -> tensor<1x1x64xf16>
  %w = top.Weight "q.qweight" : () -> tensor<64x64xui4>
  %s = top.Weight "q.scale" : () -> tensor<64x1xf16>
  %z = top.Weight "q.zp" : () -> tensor<64x1xui4>
  %q = tpu.A16MatMul %n, %w, %s, %z, %none {weight_bits = 4} : (tensor<1x1x64xf16>, tensor<64x64xui4>, tensor<64x1xf16>, tensor<64x1xui4>, none) -> tensor<1x1x64xf16>
  return %q : tensor<1x1x64xf16>
}

// -----

// A decode step's rotary tables: the cos and sin rows are gathered into
// buffers the group holds (one row per lane, 64 bytes each, placed from the
// top of the lane down) and both ropes read them there; only the ropes'
// results are stored.
// CHECK-LABEL: func.func @rope_tables
// CHECK: %[[G:.*]]:2 = tpu.Group(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {group_id = 0 : i64
// CHECK-NEXT: ^bb0(%[[COS:.*]]: tensor<512x32xf16>, %[[POS:.*]]: tensor<1x1xi32>, %[[SIN:.*]]: tensor<512x32xf16>, %[[Q:.*]]: tensor<1x1x4x32xf16>, %[[K:.*]]: tensor<1x1x2x32xf16>):
// CHECK-NEXT: %[[LP:.*]] = tpu.Load %[[POS]]
// CHECK-NEXT: %[[LQ:.*]] = tpu.Load %[[Q]]
// CHECK-NEXT: %[[LK:.*]] = tpu.Load %[[K]]
// CHECK-NEXT: %[[C:.*]] = tpu.Gather %[[COS]], %[[LP]] {{{.*}}local_addr = 16320, local_size = 64, bank = 3>
// CHECK-NEXT: %[[S:.*]] = tpu.Gather %[[SIN]], %[[LP]] {{{.*}}local_addr = 16256, local_size = 64, bank = 3>
// CHECK-NEXT: %[[RQ:.*]] = tpu.Rope %[[LQ]], %[[C]], %[[S]]
// CHECK-NEXT: %[[RK:.*]] = tpu.Rope %[[LK]], %[[C]], %[[S]]
// CHECK-NEXT: tpu.Store %[[RQ]]
// CHECK-NEXT: tpu.Store %[[RK]]
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @rope_tables(%arg0: tensor<1x1xi32>, %arg1: tensor<1x1x4x32xf16>, %arg2: tensor<1x1x2x32xf16>) -> (tensor<1x1x4x32xf16>, tensor<1x1x2x32xf16>) {
  %pos = top.Input %arg0 : (tensor<1x1xi32>) -> tensor<1x1xi32>
  %q = top.Input %arg1 : (tensor<1x1x4x32xf16>) -> tensor<1x1x4x32xf16>
  %k = top.Input %arg2 : (tensor<1x1x2x32xf16>) -> tensor<1x1x2x32xf16>
  %ct = top.Weight "rope.cos" : () -> tensor<512x32xf16>
  %st = top.Weight "rope.sin" : () -> tensor<512x32xf16>
  %cos = tpu.Gather %ct, %pos : (tensor<512x32xf16>, tensor<1x1xi32>) -> tensor<1x1x32xf16>
  %sin = tpu.Gather %st, %pos : (tensor<512x32xf16>, tensor<1x1xi32>) -> tensor<1x1x32xf16>
  %qr = tpu.Rope %q, %cos, %sin : (tensor<1x1x4x32xf16>, tensor<1x1x32xf16>, tensor<1x1x32xf16>) -> tensor<1x1x4x32xf16>
  %kr = tpu.Rope %k, %cos, %sin : (tensor<1x1x2x32xf16>, tensor<1x1x32xf16>, tensor<1x1x32xf16>) -> tensor<1x1x2x32xf16>
  return %qr, %kr : tensor<1x1x4x32xf16>, tensor<1x1x2x32xf16>
}

// -----

// More rows than lanes: the ropes keep their own row tiles, the tables
// their round trip.
// CHECK-LABEL: func.func @rope_long_prefill
// CHECK-NOT: tpu.Group
// CHECK: return
func.func @rope_long_prefill(%arg0: tensor<1x8xi32>, %arg1: tensor<1x8x4x32xf16>) -> tensor<1x8x4x32xf16> {
  %pos = top.Input %arg0 : (tensor<1x8xi32>) -> tensor<1x8xi32>
  %q = top.Input %arg1 : (tensor<1x8x4x32xf16>) -> tensor<1x8x4x32xf16>
  %ct = top.Weight "rope.cos" : () -> tensor<512x32xf16>
  %st = top.Weight "rope.sin" : () -> tensor<512x32xf16>
  %cos = tpu.Gather %ct, %pos : (tensor<512x32xf16>, tensor<1x8xi32>) -> tensor<1x8x32xf16>
  %sin = tpu.Gather %st, %pos : (tensor<512x32xf16>, tensor<1x8xi32>) -> tensor<1x8x32xf16>
  %qr = tpu.Rope %q, %cos, %sin : (tensor<1x8x4x32xf16>, tensor<1x8x32xf16>, tensor<1x8x32xf16>) -> tensor<1x8x4x32xf16>
  return %qr : tensor<1x8x4x32xf16>
}
