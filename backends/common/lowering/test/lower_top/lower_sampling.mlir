// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=BF16 | FileCheck %s
// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=W4BF16 | FileCheck %s --check-prefix=PINNED

// The ops of a sampling head lower to their tpu counterparts: float
// operands and constants in the mode's element type, ids and i1 masks as
// they are.

// CHECK-LABEL: func.func @penalty
// CHECK-DAG: %[[L:.*]] = tpu.Cast %{{.*}} : (tensor<1x8xf32>) -> tensor<1x8xbf16>
// CHECK-DAG: %[[P:.*]] = tpu.Cast %{{.*}} : (tensor<1x1xf32>) -> tensor<1x1xbf16>
// CHECK-DAG: %[[ZERO:.*]] = tpu.Constant dense<0> : tensor<1x1xi32>
// CHECK: %[[EMPTY:.*]] = tpu.Compare %{{.*}}, %[[ZERO]] {mode = #top<compare_mode lt>} : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi1>
// CHECK: %[[SLOTS:.*]] = tpu.Where %[[EMPTY]], %{{.*}}, %{{.*}} : (tensor<1x4xi1>, tensor<1x1xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
// CHECK: %[[SEEN:.*]] = tpu.Gather %[[L]], %[[SLOTS]] {axis = 1 : i64} : (tensor<1x8xbf16>, tensor<1x4xi32>) -> tensor<1x1x4xbf16>
// CHECK: %[[R:.*]] = tpu.Reshape %[[SEEN]] : (tensor<1x1x4xbf16>) -> tensor<1x4xbf16>
// CHECK: %[[FZERO:.*]] = tpu.Constant dense<0.000000e+00> : tensor<1x1xbf16>
// CHECK: %[[POSITIVE:.*]] = tpu.Compare %[[R]], %[[FZERO]] {mode = #top<compare_mode gt>} : (tensor<1x4xbf16>, tensor<1x1xbf16>) -> tensor<1x4xi1>
// CHECK: %[[SHRUNK:.*]] = tpu.Div %[[R]], %[[P]] : (tensor<1x4xbf16>, tensor<1x1xbf16>) -> tensor<1x4xbf16>
// CHECK: %[[NEW:.*]] = tpu.Where %[[POSITIVE]], %[[SHRUNK]], %[[R]] : (tensor<1x4xi1>, tensor<1x4xbf16>, tensor<1x4xbf16>) -> tensor<1x4xbf16>
// CHECK: %[[OUT:.*]] = tpu.ScatterElements %[[L]], %[[SLOTS]], %[[NEW]] {axis = 1 : i64} : (tensor<1x8xbf16>, tensor<1x4xi32>, tensor<1x4xbf16>) -> tensor<1x8xbf16>
// CHECK: tpu.Cast %[[OUT]] : (tensor<1x8xbf16>) -> tensor<1x8xf32>

// PINNED-LABEL: func.func @penalty
// PINNED: tpu.Div {{.*}} : (tensor<1x4xbf16>, tensor<1x1xbf16>) -> tensor<1x4xbf16>
func.func @penalty(%arg0: tensor<1x8xf32>, %arg1: tensor<1x4xi32>, %arg2: tensor<1x1xf32>) -> tensor<1x8xf32> {
  %logits = top.Input %arg0 {role = "logits"} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %ids = top.Input %arg1 {role = "recent_ids"} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %penalty = top.Input %arg2 {role = "penalty"} : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %zero = top.Constant dense<0> : tensor<1x1xi32>
  %empty = top.Compare %ids, %zero {mode = #top<compare_mode lt>} : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi1>
  %spare = top.Constant dense<7> : tensor<1x1xi32>
  %slots = top.Where %empty, %spare, %ids : (tensor<1x4xi1>, tensor<1x1xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
  %picked = top.Gather %logits, %slots {axis = 1 : i64} : (tensor<1x8xf32>, tensor<1x4xi32>) -> tensor<1x1x4xf32>
  %seen = top.Reshape %picked : (tensor<1x1x4xf32>) -> tensor<1x4xf32>
  %fzero = top.Constant dense<0.0> : tensor<1x1xf32>
  %positive = top.Compare %seen, %fzero {mode = #top<compare_mode gt>} : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xi1>
  %shrunk = top.Div %seen, %penalty : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %new = top.Where %positive, %shrunk, %seen : (tensor<1x4xi1>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %out = top.ScatterElements %logits, %slots, %new {axis = 1 : i64} : (tensor<1x8xf32>, tensor<1x4xi32>, tensor<1x4xf32>) -> tensor<1x8xf32>
  return %out : tensor<1x8xf32>
}

// -----

// A piece that pins its mode (`llmc.mode`) computes in it whatever the
// options say: sample_head stays f32, constants included, with no casts.

// CHECK-LABEL: func.func @top_p
// CHECK-SAME: attributes {llmc.mode = "F32"}
// CHECK-NOT: tpu.Cast
// CHECK: %[[V:.*]], %[[I:.*]] = tpu.TopK %{{.*}} {axis = 1 : i64, k = 3 : i64} : (tensor<1x8xf32>) -> (tensor<1x3xf32>, tensor<1x3xi32>)
// CHECK: %[[S:.*]] = tpu.Softmax %[[V]] {axis = 1 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[B:.*]] = tpu.CumSum %[[S]] {axis = 1 : i64, exclusive = true} : (tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[BELOW:.*]] = tpu.Compare %[[B]], %{{.*}} {mode = #top<compare_mode lt>} : (tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xi1>
// CHECK: %[[FIRST:.*]] = tpu.Constant dense<{{\[\[}}true, false, false]]> : tensor<1x3xi1>
// CHECK: %[[KEEP:.*]] = tpu.Where %[[FIRST]], %[[FIRST]], %[[BELOW]] : (tensor<1x3xi1>, tensor<1x3xi1>, tensor<1x3xi1>) -> tensor<1x3xi1>
// CHECK: %[[LOW:.*]] = tpu.Constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK: %[[F:.*]] = tpu.Where %[[KEEP]], %[[V]], %[[LOW]] : (tensor<1x3xi1>, tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
// CHECK-NOT: tpu.Cast
// CHECK: return

// PINNED-LABEL: func.func @top_p
// PINNED-NOT: bf16
// PINNED: return
func.func @top_p(%arg0: tensor<1x8xf32>, %arg1: tensor<1x1xf32>) -> (tensor<1x3xf32>, tensor<1x3xi32>) attributes {llmc.mode = "F32"} {
  %logits = top.Input %arg0 {role = "logits"} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %topP = top.Input %arg1 {role = "top_p"} : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %values, %indices = top.TopK %logits {axis = 1 : i64, k = 3 : i64} : (tensor<1x8xf32>) -> (tensor<1x3xf32>, tensor<1x3xi32>)
  %probs = top.Softmax %values {axis = 1 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %before = top.CumSum %probs {axis = 1 : i64, exclusive = true} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %below = top.Compare %before, %topP {mode = #top<compare_mode lt>} : (tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xi1>
  %first = top.Constant dense<[[true, false, false]]> : tensor<1x3xi1>
  %keep = top.Where %first, %first, %below : (tensor<1x3xi1>, tensor<1x3xi1>, tensor<1x3xi1>) -> tensor<1x3xi1>
  %low = top.Constant dense<0xFF800000> : tensor<1x1xf32>
  %filtered = top.Where %keep, %values, %low : (tensor<1x3xi1>, tensor<1x3xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
  %out = top.Softmax %filtered {axis = 1 : i64} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %out, %indices : tensor<1x3xf32>, tensor<1x3xi32>
}
