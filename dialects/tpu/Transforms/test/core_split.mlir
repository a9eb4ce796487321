// RUN: llmc-opt %s --split-input-file --tpu-core-split="cores=2 min-weight-bytes=1024" | FileCheck %s
// RUN: llmc-opt %s --split-input-file --tpu-core-split="cores=1 min-weight-bytes=1024" | FileCheck %s --check-prefix=ONE

// A projection with 2 KiB of f16 weights splits along N; one with 512 B,
// under the threshold, stays on one core.
// CHECK-LABEL: func.func @projections
// CHECK: tpu.MatMul {{.*}}core_split = #tpu.core_split<cores = 2, axis = 1>{{.*}} -> tensor<1x32xf16>
// CHECK: tpu.MatMul
// CHECK-NOT: core_split
// CHECK-SAME: -> tensor<1x8xf16>
// ONE-LABEL: func.func @projections
// ONE-NOT: core_split
// ONE-LABEL: func.func @stored_bytes
func.func @projections(%arg0: tensor<1x32xf16>) -> (tensor<1x32xf16>, tensor<1x8xf16>) {
  %none = top.None : none
  %w = top.Weight "big.weight" : () -> tensor<32x32xf16>
  %v = top.Weight "small.weight" : () -> tensor<8x32xf16>
  %y = tpu.MatMul %arg0, %w, %none {right_transpose = true} : (tensor<1x32xf16>, tensor<32x32xf16>, none) -> tensor<1x32xf16>
  %z = tpu.MatMul %arg0, %v, %none {right_transpose = true} : (tensor<1x32xf16>, tensor<8x32xf16>, none) -> tensor<1x8xf16>
  return %y, %z : tensor<1x32xf16>, tensor<1x8xf16>
}

// -----

// Weight-only matmuls count their stored bytes: 32 x 64 4-bit weights
// (1 KiB) and their scales split; an activation times an activation, which
// has no weight, does not.
// CHECK-LABEL: func.func @stored_bytes
// CHECK: tpu.A16MatMul {{.*}}core_split = #tpu.core_split<cores = 2, axis = 2>
// CHECK: tpu.MatMul
// CHECK-NOT: core_split
// CHECK-SAME: -> tensor<1x4x4xf16>
func.func @stored_bytes(%x: tensor<1x4x64xf16>, %k: tensor<4x64xf16>) -> (tensor<1x4x32xf16>, tensor<1x4x4xf16>) {
  %none = top.None : none
  %w = top.Weight "q.weight" : () -> tensor<32x64xui4>
  %s = top.Weight "q.scale" : () -> tensor<32x1xf16>
  %y = tpu.A16MatMul %x, %w, %s, %none, %none {weight_bits = 4} : (tensor<1x4x64xf16>, tensor<32x64xui4>, tensor<32x1xf16>, none, none) -> tensor<1x4x32xf16>
  %z = tpu.MatMul %x, %k, %none {right_transpose = true} : (tensor<1x4x64xf16>, tensor<4x64xf16>, none) -> tensor<1x4x4xf16>
  return %y, %z : tensor<1x4x32xf16>, tensor<1x4x4xf16>
}

// -----

// A gated MLP splits by its output channels (the annotation's axis); a split
// already decided stays as it is.
// CHECK-LABEL: func.func @mlp
// CHECK: tpu.MLP {{.*}}core_split = #tpu.core_split<cores = 2, axis = 2>
// CHECK: tpu.MLP {{.*}}core_split = #tpu.core_split<cores = 2, axis = 1>
func.func @mlp(%x: tensor<1x2x16xf16>) -> (tensor<1x2x16xf16>, tensor<1x2x16xf16>) {
  %g = top.Weight "gate.weight" : () -> tensor<32x16xf16>
  %u = top.Weight "up.weight" : () -> tensor<32x16xf16>
  %d = top.Weight "down.weight" : () -> tensor<16x32xf16>
  %y = tpu.MLP %x, %g, %u, %d : (tensor<1x2x16xf16>, tensor<32x16xf16>, tensor<32x16xf16>, tensor<16x32xf16>) -> tensor<1x2x16xf16>
  %z = tpu.MLP %x, %g, %u, %d {core_split = #tpu.core_split<cores = 2, axis = 1>} : (tensor<1x2x16xf16>, tensor<32x16xf16>, tensor<32x16xf16>, tensor<16x32xf16>) -> tensor<1x2x16xf16>
  return %y, %z : tensor<1x2x16xf16>, tensor<1x2x16xf16>
}

