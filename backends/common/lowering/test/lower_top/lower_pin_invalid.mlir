// RUN: not llmc-opt %s --tpu-lower-top=mode=BF16 2>&1 | FileCheck %s

// A piece that pins its mode must name one; nothing is lowered otherwise.
// CHECK: error: 'func.func' op tpu-lower-top: unknown quantization mode 'F8'; valid modes: F32, F16, BF16, W8F16, W8BF16, W4F16, W4BF16
// CHECK-NOT: tpu.

func.func @pinned(%arg0: tensor<1x8xf32>) -> tensor<1x8xf32> attributes {llmc.mode = "F8"} {
  %x = top.Input %arg0 {role = "logits"} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %y = top.Softmax %x {axis = 1 : i64} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}
