// RUN: llmc-opt %s --split-input-file --top-shape-infer | FileCheck %s

// CHECK-LABEL: func.func @refines_matmul
// CHECK-SAME: -> tensor<1x8x768xf32>
// CHECK: top.MatMul {{.*}} -> tensor<1x8x768xf32>
func.func @refines_matmul(%arg0: tensor<1x8x256xf32>) -> tensor<1x8x?xf32> {
  %x = top.Input %arg0 : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %none = top.None : none
  %w = top.Weight "up" : () -> tensor<768x256xf32>
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x8x256xf32>, tensor<768x256xf32>, none) -> tensor<1x8x?xf32>
  return %y : tensor<1x8x?xf32>
}

// -----

// The refined shape flows to the users of the refined value.
// CHECK-LABEL: func.func @propagates
// CHECK: top.Reshape {{.*}} -> tensor<1x8x8x32xf32>
// CHECK: top.Rope {{.*}} -> tensor<1x8x8x32xf32>
func.func @propagates(%arg0: tensor<1x8x256xf32>, %cos: tensor<1x8x32xf32>) -> tensor<?x?x?x?xf32> {
  %x = top.Input %arg0 : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  %r = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<1x8x8x?xf32>
  %y = top.Rope %r, %cos, %cos : (tensor<1x8x8x?xf32>, tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}
