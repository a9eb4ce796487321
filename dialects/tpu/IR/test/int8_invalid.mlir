// RUN: llmc-opt %s --split-input-file --verify-diagnostics

func.func @float_input(%x: tensor<2x8xi8>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A8MatMul' op operand #0 must be tensor of quantized type values, but got 'tensor<2x8xi8>'}}
  %y = tpu.A8MatMul %x, %w, %s, %none : (tensor<2x8xi8>, tensor<4x8xi8>, tensor<4x1xf32>, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @expressed(%x: tensor<2x8x!quant.uniform<i8:f32, 0.05>>, %w: tensor<4x8xi8>, %s: tensor<4x1xf32>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A8MatMul' op input must express the output type 'f16', got 'f32'}}
  %y = tpu.A8MatMul %x, %w, %s, %none : (tensor<2x8x!quant.uniform<i8:f32, 0.05>>, tensor<4x8xi8>, tensor<4x1xf32>, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @unsigned_weight(%x: tensor<2x8x!quant.uniform<i8:f16, 0.05>>, %w: tensor<4x8xui8>, %s: tensor<4x1xf32>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A8MatMul' op weight must hold signed 8-bit integers, got 'ui8'}}
  %y = tpu.A8MatMul %x, %w, %s, %none : (tensor<2x8x!quant.uniform<i8:f16, 0.05>>, tensor<4x8xui8>, tensor<4x1xf32>, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @scale_type(%x: tensor<2x8x!quant.uniform<i8:f16, 0.05>>, %w: tensor<4x8xi8>, %s: tensor<4x1xf16>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A8MatMul' op weight scales must be f32, got 'f16'}}
  %y = tpu.A8MatMul %x, %w, %s, %none : (tensor<2x8x!quant.uniform<i8:f16, 0.05>>, tensor<4x8xi8>, tensor<4x1xf16>, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @grouped_scale(%x: tensor<2x8x!quant.uniform<i8:f16, 0.05>>, %w: tensor<4x8xi8>, %s: tensor<4x2xf32>) -> tensor<2x4xf16> {
  %none = top.None : none
  // expected-error @+1 {{'tpu.A8MatMul' op scale must be [N, K / group] = [4, 1]}}
  %y = tpu.A8MatMul %x, %w, %s, %none : (tensor<2x8x!quant.uniform<i8:f16, 0.05>>, tensor<4x8xi8>, tensor<4x2xf32>, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// -----

func.func @intermediate(%x: tensor<2x8x!quant.uniform<i8:f16, 0.05>>, %g: tensor<16x8xi8>, %d: tensor<8x16xi8>, %gs: tensor<16x1xf32>, %ds: tensor<8x1xf32>) -> tensor<2x8xf16> {
  // expected-error @+1 {{'tpu.A8MLP' op intermediate must be quantized per tensor to 8 bits, got 'f16'}}
  %y = tpu.A8MLP %x, %g, %g, %d, %gs, %gs, %ds {intermediate = f16} : (tensor<2x8x!quant.uniform<i8:f16, 0.05>>, tensor<16x8xi8>, tensor<16x8xi8>, tensor<8x16xi8>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<8x1xf32>) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}
