// RUN: llmc-opt %s --tpu-address-assign="keep-values=true" | FileCheck %s

// With keep-values, the dead intermediate keeps its range: the chain of
// address_assign.mlir takes three activation ranges instead of two, so
// every value can be read back after the run.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: tpu.activation_bytes = 192 : i64, tpu.io_bytes = 128 : i64
func.func @chain(%arg0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 0, size = 64>]
  %a = tpu.SiLU %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 64, size = 64>]
  %b = tpu.SiLU %a : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.SiLU {{.*}}addr = [#tpu.mem<region = activation, offset = 128, size = 64>]
  %c = tpu.SiLU %b : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // CHECK: tpu.Add {{.*}}addr = [#tpu.mem<region = io, offset = 64, size = 64>]
  %d = tpu.Add %c, %x : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
  return %d : tensor<1x16xf32>
}
