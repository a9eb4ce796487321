// RUN: llmc-opt %s --split-input-file --verify-diagnostics

// The verifiers of the ops a sampling head computes with.

func.func @constant_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tpu.Constant' op failed to verify that all of {value, output} have same type}}
  %c = "tpu.Constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %x : tensor<2xf32>
}

// -----

func.func @constant_dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'tpu.Constant' op result #0 must be statically shaped tensor of any type values}}
  %c = "tpu.Constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

func.func @compare_types(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'tpu.Compare' op failed to verify that all of {lhs, rhs} have same element type}}
  %m = tpu.Compare %a, %b {mode = #top<compare_mode eq>} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %m : tensor<4xi1>
}

// -----

func.func @compare_float_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Compare' op result #0 must be tensor of signless integer values}}
  %m = tpu.Compare %a, %b {mode = #top<compare_mode eq>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

func.func @compare_broadcast(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xi1> {
  // expected-error @+1 {{'tpu.Compare' op operands do not broadcast: dimension 1 is 3 and 4}}
  %m = tpu.Compare %a, %b {mode = #top<compare_mode gt>} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  return %m : tensor<2x4xi1>
}

// -----

func.func @where_branches(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Where' op failed to verify that all of {x, y, output} have same element type}}
  %z = tpu.Where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

func.func @where_float_condition(%c: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Where' op operand #0 must be tensor of signless integer values}}
  %z = tpu.Where %c, %x, %x : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

func.func @where_shape(%c: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'tpu.Where' op}}
  %z = tpu.Where %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return %z : tensor<5xf32>
}

// -----

func.func @scatter_rank(%d: tensor<1x8xf32>, %i: tensor<4xi32>, %u: tensor<4xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'tpu.ScatterElements' op data, indices and updates must have the same rank}}
  %s = tpu.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x8xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<1x8xf32>
  return %s : tensor<1x8xf32>
}

// -----

func.func @scatter_updates_type(%d: tensor<1x8xf32>, %i: tensor<1x4xi32>, %u: tensor<1x4xf16>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'tpu.ScatterElements' op failed to verify that all of {data, updates, output} have same element type}}
  %s = tpu.ScatterElements %d, %i, %u {axis = 1 : i64} : (tensor<1x8xf32>, tensor<1x4xi32>, tensor<1x4xf16>) -> tensor<1x8xf32>
  return %s : tensor<1x8xf32>
}

// -----

func.func @cumsum_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tpu.CumSum' op axis -3 is out of range for rank 2}}
  %y = tpu.CumSum %x {axis = -3 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @cumsum_integers(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'tpu.CumSum' op operand #0 must be tensor of floating-point values}}
  %y = tpu.CumSum %x : (tensor<8xi32>) -> tensor<8xi32>
  return %y : tensor<8xi32>
}

// -----

func.func @div_types(%a: tensor<4xf16>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpu.Div' op requires the same element type for all operands and results}}
  %y = tpu.Div %a, %b : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
