// RUN: llmc-opt %s | llmc-opt | FileCheck %s
// RUN: llmc-opt %s --mlir-print-op-generic | llmc-opt | FileCheck %s

// The ops a sampling head computes with survive printing and parsing, in
// the custom and in the generic form: constants (i1 masks among them),
// comparisons, selections, scatters, running sums and quotients.

// CHECK-LABEL: func.func @constants
// CHECK: tpu.Constant dense<0> : tensor<1x1xi32>
// CHECK: tpu.Constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK: tpu.Constant dense<{{\[\[}}true, false, false]]> : tensor<1x3xi1>
func.func @constants() -> (tensor<1x1xi32>, tensor<1x1xf32>, tensor<1x3xi1>) {
  %zero = tpu.Constant dense<0> : tensor<1x1xi32>
  %low = tpu.Constant dense<0xFF800000> : tensor<1x1xf32>
  %first = tpu.Constant dense<[[true, false, false]]> : tensor<1x3xi1>
  return %zero, %low, %first : tensor<1x1xi32>, tensor<1x1xf32>, tensor<1x3xi1>
}

// CHECK-LABEL: func.func @penalty
// CHECK: %[[EMPTY:.*]] = tpu.Compare %{{.*}}, %{{.*}} {mode = #top<compare_mode lt>} : (tensor<1x64xi32>, tensor<1x1xi32>) -> tensor<1x64xi1>
// CHECK: %[[SLOTS:.*]] = tpu.Where %[[EMPTY]], %{{.*}}, %{{.*}} : (tensor<1x64xi1>, tensor<1x1xi32>, tensor<1x64xi32>) -> tensor<1x64xi32>
// CHECK: tpu.Div %{{.*}}, %{{.*}} {addr = [#tpu.mem<region = activation, offset = 0, size = 256>]} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
// CHECK: tpu.ScatterElements %{{.*}}, %[[SLOTS]], %{{.*}} {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x64xf32>) -> tensor<1x513xf32>
func.func @penalty(%logits: tensor<1x513xf32>, %ids: tensor<1x64xi32>, %seen: tensor<1x64xf32>, %penalty: tensor<1x1xf32>) -> tensor<1x513xf32> {
  %zero = tpu.Constant dense<0> : tensor<1x1xi32>
  %spare = tpu.Constant dense<512> : tensor<1x1xi32>
  %empty = tpu.Compare %ids, %zero {mode = #top<compare_mode lt>} : (tensor<1x64xi32>, tensor<1x1xi32>) -> tensor<1x64xi1>
  %slots = tpu.Where %empty, %spare, %ids : (tensor<1x64xi1>, tensor<1x1xi32>, tensor<1x64xi32>) -> tensor<1x64xi32>
  %shrunk = tpu.Div %seen, %penalty {addr = [#tpu.mem<region = activation, offset = 0, size = 256>]} : (tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<1x64xf32>
  %out = tpu.ScatterElements %logits, %slots, %shrunk {axis = 1 : i64} : (tensor<1x513xf32>, tensor<1x64xi32>, tensor<1x64xf32>) -> tensor<1x513xf32>
  return %out : tensor<1x513xf32>
}

// CHECK-LABEL: func.func @top_p
// CHECK: tpu.CumSum %{{.*}} {axis = 1 : i64, exclusive = true} : (tensor<1x50xbf16>) -> tensor<1x50xbf16>
// CHECK: tpu.CumSum %{{.*}} {reverse = true} : (tensor<1x50xbf16>) -> tensor<1x50xbf16>
// CHECK: tpu.Where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x50xi1>, tensor<1x50xi1>, tensor<1x50xi1>) -> tensor<1x50xi1>
func.func @top_p(%probs: tensor<1x50xbf16>, %a: tensor<1x50xi1>, %b: tensor<1x50xi1>) -> (tensor<1x50xbf16>, tensor<1x50xbf16>, tensor<1x50xi1>) {
  %before = tpu.CumSum %probs {axis = 1 : i64, exclusive = true} : (tensor<1x50xbf16>) -> tensor<1x50xbf16>
  %after = tpu.CumSum %probs {reverse = true} : (tensor<1x50xbf16>) -> tensor<1x50xbf16>
  %either = tpu.Where %a, %a, %b : (tensor<1x50xi1>, tensor<1x50xi1>, tensor<1x50xi1>) -> tensor<1x50xi1>
  return %before, %after, %either : tensor<1x50xbf16>, tensor<1x50xbf16>, tensor<1x50xi1>
}
