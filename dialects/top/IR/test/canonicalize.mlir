// RUN: llmc-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @mulconst_one
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>)
// CHECK-NOT: top.MulConst
// CHECK: return %[[X]]
func.func @mulconst_one(%x: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  %0 = top.MulConst %x {const_val = 1.0 : f64} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

// CHECK-LABEL: func.func @mulconst_two
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>)
// CHECK: %[[Y:.*]] = top.MulConst %[[X]] {const_val = 2.000000e+00 : f64}
// CHECK: return %[[Y]]
func.func @mulconst_two(%x: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  %0 = top.MulConst %x {const_val = 2.0 : f64} : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>)
// CHECK-NOT: top.Reshape
// CHECK: return %[[X]]
func.func @reshape_same_type(%x: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  return %0 : tensor<1x8x256xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_new_type
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>)
// CHECK: %[[Y:.*]] = top.Reshape %[[X]] : (tensor<1x8x256xf32>) -> tensor<1x8x?xf32>
// CHECK: return %[[Y]]
func.func @reshape_new_type(%x: tensor<1x8x256xf32>) -> tensor<1x8x?xf32> {
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<1x8x?xf32>
  return %0 : tensor<1x8x?xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>)
// CHECK-NEXT: %[[Y:.*]] = top.Reshape %[[X]] : (tensor<1x8x256xf32>) -> tensor<2048xf32>
// CHECK-NEXT: return %[[Y]]
func.func @reshape_chain(%x: tensor<1x8x256xf32>) -> tensor<2048xf32> {
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<8x4x64xf32>
  %1 = top.Reshape %0 : (tensor<8x4x64xf32>) -> tensor<8x256xf32>
  %2 = top.Reshape %1 : (tensor<8x256xf32>) -> tensor<2048xf32>
  return %2 : tensor<2048xf32>
}

// -----

// A chain that comes back to the input's type disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>)
// CHECK-NOT: top.Reshape
// CHECK: return %[[X]]
func.func @reshape_round_trip(%x: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<1x8x4x64xf32>
  %1 = top.Reshape %0 : (tensor<1x8x4x64xf32>) -> tensor<1x8x256xf32>
  return %1 : tensor<1x8x256xf32>
}

// -----

// The inner reshape stays for its other user; the outer one reads the input.
// CHECK-LABEL: func.func @reshape_chain_shared
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x256xf32>)
// CHECK-DAG: %[[INNER:.*]] = top.Reshape %[[X]] : (tensor<1x8x256xf32>) -> tensor<8x256xf32>
// CHECK-DAG: %[[OUTER:.*]] = top.Reshape %[[X]] : (tensor<1x8x256xf32>) -> tensor<2048xf32>
// CHECK: return %[[INNER]], %[[OUTER]]
func.func @reshape_chain_shared(%x: tensor<1x8x256xf32>) -> (tensor<8x256xf32>, tensor<2048xf32>) {
  %0 = top.Reshape %x : (tensor<1x8x256xf32>) -> tensor<8x256xf32>
  %1 = top.Reshape %0 : (tensor<8x256xf32>) -> tensor<2048xf32>
  return %0, %1 : tensor<8x256xf32>, tensor<2048xf32>
}

// -----

// CHECK-LABEL: func.func @permute_identity
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x4x64xf32>)
// CHECK-NOT: top.Permute
// CHECK: return %[[X]]
func.func @permute_identity(%x: tensor<1x8x4x64xf32>) -> tensor<1x8x4x64xf32> {
  %0 = top.Permute %x {order = array<i64: 0, 1, 2, 3>} : (tensor<1x8x4x64xf32>) -> tensor<1x8x4x64xf32>
  return %0 : tensor<1x8x4x64xf32>
}

// -----

// CHECK-LABEL: func.func @permute_swap
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x4x64xf32>)
// CHECK: %[[Y:.*]] = top.Permute %[[X]] {order = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x64xf32>) -> tensor<1x4x8x64xf32>
// CHECK: return %[[Y]]
func.func @permute_swap(%x: tensor<1x8x4x64xf32>) -> tensor<1x4x8x64xf32> {
  %0 = top.Permute %x {order = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x64xf32>) -> tensor<1x4x8x64xf32>
  return %0 : tensor<1x4x8x64xf32>
}

// -----

// Swapping two dimensions of equal size keeps the type but not the data.
// CHECK-LABEL: func.func @permute_swap_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK: %[[Y:.*]] = top.Permute %[[X]] {order = array<i64: 1, 0>}
// CHECK: return %[[Y]]
func.func @permute_swap_same_type(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = top.Permute %x {order = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// An identity Permute whose result type is more static than its input stays:
// replacing it by the input would change the type its users see.
// CHECK-LABEL: func.func @permute_identity_refines_type
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK: %[[Y:.*]] = top.Permute %[[X]] {order = array<i64: 0, 1>} : (tensor<?x4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[Y]] : tensor<2x4xf32>
func.func @permute_identity_refines_type(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = top.Permute %x {order = array<i64: 0, 1>} : (tensor<?x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Constants are ConstantLike: equal ones merge and unused ones go.
// CHECK-LABEL: func.func @constants_merge
// CHECK-SAME: (%[[X:.*]]: tensor<1x4xf32>)
// CHECK: %[[ZERO:.*]] = top.Constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK-NOT: top.Constant
// CHECK: top.Compare %[[X]], %[[ZERO]] {mode = #top<compare_mode gt>}
// CHECK: top.Compare %[[X]], %[[ZERO]] {mode = #top<compare_mode lt>}
func.func @constants_merge(%x: tensor<1x4xf32>) -> (tensor<1x4xi1>, tensor<1x4xi1>) {
  %a = top.Constant dense<0.0> : tensor<1x1xf32>
  %0 = top.Compare %x, %a {mode = #top<compare_mode gt>} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xi1>
  %b = top.Constant dense<0.0> : tensor<1x1xf32>
  %1 = top.Compare %x, %b {mode = #top<compare_mode lt>} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xi1>
  %unused = top.Constant dense<1.0> : tensor<1x1xf32>
  return %0, %1 : tensor<1x4xi1>, tensor<1x4xi1>
}

// -----

// Two permutes compose into one; a pair that cancels leaves the input.

// CHECK-LABEL: func.func @permute_chain
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x4x64xf32>)
// CHECK: %[[Y:.*]] = top.Permute %[[X]] {order = array<i64: 2, 1, 0, 3>} : (tensor<1x8x4x64xf32>) -> tensor<4x8x1x64xf32>
// CHECK-NOT: top.Permute
// CHECK: return %[[Y]], %[[X]]
func.func @permute_chain(%x: tensor<1x8x4x64xf32>) -> (tensor<4x8x1x64xf32>, tensor<1x8x4x64xf32>) {
  %0 = top.Permute %x {order = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x64xf32>) -> tensor<1x4x8x64xf32>
  %1 = top.Permute %0 {order = array<i64: 1, 2, 0, 3>} : (tensor<1x4x8x64xf32>) -> tensor<4x8x1x64xf32>
  %2 = top.Permute %0 {order = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x64xf32>) -> tensor<1x8x4x64xf32>
  return %1, %2 : tensor<4x8x1x64xf32>, tensor<1x8x4x64xf32>
}
