// RUN: llmc-opt %s --tpu-layer-group="lanes=16 lane-bytes=65536 banks=16" | FileCheck %s

// A prefill's norm and the gated MLP reading it, with the residual add the
// MLP absorbs. 512 rows of 128 bytes do not fit half a lane whole; spread
// over the 16 lanes they are 4 KiB on each, at the top of the lane (bank
// 15). The MLP reads them there.
// CHECK-LABEL: func.func @rows_mlp
// CHECK: tpu.Group
// CHECK: tpu.RMSNorm
// CHECK-SAME: local_addr = 61440, local_size = 4096, bank = 15, rows_per_lane = 32>
// CHECK: tpu.MLP
// CHECK: tpu.Add
// CHECK: tpu.Yield
func.func @rows_mlp(%arg0: tensor<1x512x64xf16>) -> tensor<1x512x64xf16> {
  %x = top.Input %arg0 : (tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  %nw = top.Weight "norm.weight" : () -> tensor<64xf16>
  %g = top.Weight "mlp.gate" : () -> tensor<160x64xf16>
  %u = top.Weight "mlp.up" : () -> tensor<160x64xf16>
  %d = top.Weight "mlp.down" : () -> tensor<64x160xf16>
  %n = tpu.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x512x64xf16>, tensor<64xf16>) -> tensor<1x512x64xf16>
  %m = tpu.MLP %n, %g, %u, %d : (tensor<1x512x64xf16>, tensor<160x64xf16>, tensor<160x64xf16>, tensor<64x160xf16>) -> tensor<1x512x64xf16>
  %y = tpu.Add %m, %x : (tensor<1x512x64xf16>, tensor<1x512x64xf16>) -> tensor<1x512x64xf16>
  return %y : tensor<1x512x64xf16>
}

