// RUN: llmc-opt %s --split-input-file --tpu-layer-group="lanes=16 lane-bytes=65536 banks=16" | FileCheck %s

// A prefill's norm and the gated MLP reading it, with the residual add the
// MLP absorbs. 512 rows of 128 bytes do not fit half a lane whole; spread
// over the 16 lanes they are 4 KiB on each, at the top of the lane (bank
// 15). The MLP reads them there.
// CHECK-LABEL: func.func @rows_mlp
// CHECK: tpu.Group
// CHECK: tpu.RMSNorm
// CHECK-SAME: local_addr = 61440, local_size = 4096, bank = 15, rows_per_lane = 32>
// CHECK: tpu.MLP
// CHECK: tpu.Add
// CHECK: tpu.Yield
func.func @rows_mlp(%arg0: tensor<1x512x64xf16>) -> tensor<1x512x64xf16> {
  %x = top.Input %arg0 : (tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %g = top.Weight "mlp.gate" : () -> tensor<160x64xf16>
  %u = top.Weight "mlp.up" : () -> tensor<160x64xf16>
  %d = top.Weight "mlp.down" : () -> tensor<64x160xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x512x64xf16>, tensor<64xf16>) -> tensor<1x512x64xf16>
  %m = tpu.MLP %n, %g, %u, %d : (tensor<1x512x64xf16>, tensor<160x64xf16>, tensor<160x64xf16>, tensor<64x160xf16>) -> tensor<1x512x64xf16>
  %y = tpu.Add %m, %x : (tensor<1x512x64xf16>, tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  return %y : tensor<1x512x64xf16>
}


// -----

// A prefill's attention and the output projection reading it, with the
// residual add it absorbs: attention splits its 512 query rows over the
// 16 lanes, 32 on each, and computes o where the group holds it (4 KiB at
// the top of the lane); the projection reads it there.
// CHECK-LABEL: func.func @attention_output
// CHECK: tpu.Group
// CHECK: tpu.FAttention
// CHECK-SAME: lg = #tpu.lg<id = 0, stage = 1, timestep = 5, local_addr = 61440, local_size = 4096, bank = 15, rows_per_lane = 32>
// CHECK: tpu.MatMul
// CHECK: tpu.Add
// CHECK: tpu.Yield
func.func @attention_output(%arg0: tensor<1x512x4x16xf16>, %arg1: tensor<1x512x2x16xf16>, %arg2: tensor<1x512x2x16xf16>, %arg3: tensor<1x512x512xf16>, %arg4: tensor<1x512x64xf16>) -> tensor<1x512x64xf16> {
  %q = top.Input %arg0 : (tensor<1x512x4x16xf16>) -> tensor<1x512x4x16xf16>
  %k = top.Input %arg1 : (tensor<1x512x2x16xf16>) -> tensor<1x512x2x16xf16>
  %v = top.Input %arg2 : (tensor<1x512x2x16xf16>) -> tensor<1x512x2x16xf16>
  %mask = top.Input %arg3 : (tensor<1x512x512xf16>) -> tensor<1x512x512xf16>
  %h = top.Input %arg4 : (tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  %none = top.None : none
  %w = top.Weight "o.weight" : () -> tensor<64x64xf16>
  %a = tpu.FAttention %q, %k, %v, %mask {scale = 2.500000e-01 : f64, q_head = 4 : i64, kv_head = 2 : i64, head_dim = 16 : i64} : (tensor<1x512x4x16xf16>, tensor<1x512x2x16xf16>, tensor<1x512x2x16xf16>, tensor<1x512x512xf16>) -> tensor<1x512x64xf16>
  %o = tpu.MatMul %a, %w, %none {right_transpose = true} : (tensor<1x512x64xf16>, tensor<64x64xf16>, none) -> tensor<1x512x64xf16>
  %y = tpu.Add %o, %h : (tensor<1x512x64xf16>, tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  return %y : tensor<1x512x64xf16>
}

// -----

// A prefill's norm, Q/K/V projections and ropes: the norm's rows (4 KiB)
// and q's and k's (4 and 2 KiB) are held over the lanes, 32 rows on each;
// each rope runs right after its projection and reads q or k there, so only
// the rotated q and k and the plain v leave the group. The rotary tables'
// gathers move before the group, which reads them.
// CHECK-LABEL: func.func @norm_qkv_ropes
// CHECK: tpu.Gather
// CHECK: tpu.Gather
// CHECK: tpu.Group
// CHECK-SAME: tile_factors = array<i64: 1, 1, 1>
// CHECK: tpu.RMSNorm
// CHECK-SAME: local_addr = 61440, local_size = 4096, bank = 15, rows_per_lane = 32>
// CHECK-NEXT: %[[Q:.*]] = tpu.MatMul
// CHECK-SAME: local_addr = 57344, local_size = 4096, bank = 14, rows_per_lane = 32>
// CHECK-NEXT: %[[QH:.*]] = tpu.Reshape %[[Q]]
// CHECK-NEXT: tpu.Rope %[[QH]]
// CHECK-NEXT: %[[K:.*]] = tpu.MatMul
// CHECK-SAME: local_addr = 55296, local_size = 2048, bank = 13, rows_per_lane = 32>
// CHECK-NEXT: %[[KH:.*]] = tpu.Reshape %[[K]]
// CHECK-NEXT: tpu.Rope %[[KH]]
// CHECK-NEXT: tpu.MatMul
// CHECK-SAME: local_addr = 0, local_size = 0, bank = 0>
// CHECK-COUNT-3: tpu.Store
// CHECK: tpu.Yield
func.func @norm_qkv_ropes(%arg0: tensor<1x512x64xf16>, %arg1: tensor<1x512xi32>) -> (tensor<1x512x4x16xf16>, tensor<1x512x2x16xf16>, tensor<1x512x2x16xf16>) {
  %x = top.Input %arg0 : (tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  %pos = top.Input %arg1 : (tensor<1x512xi32>) -> tensor<1x512xi32>
  %none = top.None : none
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x512x64xf16>, tensor<64xf16>) -> tensor<1x512x64xf16>
  %wq = top.Weight "q.weight" : () -> tensor<64x64xf16>
  %bq = top.Weight "q.bias" : () -> tensor<64xf16>
  %q = tpu.MatMul %n, %wq, %bq {right_transpose = true} : (tensor<1x512x64xf16>, tensor<64x64xf16>, tensor<64xf16>) -> tensor<1x512x64xf16>
  %qh = tpu.Reshape %q : (tensor<1x512x64xf16>) -> tensor<1x512x4x16xf16>
  %wk = top.Weight "k.weight" : () -> tensor<32x64xf16>
  %k = tpu.MatMul %n, %wk, %none {right_transpose = true} : (tensor<1x512x64xf16>, tensor<32x64xf16>, none) -> tensor<1x512x32xf16>
  %kh = tpu.Reshape %k : (tensor<1x512x32xf16>) -> tensor<1x512x2x16xf16>
  %wv = top.Weight "v.weight" : () -> tensor<32x64xf16>
  %v = tpu.MatMul %n, %wv, %none {right_transpose = true} : (tensor<1x512x64xf16>, tensor<32x64xf16>, none) -> tensor<1x512x32xf16>
  %vh = tpu.Reshape %v : (tensor<1x512x32xf16>) -> tensor<1x512x2x16xf16>
  %ct = top.Weight "rope.cos" : () -> tensor<1024x16xf16>
  %st = top.Weight "rope.sin" : () -> tensor<1024x16xf16>
  %cos = tpu.Gather %ct, %pos : (tensor<1024x16xf16>, tensor<1x512xi32>) -> tensor<1x512x16xf16>
  %sin = tpu.Gather %st, %pos : (tensor<1024x16xf16>, tensor<1x512xi32>) -> tensor<1x512x16xf16>
  %qr = tpu.Rope %qh, %cos, %sin : (tensor<1x512x4x16xf16>, tensor<1x512x16xf16>, tensor<1x512x16xf16>) -> tensor<1x512x4x16xf16>
  %kr = tpu.Rope %kh, %cos, %sin : (tensor<1x512x2x16xf16>, tensor<1x512x16xf16>, tensor<1x512x16xf16>) -> tensor<1x512x2x16xf16>
  return %qr, %kr, %vh : tensor<1x512x4x16xf16>, tensor<1x512x2x16xf16>, tensor<1x512x2x16xf16>
}
