// RUN: llmc-opt %s --split-input-file --tpu-address-assign | FileCheck %s

// IO first (arguments, then results); the returned value is computed into
// its IO slot; the dead intermediate's space is reused.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %arg0: tensor<1x16xf32> {tpu.addr = #tpu.mem<region = io, offset = 0, size = 64>}
// CHECK-SAME: {tpu.addr = #tpu.mem<region = io, offset = 64, size = 64>}
// CHECK-SAME: tpu.activation_bytes = 128 : i64, tpu.io_bytes = 128 : i64
func.func @chain(%arg0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 0, size = 64>]
  %a = tpu.SiLU %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 64, size = 64>]
  %b = tpu.SiLU %a : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // %a is dead here: %c takes its place.
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 0, size = 64>]
  %c = tpu.SiLU %b : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.Add {{.*}}addr = [#tpu.mem<region = io, offset = 64, size = 64>]
  %d = tpu.Add %c, %x : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  return %d : tensor<1x16xf32>
}

// -----

// The cached keys' IO slot grows to hold the concat, and the new key is
// computed in place behind them: nothing is copied. The reshape aliases its
// input.
// The new key, returned too, is read where it is: it gets no slot of its
// own.
// CHECK-LABEL: func.func @kv_append
// CHECK-SAME: %arg0: tensor<1x4x2x8xf32> {tpu.addr = #tpu.mem<region = io, offset = 0, size = 256>}
// CHECK-SAME: %arg1: tensor<1x1x16xf32> {tpu.addr = #tpu.mem<region = io, offset = 320, size = 64>}
// CHECK-SAME: -> (tensor<1x5x2x8xf32> {tpu.addr = #tpu.mem<region = io, offset = 384, size = 320>}, tensor<1x1x2x8xf32> {tpu.addr = #tpu.mem<region = io, offset = 256, size = 64>})
func.func @kv_append(%history: tensor<1x4x2x8xf32>, %new: tensor<1x1x16xf32>) -> (tensor<1x5x2x8xf32>, tensor<1x1x2x8xf32>) {
  %h = top.Input %history {role = "history_k"} : (tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32>
  %n = top.Input %new {role = "hidden"} : (tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = io, offset = 256, size = 64>]
  %k = tpu.SiLU %n : (tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
  // CHECK: tpu.Reshape {{.*}}addr = [#tpu.mem<region = io, offset = 256, size = 64>]
  %r = tpu.Reshape %k : (tensor<1x1x16xf32>) -> tensor<1x1x2x8xf32>
  // CHECK: tpu.Concat {{.*}}addr = [#tpu.mem<region = io, offset = 0, size = 320>]
  %c = tpu.Concat %h, %r {axis = 1 : i64} : (tensor<1x4x2x8xf32>, tensor<1x1x2x8xf32>) -> tensor<1x5x2x8xf32>
  %o = tpu.SiLU %c : (tensor<1x5x2x8xf32>) -> tensor<1x5x2x8xf32>
  return %o, %r : tensor<1x5x2x8xf32>, tensor<1x1x2x8xf32>
}

// -----

// A computed first input moves into the concat's activation buffer.
// CHECK-LABEL: func.func @computed_prefix
func.func @computed_prefix(%arg0: tensor<1x4x8xf32>, %arg1: tensor<1x1x8xf32>) -> tensor<1x5x8xf32> {
  %a = top.Input %arg0 {role = "hidden"} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %b = top.Input %arg1 {role = "hidden"} : (tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 0, size = 128>]
  %x = tpu.SiLU %a : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 128, size = 64>]
  %y = tpu.SiLU %b : (tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  // CHECK: tpu.Concat {{.*}}addr = [#tpu.mem<region = activation, offset = 0, size = 192>]
  %c = tpu.Concat %x, %y {axis = 1 : i64} : (tensor<1x4x8xf32>, tensor<1x1x8xf32>) -> tensor<1x5x8xf32>
  %o = tpu.SiLU %c : (tensor<1x5x8xf32>) -> tensor<1x5x8xf32>
  return %o : tensor<1x5x8xf32>
}

// -----

// The MLP's kernel gets scratch for its gated activation, live for the op.
// CHECK-LABEL: func.func @mlp_scratch
func.func @mlp_scratch(%arg0: tensor<1x2x16xf32>) -> tensor<1x2x16xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %g = top.Weight "gate" : () -> tensor<32x16xf32>
  %u = top.Weight "up" : () -> tensor<32x16xf32>
  %d = top.Weight "down" : () -> tensor<16x32xf32>
  // CHECK: tpu.MLP {{.*}}scratch = #tpu.mem<region = activation, offset = 0, size = 256>
  %y = tpu.MLP %x, %g, %u, %d : (tensor<1x2x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<1x2x16xf32>
  return %y : tensor<1x2x16xf32>
}

// -----

// A projection computes the residual add it absorbs in its output tiles,
// so its input stays live until the add: the add's result never takes the
// input's place (a split projection's cores each load all of it).
// CHECK-LABEL: func.func @absorbed_residual
func.func @absorbed_residual(%arg0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %w = top.Weight "proj.weight" : () -> tensor<16x16xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 0, size = 64>]
  %a = tpu.SiLU %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.MatMul {{.*}}addr = [#tpu.mem<region = activation, offset = 64, size = 64>]
  %p = tpu.MatMul %a, %w, %none {right_transpose = true} : (tensor<1x16xf32>, tensor<16x16xf32>, none) -> tensor<1x16xf32>
  // CHECK: tpu.Add {{.*}}addr = [#tpu.mem<region = activation, offset = 128, size = 64>]
  %d = tpu.Add %p, %x : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  %e = tpu.SiLU %d : (tensor<1x16xf32>) -> tensor<1x16xf32>
  return %e : tensor<1x16xf32>
}
