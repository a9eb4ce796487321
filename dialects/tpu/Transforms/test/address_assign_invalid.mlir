// RUN: llmc-opt %s --split-input-file --verify-diagnostics --tpu-address-assign

func.func @unlowered(%arg0: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
  // expected-error@+1 {{cannot be placed in memory: lower it to tpu first}}
  %y = top.SiLU %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

func.func @reshaped_weight() -> tensor<4x4xf32> {
  %w = top.Weight "w" : () -> tensor<16xf32>
  // expected-error@+1 {{reshapes a value without storage (a weight)}}
  %r = tpu.Reshape %w : (tensor<16xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
