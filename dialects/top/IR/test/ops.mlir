// RUN: llmc-opt %s | llmc-opt | FileCheck %s
// RUN: llmc-opt %s --mlir-print-op-generic | llmc-opt | FileCheck %s

// Round trip of every top op, in the custom and in the generic form.

// CHECK-LABEL: func.func @input
// CHECK-SAME: (%[[HIDDEN:.*]]: tensor<1x8x256xf32>, %[[IDS:.*]]: tensor<1x8xi32>)
// CHECK: top.Input %[[HIDDEN]] {role = "hidden"} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.Input %[[IDS]] : (tensor<1x8xi32>) -> tensor<1x8xi32>
func.func @input(%hidden: tensor<1x8x256xf32>, %ids: tensor<1x8xi32>) -> (tensor<1x8x256xf32>, tensor<1x8xi32>) {
  %0 = top.Input %hidden {role = "hidden"} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %1 = top.Input %ids : (tensor<1x8xi32>) -> tensor<1x8xi32>
  return %0, %1 : tensor<1x8x256xf32>, tensor<1x8xi32>
}

// CHECK-LABEL: func.func @weight_and_none
// CHECK: top.Weight "model.embed_tokens.weight" : () -> tensor<1000x256xbf16>
// CHECK: top.None : none
func.func @weight_and_none() -> (tensor<1000x256xbf16>, none) {
  %0 = top.Weight "model.embed_tokens.weight" : () -> tensor<1000x256xbf16>
  %1 = top.None : none
  return %0, %1 : tensor<1000x256xbf16>, none
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>, %[[XT:.*]]: tensor<1x256x8xf32>)
// CHECK-DAG: %[[NONE:.*]] = top.None : none
// CHECK-DAG: %[[W:.*]] = top.Weight "w" : () -> tensor<256x768xf32>
// CHECK-DAG: %[[WT:.*]] = top.Weight "wt" : () -> tensor<768x256xf32>
// CHECK-DAG: %[[B:.*]] = top.Weight "b" : () -> tensor<768xf32>
// CHECK: top.MatMul %[[X]], %[[W]], %[[NONE]] : (tensor<1x8x256xf32>, tensor<256x768xf32>, none) -> tensor<1x8x768xf32>
// CHECK: top.MatMul %[[X]], %[[W]], %[[B]] : (tensor<1x8x256xf32>, tensor<256x768xf32>, tensor<768xf32>) -> tensor<1x8x768xf32>
// CHECK: top.MatMul %[[X]], %[[WT]], %[[B]] {right_transpose = true} : (tensor<1x8x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<1x8x768xf32>
// CHECK: top.MatMul %[[XT]], %[[WT]], %[[NONE]] {left_transpose = true, right_transpose = true} : (tensor<1x256x8xf32>, tensor<768x256xf32>, none) -> tensor<1x8x768xf32>
func.func @matmul(%x: tensor<1x8x256xf32>, %xt: tensor<1x256x8xf32>) -> (tensor<1x8x768xf32>, tensor<1x8x768xf32>, tensor<1x8x768xf32>, tensor<1x8x768xf32>) {
  %none = top.None : none
  %w = top.Weight "w" : () -> tensor<256x768xf32>
  %wt = top.Weight "wt" : () -> tensor<768x256xf32>
  %b = top.Weight "b" : () -> tensor<768xf32>
  %0 = top.MatMul %x, %w, %none : (tensor<1x8x256xf32>, tensor<256x768xf32>, none) -> tensor<1x8x768xf32>
  %1 = top.MatMul %x, %w, %b : (tensor<1x8x256xf32>, tensor<256x768xf32>, tensor<768xf32>) -> tensor<1x8x768xf32>
  %2 = top.MatMul %x, %wt, %b {right_transpose = true} : (tensor<1x8x256xf32>, tensor<768x256xf32>, tensor<768xf32>) -> tensor<1x8x768xf32>
  %3 = top.MatMul %xt, %wt, %none {left_transpose = true, right_transpose = true} : (tensor<1x256x8xf32>, tensor<768x256xf32>, none) -> tensor<1x8x768xf32>
  return %0, %1, %2, %3 : tensor<1x8x768xf32>, tensor<1x8x768xf32>, tensor<1x8x768xf32>, tensor<1x8x768xf32>
}

// Batch dimensions broadcast; a dynamic dimension stays dynamic.
// CHECK-LABEL: func.func @matmul_batched
// CHECK: top.MatMul {{.*}} : (tensor<2x1x?x16xf16>, tensor<3x16x4xf16>, none) -> tensor<2x3x?x4xf16>
func.func @matmul_batched(%a: tensor<2x1x?x16xf16>, %b: tensor<3x16x4xf16>) -> tensor<2x3x?x4xf16> {
  %none = top.None : none
  %0 = top.MatMul %a, %b, %none : (tensor<2x1x?x16xf16>, tensor<3x16x4xf16>, none) -> tensor<2x3x?x4xf16>
  return %0 : tensor<2x3x?x4xf16>
}

// CHECK-LABEL: func.func @norms
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>, %[[W:.*]]: tensor<256xf32>, %[[B:.*]]: tensor<256xf32>)
// CHECK: %[[NONE:.*]] = top.None : none
// CHECK: top.RMSNorm %[[X]], %[[W]] {eps = 9.9999999999999995E-7 : f64} : (tensor<1x8x256xf32>, tensor<256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.RMSNorm %[[X]], %[[NONE]] {eps = 1.000000e-05 : f64} : (tensor<1x8x256xf32>, none) -> tensor<1x8x256xf32>
// CHECK: top.LayerNorm %[[X]], %[[W]], %[[B]] {eps = 1.000000e-05 : f64} : (tensor<1x8x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.LayerNorm %[[X]], %[[NONE]], %[[NONE]] {eps = 1.000000e-05 : f64} : (tensor<1x8x256xf32>, none, none) -> tensor<1x8x256xf32>
func.func @norms(%x: tensor<1x8x256xf32>, %w: tensor<256xf32>, %b: tensor<256xf32>) -> (tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>) {
  %none = top.None : none
  %0 = top.RMSNorm %x, %w {eps = 1.0e-6 : f64} : (tensor<1x8x256xf32>, tensor<256xf32>) -> tensor<1x8x256xf32>
  %1 = top.RMSNorm %x, %none {eps = 1.0e-5 : f64} : (tensor<1x8x256xf32>, none) -> tensor<1x8x256xf32>
  %2 = top.LayerNorm %x, %w, %b {eps = 1.0e-5 : f64} : (tensor<1x8x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<1x8x256xf32>
  %3 = top.LayerNorm %x, %none, %none {eps = 1.0e-5 : f64} : (tensor<1x8x256xf32>, none, none) -> tensor<1x8x256xf32>
  return %0, %1, %2, %3 : tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>
}

// CHECK-LABEL: func.func @gather
// CHECK: top.Gather {{.*}} : (tensor<1000x256xf32>, tensor<1x8xi32>) -> tensor<1x8x256xf32>
// CHECK: top.Gather {{.*}} {axis = 1 : i64} : (tensor<4x100x64xf32>, tensor<8xi64>) -> tensor<4x8x64xf32>
// CHECK: top.Gather {{.*}} {axis = -1 : i64} : (tensor<100x64xf32>, tensor<1x8xi32>) -> tensor<100x1x8xf32>
func.func @gather(%table: tensor<1000x256xf32>, %ids: tensor<1x8xi32>, %cache: tensor<4x100x64xf32>, %pos: tensor<8xi64>, %t: tensor<100x64xf32>) -> (tensor<1x8x256xf32>, tensor<4x8x64xf32>, tensor<100x1x8xf32>) {
  %0 = top.Gather %table, %ids : (tensor<1000x256xf32>, tensor<1x8xi32>) -> tensor<1x8x256xf32>
  %1 = top.Gather %cache, %pos {axis = 1 : i64} : (tensor<4x100x64xf32>, tensor<8xi64>) -> tensor<4x8x64xf32>
  %2 = top.Gather %t, %ids {axis = -1 : i64} : (tensor<100x64xf32>, tensor<1x8xi32>) -> tensor<100x1x8xf32>
  return %0, %1, %2 : tensor<1x8x256xf32>, tensor<4x8x64xf32>, tensor<100x1x8xf32>
}

// CHECK-LABEL: func.func @rope
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x4x64xf32>, %[[COS:.*]]: tensor<1x8x64xf32>, %[[SIN:.*]]: tensor<1x8x64xf32>, %[[PCOS:.*]]: tensor<1x8x32xf32>, %[[PSIN:.*]]: tensor<1x8x32xf32>)
// CHECK: top.Rope %[[Q]], %[[COS]], %[[SIN]] : (tensor<1x8x4x64xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x4x64xf32>
// CHECK: top.Rope %[[Q]], %[[COS]], %[[SIN]] {mode = #top<rope_mode interleaved>} : (tensor<1x8x4x64xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x4x64xf32>
// CHECK: top.Rope %[[Q]], %[[PCOS]], %[[PSIN]] : (tensor<1x8x4x64xf32>, tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x4x64xf32>
// CHECK: top.Rope %[[Q]], %[[PCOS]], %[[PSIN]] {mode = #top<rope_mode interleaved>} : (tensor<1x8x4x64xf32>, tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x4x64xf32>
func.func @rope(%q: tensor<1x8x4x64xf32>, %cos: tensor<1x8x64xf32>, %sin: tensor<1x8x64xf32>, %pcos: tensor<1x8x32xf32>, %psin: tensor<1x8x32xf32>) -> (tensor<1x8x4x64xf32>, tensor<1x8x4x64xf32>, tensor<1x8x4x64xf32>, tensor<1x8x4x64xf32>) {
  %0 = top.Rope %q, %cos, %sin {mode = #top<rope_mode half>} : (tensor<1x8x4x64xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x4x64xf32>
  %1 = top.Rope %q, %cos, %sin {mode = #top<rope_mode interleaved>} : (tensor<1x8x4x64xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x4x64xf32>
  %2 = top.Rope %q, %pcos, %psin : (tensor<1x8x4x64xf32>, tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x4x64xf32>
  %3 = top.Rope %q, %pcos, %psin {mode = #top<rope_mode interleaved>} : (tensor<1x8x4x64xf32>, tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x4x64xf32>
  return %0, %1, %2, %3 : tensor<1x8x4x64xf32>, tensor<1x8x4x64xf32>, tensor<1x8x4x64xf32>, tensor<1x8x4x64xf32>
}

// Grouped-query attention: 8 query heads read 2 KV heads over 16 cached and
// 8 new positions.
// CHECK-LABEL: func.func @fattention
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x8x64xf32>, %[[K:.*]]: tensor<1x24x2x64xf32>, %[[V:.*]]: tensor<1x24x2x64xf32>, %[[MASK:.*]]: tensor<1x8x24xf32>)
// CHECK: %[[NONE:.*]] = top.None : none
// CHECK: top.FAttention %[[Q]], %[[K]], %[[V]], %[[MASK]] {head_dim = 64 : i64, kv_head = 2 : i64, q_head = 8 : i64, scale = 1.250000e-01 : f64} : (tensor<1x8x8x64xf32>, tensor<1x24x2x64xf32>, tensor<1x24x2x64xf32>, tensor<1x8x24xf32>) -> tensor<1x8x512xf32>
// CHECK: top.FAttention %[[Q]], %[[K]], %[[V]], %[[NONE]] {causal = true, head_dim = 64 : i64, kv_head = 2 : i64, q_head = 8 : i64, scale = 1.250000e-01 : f64} : (tensor<1x8x8x64xf32>, tensor<1x24x2x64xf32>, tensor<1x24x2x64xf32>, none) -> tensor<1x8x512xf32>
// CHECK: top.FAttention %[[Q]], %[[K]], %[[V]], %[[MASK]] {head_dim = 64 : i64, kv_head = 2 : i64, q_head = 8 : i64, scale = 1.250000e-01 : f64, softcap = 5.000000e+01 : f64} :
func.func @fattention(%q: tensor<1x8x8x64xf32>, %k: tensor<1x24x2x64xf32>, %v: tensor<1x24x2x64xf32>, %mask: tensor<1x8x24xf32>) -> (tensor<1x8x512xf32>, tensor<1x8x512xf32>, tensor<1x8x512xf32>) {
  %none = top.None : none
  %0 = top.FAttention %q, %k, %v, %mask {scale = 0.125 : f64, q_head = 8 : i64, kv_head = 2 : i64, head_dim = 64 : i64} : (tensor<1x8x8x64xf32>, tensor<1x24x2x64xf32>, tensor<1x24x2x64xf32>, tensor<1x8x24xf32>) -> tensor<1x8x512xf32>
  %1 = top.FAttention %q, %k, %v, %none {scale = 0.125 : f64, q_head = 8 : i64, kv_head = 2 : i64, head_dim = 64 : i64, causal = true} : (tensor<1x8x8x64xf32>, tensor<1x24x2x64xf32>, tensor<1x24x2x64xf32>, none) -> tensor<1x8x512xf32>
  %2 = top.FAttention %q, %k, %v, %mask {scale = 0.125 : f64, q_head = 8 : i64, kv_head = 2 : i64, head_dim = 64 : i64, softcap = 50.0 : f64} : (tensor<1x8x8x64xf32>, tensor<1x24x2x64xf32>, tensor<1x24x2x64xf32>, tensor<1x8x24xf32>) -> tensor<1x8x512xf32>
  return %0, %1, %2 : tensor<1x8x512xf32>, tensor<1x8x512xf32>, tensor<1x8x512xf32>
}

// The default activation, silu, is elided.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>, %[[GATE:.*]]: tensor<688x256xf32>, %[[UP:.*]]: tensor<688x256xf32>, %[[DOWN:.*]]: tensor<256x688xf32>)
// CHECK: top.MLP %[[X]], %[[GATE]], %[[UP]], %[[DOWN]] : (tensor<1x8x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
// CHECK: top.MLP %[[X]], %[[GATE]], %[[UP]], %[[DOWN]] {activation = #top<activation gelu>} :
// CHECK: top.MLP %[[X]], %[[GATE]], %[[UP]], %[[DOWN]] {activation = #top<activation gelu_tanh>} :
// CHECK: top.MLP %[[X]], %[[GATE]], %[[UP]], %[[DOWN]] {activation = #top<activation relu>} :
func.func @mlp(%x: tensor<1x8x256xf32>, %gate: tensor<688x256xf32>, %up: tensor<688x256xf32>, %down: tensor<256x688xf32>) -> (tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>) {
  %0 = top.MLP %x, %gate, %up, %down {activation = #top<activation silu>} : (tensor<1x8x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
  %1 = top.MLP %x, %gate, %up, %down {activation = #top<activation gelu>} : (tensor<1x8x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
  %2 = top.MLP %x, %gate, %up, %down {activation = #top<activation gelu_tanh>} : (tensor<1x8x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
  %3 = top.MLP %x, %gate, %up, %down {activation = #top<activation relu>} : (tensor<1x8x256xf32>, tensor<688x256xf32>, tensor<688x256xf32>, tensor<256x688xf32>) -> tensor<1x8x256xf32>
  return %0, %1, %2, %3 : tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>
}

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>, %[[B:.*]]: tensor<256xf32>, %[[L:.*]]: tensor<4x1x16xf32>, %[[R:.*]]: tensor<8x1xf32>)
// CHECK: top.Add %[[X]], %[[B]] : (tensor<1x8x256xf32>, tensor<256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.Mul %[[L]], %[[R]] : (tensor<4x1x16xf32>, tensor<8x1xf32>) -> tensor<4x8x16xf32>
func.func @broadcast(%x: tensor<1x8x256xf32>, %b: tensor<256xf32>, %l: tensor<4x1x16xf32>, %r: tensor<8x1xf32>) -> (tensor<1x8x256xf32>, tensor<4x8x16xf32>) {
  %0 = top.Add %x, %b : (tensor<1x8x256xf32>, tensor<256xf32>) -> tensor<1x8x256xf32>
  %1 = top.Mul %l, %r : (tensor<4x1x16xf32>, tensor<8x1xf32>) -> tensor<4x8x16xf32>
  return %0, %1 : tensor<1x8x256xf32>, tensor<4x8x16xf32>
}

// CHECK-LABEL: func.func @unary
// CHECK: top.MulConst {{.*}} {const_val = 1.600000e+01 : f64} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.SiLU {{.*}} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.GELU {{.*}} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.GELU {{.*}} {approximation = #top<gelu_approximation tanh>} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.Softmax {{.*}} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
// CHECK: top.Softmax {{.*}} {axis = 1 : i64} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
func.func @unary(%x: tensor<1x8x256xf32>) -> (tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>) {
  %0 = top.MulConst %x {const_val = 16.0 : f64} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %1 = top.SiLU %x : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %2 = top.GELU %x {approximation = #top<gelu_approximation none>} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %3 = top.GELU %x {approximation = #top<gelu_approximation tanh>} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %4 = top.Softmax %x : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %5 = top.Softmax %x {axis = 1 : i64} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>, tensor<1x8x256xf32>
}

// CHECK-LABEL: func.func @data_movement
// CHECK: %[[R:.*]] = top.Reshape {{.*}} : (tensor<1x8x256xf32>) -> tensor<1x8x4x64xf32>
// CHECK: top.Reshape {{.*}} : (tensor<1x8x256xf32>) -> tensor<1x8x4x?xf32>
// CHECK: top.Permute %[[R]] {order = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x64xf32>) -> tensor<1x4x8x64xf32>
// CHECK: top.Concat {{.*}} {axis = 1 : i64} : (tensor<1x16x2x64xf32>, tensor<1x8x2x64xf32>) -> tensor<1x24x2x64xf32>
// CHECK: top.Concat {{.*}} {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>, tensor<2x5xf32>) -> tensor<2x?xf32>
func.func @data_movement(%x: tensor<1x8x256xf32>, %past: tensor<1x16x2x64xf32>, %new: tensor<1x8x2x64xf32>, %a: tensor<2x3xf32>, %b: tensor<2x?xf32>, %c: tensor<2x5xf32>) -> (tensor<1x8x4x?xf32>, tensor<1x4x8x64xf32>, tensor<1x24x2x64xf32>, tensor<2x?xf32>) {
  %r = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<1x8x4x64xf32>
  %d = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<1x8x4x?xf32>
  %p = top.Permute %r {order = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x64xf32>) -> tensor<1x4x8x64xf32>
  %kv = top.Concat %past, %new {axis = 1 : i64} : (tensor<1x16x2x64xf32>, tensor<1x8x2x64xf32>) -> tensor<1x24x2x64xf32>
  %abc = top.Concat %a, %b, %c {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>, tensor<2x5xf32>) -> tensor<2x?xf32>
  return %d, %p, %kv, %abc : tensor<1x8x4x?xf32>, tensor<1x4x8x64xf32>, tensor<1x24x2x64xf32>, tensor<2x?xf32>
}

// Negative starts and ends count from the end; ends past the dimension clamp.
// CHECK-LABEL: func.func @slice
// CHECK: top.Slice {{.*}} {ends = array<i64: 1, 8, 256>, starts = array<i64: 0, -1, 0>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x256xf32>) -> tensor<1x1x256xf32>
// CHECK: top.Slice {{.*}} {ends = array<i64: 1, -1, 1000>, starts = array<i64: 0, -4, 1>, steps = array<i64: 1, 2, 3>} : (tensor<1x8x256xf32>) -> tensor<1x2x85xf32>
func.func @slice(%x: tensor<1x8x256xf32>) -> (tensor<1x1x256xf32>, tensor<1x2x85xf32>) {
  %0 = top.Slice %x {starts = array<i64: 0, -1, 0>, ends = array<i64: 1, 8, 256>, steps = array<i64: 1, 1, 1>} : (tensor<1x8x256xf32>) -> tensor<1x1x256xf32>
  %1 = top.Slice %x {starts = array<i64: 0, -4, 1>, ends = array<i64: 1, -1, 1000>, steps = array<i64: 1, 2, 3>} : (tensor<1x8x256xf32>) -> tensor<1x2x85xf32>
  return %0, %1 : tensor<1x1x256xf32>, tensor<1x2x85xf32>
}

// CHECK-LABEL: func.func @selection
// CHECK: top.Arg {{.*}} {axis = -1 : i64} : (tensor<1x1000xf32>) -> tensor<1x1xi32>
// CHECK: top.Arg {{.*}} {axis = 2 : i64, keepdims = false, mode = #top<arg_mode argmin>} : (tensor<1x8x1000xf32>) -> tensor<1x8xi64>
// CHECK: top.TopK {{.*}} {k = 40 : i64} : (tensor<1x1000xf32>) -> (tensor<1x40xf32>, tensor<1x40xi32>)
// CHECK: top.TopK {{.*}} {axis = 0 : i64, k = 3 : i64, largest = false} : (tensor<8x1000xf16>) -> (tensor<3x1000xf16>, tensor<3x1000xi64>)
func.func @selection(%logits: tensor<1x1000xf32>, %seq: tensor<1x8x1000xf32>, %h: tensor<8x1000xf16>) -> (tensor<1x1xi32>, tensor<1x8xi64>, tensor<1x40xf32>, tensor<1x40xi32>, tensor<3x1000xf16>, tensor<3x1000xi64>) {
  %0 = top.Arg %logits {axis = -1 : i64, mode = #top<arg_mode argmax>} : (tensor<1x1000xf32>) -> tensor<1x1xi32>
  %1 = top.Arg %seq {axis = 2 : i64, keepdims = false, mode = #top<arg_mode argmin>} : (tensor<1x8x1000xf32>) -> tensor<1x8xi64>
  %2:2 = top.TopK %logits {k = 40 : i64} : (tensor<1x1000xf32>) -> (tensor<1x40xf32>, tensor<1x40xi32>)
  %3:2 = top.TopK %h {k = 3 : i64, axis = 0 : i64, largest = false} : (tensor<8x1000xf16>) -> (tensor<3x1000xf16>, tensor<3x1000xi64>)
  return %0, %1, %2#0, %2#1, %3#0, %3#1 : tensor<1x1xi32>, tensor<1x8xi64>, tensor<1x40xf32>, tensor<1x40xi32>, tensor<3x1000xf16>, tensor<3x1000xi64>
}

// Constants print their type once; a splat prints one element.
// CHECK-LABEL: func.func @constant
// CHECK: top.Constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK: top.Constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK: top.Constant dense<512> : tensor<1x1xi32>
// CHECK: top.Constant dense<{{\[}}[true, false, false]]> : tensor<1x3xi1>
func.func @constant() -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xi32>, tensor<1x3xi1>) {
  %0 = top.Constant dense<0.0> : tensor<1x1xf32>
  %1 = top.Constant dense<0xFF800000> : tensor<1x1xf32>
  %2 = top.Constant dense<512> : tensor<1x1xi32>
  %3 = top.Constant dense<[[true, false, false]]> : tensor<1x3xi1>
  return %0, %1, %2, %3 : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xi32>, tensor<1x3xi1>
}

// CHECK-LABEL: func.func @div
// CHECK: top.Div {{.*}} : (tensor<1x512xf32>, tensor<1x1xf32>) -> tensor<1x512xf32>
// CHECK: top.Div {{.*}} : (tensor<4x1xf16>, tensor<3xf16>) -> tensor<4x3xf16>
func.func @div(%logits: tensor<1x512xf32>, %t: tensor<1x1xf32>, %a: tensor<4x1xf16>, %b: tensor<3xf16>) -> (tensor<1x512xf32>, tensor<4x3xf16>) {
  %0 = top.Div %logits, %t : (tensor<1x512xf32>, tensor<1x1xf32>) -> tensor<1x512xf32>
  %1 = top.Div %a, %b : (tensor<4x1xf16>, tensor<3xf16>) -> tensor<4x3xf16>
  return %0, %1 : tensor<1x512xf32>, tensor<4x3xf16>
}

// CHECK-LABEL: func.func @compare
// CHECK: top.Compare {{.*}} {mode = #top<compare_mode lt>} : (tensor<1x64xi32>, tensor<1x1xi32>) -> tensor<1x64xi1>
// CHECK: top.Compare {{.*}} {mode = #top<compare_mode gt>} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xi1>
// CHECK: top.Compare {{.*}} {mode = #top<compare_mode eq>} : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xi32>
// CHECK: top.Compare {{.*}} {mode = #top<compare_mode ne>} :
// CHECK: top.Compare {{.*}} {mode = #top<compare_mode le>} :
// CHECK: top.Compare {{.*}} {mode = #top<compare_mode ge>} :
func.func @compare(%ids: tensor<1x64xi32>, %zero: tensor<1x1xi32>, %x: tensor<1x64xf32>, %p: tensor<1x1xf32>, %a: tensor<2x1xf32>, %b: tensor<3xf32>) -> (tensor<1x64xi1>, tensor<1x64xi1>, tensor<2x3xi32>, tensor<1x64xi1>, tensor<1x64xi1>, tensor<1x64xi1>) {
  %0 = top.Compare %ids, %zero {mode = #top<compare_mode lt>} : (tensor<1x64xi32>, tensor<1x1xi32>) -> tensor<1x64xi1>
  %1 = top.Compare %x, %p {mode = #top<compare_mode gt>} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xi1>
  %2 = top.Compare %a, %b {mode = #top<compare_mode eq>} : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xi32>
  %3 = top.Compare %x, %p {mode = #top<compare_mode ne>} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xi1>
  %4 = top.Compare %x, %p {mode = #top<compare_mode le>} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xi1>
  %5 = top.Compare %x, %p {mode = #top<compare_mode ge>} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<1x64xi1>, tensor<1x64xi1>, tensor<2x3xi32>, tensor<1x64xi1>, tensor<1x64xi1>, tensor<1x64xi1>
}

// All three operands broadcast; integer branches select ids or combine masks.
// CHECK-LABEL: func.func @where
// CHECK: top.Where {{.*}} : (tensor<1x64xi1>, tensor<1x1xi32>, tensor<1x64xi32>) -> tensor<1x64xi32>
// CHECK: top.Where {{.*}} : (tensor<4x1xi1>, tensor<3xf32>, tensor<1x1xf32>) -> tensor<4x3xf32>
// CHECK: top.Where %[[M:.*]], %[[M]], %{{.*}} : (tensor<1x64xi1>, tensor<1x64xi1>, tensor<1x64xi1>) -> tensor<1x64xi1>
func.func @where(%empty: tensor<1x64xi1>, %spare: tensor<1x1xi32>, %ids: tensor<1x64xi32>, %c: tensor<4x1xi1>, %x: tensor<3xf32>, %y: tensor<1x1xf32>, %other: tensor<1x64xi1>) -> (tensor<1x64xi32>, tensor<4x3xf32>, tensor<1x64xi1>) {
  %0 = top.Where %empty, %spare, %ids : (tensor<1x64xi1>, tensor<1x1xi32>, tensor<1x64xi32>) -> tensor<1x64xi32>
  %1 = top.Where %c, %x, %y : (tensor<4x1xi1>, tensor<3xf32>, tensor<1x1xf32>) -> tensor<4x3xf32>
  %2 = top.Where %empty, %empty, %other : (tensor<1x64xi1>, tensor<1x64xi1>, tensor<1x64xi1>) -> tensor<1x64xi1>
  return %0, %1, %2 : tensor<1x64xi32>, tensor<4x3xf32>, tensor<1x64xi1>
}

// Indices may be smaller than data outside the axis.
// CHECK-LABEL: func.func @scatter_elements
// CHECK: top.ScatterElements {{.*}} {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x64xf32>) -> tensor<1x513xf32>
// CHECK: top.ScatterElements {{.*}} : (tensor<4x3xi32>, tensor<2x2xi64>, tensor<2x2xi32>) -> tensor<4x3xi32>
func.func @scatter_elements(%data: tensor<1x513xf32>, %slots: tensor<1x64xi32>, %values: tensor<1x64xf32>, %d: tensor<4x3xi32>, %i: tensor<2x2xi64>, %u: tensor<2x2xi32>) -> (tensor<1x513xf32>, tensor<4x3xi32>) {
  %0 = top.ScatterElements %data, %slots, %values {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x64xf32>) -> tensor<1x513xf32>
  %1 = top.ScatterElements %d, %i, %u : (tensor<4x3xi32>, tensor<2x2xi64>, tensor<2x2xi32>) -> tensor<4x3xi32>
  return %0, %1 : tensor<1x513xf32>, tensor<4x3xi32>
}

// CHECK-LABEL: func.func @cumsum
// CHECK: top.CumSum {{.*}} : (tensor<1x50xf32>) -> tensor<1x50xf32>
// CHECK: top.CumSum {{.*}} {exclusive = true} : (tensor<1x50xf32>) -> tensor<1x50xf32>
// CHECK: top.CumSum {{.*}} {axis = 0 : i64, exclusive = true, reverse = true} : (tensor<1x50xf32>) -> tensor<1x50xf32>
func.func @cumsum(%p: tensor<1x50xf32>) -> (tensor<1x50xf32>, tensor<1x50xf32>, tensor<1x50xf32>) {
  %0 = top.CumSum %p : (tensor<1x50xf32>) -> tensor<1x50xf32>
  %1 = top.CumSum %p {axis = -1 : i64, exclusive = true} : (tensor<1x50xf32>) -> tensor<1x50xf32>
  %2 = top.CumSum %p {axis = 0 : i64, exclusive = true, reverse = true} : (tensor<1x50xf32>) -> tensor<1x50xf32>
  return %0, %1, %2 : tensor<1x50xf32>, tensor<1x50xf32>, tensor<1x50xf32>
}

// CHECK-LABEL: func.func @stored_weight
// CHECK: top.Weight "blk.0.ffn_up.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = true, scaleType = bf16>} : () -> tensor<768x256xf32>
func.func @stored_weight() -> tensor<768x256xf32> {
  %0 = top.Weight "blk.0.ffn_up.weight" {stored = #top.stored_quant<bits = 4, groupSize = 32, asymmetric = true, scaleType = bf16>} : () -> tensor<768x256xf32>
  return %0 : tensor<768x256xf32>
}

// The primitives of exported graphs that raising fuses into RMSNorm, SiLU
// and FAttention.
// CHECK-LABEL: func.func @unary_primitives
// CHECK: top.Sqrt {{.*}} : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
// CHECK: top.Sigmoid {{.*}} : (tensor<1x8x768xbf16>) -> tensor<1x8x768xbf16>
// CHECK: top.Pow {{.*}} {exponent = 2.000000e+00 : f64} : (tensor<1x8x768xf32>) -> tensor<1x8x768xf32>
// CHECK: top.Pow {{.*}} {exponent = -5.000000e-01 : f64} : (tensor<4xf16>) -> tensor<4xf16>
func.func @unary_primitives(%ms: tensor<1x8x1xf32>, %h: tensor<1x8x768xbf16>, %x: tensor<1x8x768xf32>, %v: tensor<4xf16>) -> (tensor<1x8x1xf32>, tensor<1x8x768xbf16>, tensor<1x8x768xf32>, tensor<4xf16>) {
  %0 = top.Sqrt %ms : (tensor<1x8x1xf32>) -> tensor<1x8x1xf32>
  %1 = top.Sigmoid %h : (tensor<1x8x768xbf16>) -> tensor<1x8x768xbf16>
  %2 = top.Pow %x {exponent = 2.0 : f64} : (tensor<1x8x768xf32>) -> tensor<1x8x768xf32>
  %3 = top.Pow %v {exponent = -0.5 : f64} : (tensor<4xf16>) -> tensor<4xf16>
  return %0, %1, %2, %3 : tensor<1x8x1xf32>, tensor<1x8x768xbf16>, tensor<1x8x768xf32>, tensor<4xf16>
}

// CHECK-LABEL: func.func @tanh
// CHECK: top.Tanh %{{.*}} : (tensor<1x1x512xf32>) -> tensor<1x1x512xf32>
func.func @tanh(%x: tensor<1x1x512xf32>) -> tensor<1x1x512xf32> {
  %0 = top.Tanh %x : (tensor<1x1x512xf32>) -> tensor<1x1x512xf32>
  return %0 : tensor<1x1x512xf32>
}

// keepdims defaults to true and is printed only when false.
// CHECK-LABEL: func.func @reduce_mean
// CHECK: top.ReduceMean {{.*}} {axes = array<i64: -1>} : (tensor<1x8x768xf32>) -> tensor<1x8x1xf32>
// CHECK: top.ReduceMean {{.*}} {axes = array<i64: 2, 0>, keepdims = false} : (tensor<1x8x768xf32>) -> tensor<8xf32>
// CHECK: top.ReduceMean {{.*}} {axes = array<i64: 1>} : (tensor<2x?x4xf16>) -> tensor<2x1x4xf16>
func.func @reduce_mean(%x: tensor<1x8x768xf32>, %d: tensor<2x?x4xf16>) -> (tensor<1x8x1xf32>, tensor<8xf32>, tensor<2x1x4xf16>) {
  %0 = top.ReduceMean %x {axes = array<i64: -1>} : (tensor<1x8x768xf32>) -> tensor<1x8x1xf32>
  %1 = top.ReduceMean %x {axes = array<i64: 2, 0>, keepdims = false} : (tensor<1x8x768xf32>) -> tensor<8xf32>
  %2 = top.ReduceMean %d {axes = array<i64: 1>, keepdims = true} : (tensor<2x?x4xf16>) -> tensor<2x1x4xf16>
  return %0, %1, %2 : tensor<1x8x1xf32>, tensor<8xf32>, tensor<2x1x4xf16>
}

// Missing leading dimensions and dimensions of 1 repeat.
// CHECK-LABEL: func.func @expand
// CHECK: top.Expand {{.*}} : (tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK: top.Expand {{.*}} : (tensor<8x1xi1>) -> tensor<2x8x16xi1>
// CHECK: top.Expand {{.*}} : (tensor<?x1xf32>) -> tensor<?x3xf32>
func.func @expand(%mask: tensor<1x1x8x8xf32>, %m: tensor<8x1xi1>, %d: tensor<?x1xf32>) -> (tensor<1x4x8x8xf32>, tensor<2x8x16xi1>, tensor<?x3xf32>) {
  %0 = top.Expand %mask : (tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32>
  %1 = top.Expand %m : (tensor<8x1xi1>) -> tensor<2x8x16xi1>
  %2 = top.Expand %d : (tensor<?x1xf32>) -> tensor<?x3xf32>
  return %0, %1, %2 : tensor<1x4x8x8xf32>, tensor<2x8x16xi1>, tensor<?x3xf32>
}
