// RUN: llmc-opt %s --split-input-file --tpu-fold-io-casts | FileCheck %s

// Hidden states and the KV cache move to bf16; the logits keep f32.
// CHECK-LABEL: func.func @block
// CHECK-SAME: (%[[H:[a-z0-9]+]]: tensor<1x4xbf16>, %{{[a-z0-9]+}}: tensor<2x4xbf16>) -> (tensor<1x4xbf16> {llmc.role = "hidden"}, tensor<1x4xf32> {llmc.role = "logits"})
func.func @block(%arg0: tensor<1x4xf32>, %arg1: tensor<2x4xf32>) -> (tensor<1x4xf32> {llmc.role = "hidden"}, tensor<1x4xf32> {llmc.role = "logits"}) {
  // CHECK: %[[X:[0-9]+]] = top.Input %[[H]] {role = "hidden"} : (tensor<1x4xbf16>) -> tensor<1x4xbf16>
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %xb = tpu.Cast %x : (tensor<1x4xf32>) -> tensor<1x4xbf16>
  %k = top.Input %arg1 {role = "history_k"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %kb = tpu.Cast %k : (tensor<2x4xf32>) -> tensor<2x4xbf16>
  // CHECK: %[[Y:[0-9]+]] = tpu.SiLU %[[X]]
  %y = tpu.SiLU %xb : (tensor<1x4xbf16>) -> tensor<1x4xbf16>
  %yf = tpu.Cast %y : (tensor<1x4xbf16>) -> tensor<1x4xf32>
  // CHECK: %[[L:[0-9]+]] = tpu.Cast %[[Y]] : (tensor<1x4xbf16>) -> tensor<1x4xf32>
  %l = tpu.Cast %y : (tensor<1x4xbf16>) -> tensor<1x4xf32>
  // CHECK: return %[[Y]], %[[L]]
  return %yf, %l : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// An input with other users than the cast keeps its type.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: tensor<1x4xf32>
func.func @shared(%arg0: tensor<1x4xf32>) -> (tensor<1x4xf32> {llmc.role = "logits"}) {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %xb = tpu.Cast %x : (tensor<1x4xf32>) -> tensor<1x4xbf16>
  %y = tpu.Add %x, %x : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
