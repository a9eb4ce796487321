// RUN: llmc-opt %s | llmc-opt | FileCheck %s

// CHECK-LABEL: func.func @a8_matmul
// CHECK: tpu.A8MatMul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8x!quant.uniform<i8:f16, 5.000000e-02>>, tensor<4x8x!quant.any<i8:f32>>, tensor<4x1xf32>, none) -> tensor<2x4xf16>
func.func @a8_matmul(%x: tensor<2x8xf16>, %w: tensor<4x8x!quant.any<i8:f32>>, %s: tensor<4x1xf32>) -> tensor<2x4xf16> {
  %none = top.None : none
  %q = tpu.Cast %x : (tensor<2x8xf16>) -> tensor<2x8x!quant.uniform<i8:f16, 0.05>>
  %y = tpu.A8MatMul %q, %w, %s, %none : (tensor<2x8x!quant.uniform<i8:f16, 0.05>>, tensor<4x8x!quant.any<i8:f32>>, tensor<4x1xf32>, none) -> tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

// CHECK-LABEL: func.func @a8_mlp
// CHECK: tpu.A8MLP {{.*}} {activation = #top<activation gelu>, intermediate = !quant.uniform<u8:f16, 2.000000e-02:128>}
func.func @a8_mlp(%x: tensor<2x8x!quant.uniform<u8:f16, 0.05:3>>, %g: tensor<16x8xi8>, %u: tensor<16x8xi8>, %d: tensor<8x16xi8>, %gs: tensor<16x1xf32>, %us: tensor<16x1xf32>, %ds: tensor<8x1xf32>) -> tensor<2x8xf16> {
  %y = tpu.A8MLP %x, %g, %u, %d, %gs, %us, %ds {intermediate = !quant.uniform<u8:f16, 0.02:128>, activation = #top<activation gelu>} : (tensor<2x8x!quant.uniform<u8:f16, 0.05:3>>, tensor<16x8xi8>, tensor<16x8xi8>, tensor<8x16xi8>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<8x1xf32>) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}
