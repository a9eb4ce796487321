// RUN: llmc-opt %s --tpu-layer-group="lanes=4 lane-bytes=16384 banks=4" --tpu-address-assign | FileCheck %s
// RUN: llmc-opt %s --tpu-layer-group="lanes=4 lane-bytes=16384 banks=4" --tpu-address-assign="keep-values=true" | FileCheck %s --check-prefix=KEEP

// A group is placed as one op: each tpu.Store, and the op computing what it
// stores, get the range of the group result it becomes (here the piece's
// IO slots); the norm it holds in local memory gets none, and the MLP its
// scratch. With keep-values the held norm gets a range too, where llmc
// compare reads it.
// CHECK-LABEL: func.func @placed
// CHECK: tpu.RMSNorm
// CHECK-NOT: {addr
// CHECK-SAME: -> tensor<1x1x32xbf16>
// CHECK-NEXT: tpu.MLP {{.*}}scratch = #tpu.mem<region = activation, offset = 0, size = 128>
// CHECK-NEXT: tpu.Add {{.*}}{addr = [#tpu.mem<region = io, offset = 64, size = 64>]
// CHECK-NEXT: tpu.Store {{.*}}{addr = [#tpu.mem<region = io, offset = 64, size = 64>]
// KEEP-LABEL: func.func @placed
// KEEP: tpu.RMSNorm {{.*}}{addr = [#tpu.mem<region = activation,
func.func @placed(%arg0: tensor<1x1x32xbf16>) -> tensor<1x1x32xbf16> {
  %h = top.Input %arg0 : (tensor<1x1x32xbf16>) -> tensor<1x1x32xbf16>
  %nw = top.Weight "norm.weight" : () -> tensor<32xbf16>
  %n = tpu.RMSNorm %h, %nw {eps = 1.0e-6 : f64} : (tensor<1x1x32xbf16>, tensor<32xbf16>) -> tensor<1x1x32xbf16>
  %g = top.Weight "gate.weight" : () -> tensor<64x32xbf16>
  %u = top.Weight "up.weight" : () -> tensor<64x32xbf16>
  %d = top.Weight "down.weight" : () -> tensor<32x64xbf16>
  %m = tpu.MLP %n, %g, %u, %d : (tensor<1x1x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<32x64xbf16>) -> tensor<1x1x32xbf16>
  %y = tpu.Add %m, %h : (tensor<1x1x32xbf16>, tensor<1x1x32xbf16>) -> tensor<1x1x32xbf16>
  return %y : tensor<1x1x32xbf16>
}
