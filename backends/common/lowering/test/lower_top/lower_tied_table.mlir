// RUN: llmc-opt %s --split-input-file --tpu-lower-top="mode=W4BF16 q-group-size=32" | FileCheck %s
// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=BF16 | FileCheck %s --check-prefix=FLOAT

// A table the piece lists in llmc.quantized_tables (a tied embedding) is
// gathered from the quantized form the LM head reads: the same derived
// weights, so the binary stores it once. The rows come out in the
// activation type.
// CHECK-LABEL: func.func @tied_embedding
// CHECK: %[[Q:.*]] = top.Weight "model.embed_tokens.weight#w4_g32_sym_bf16.qweight" : () -> tensor<128x64x!quant.any<i4:bf16>>
// CHECK: %[[S:.*]] = top.Weight "model.embed_tokens.weight#w4_g32_sym_bf16.scale" : () -> tensor<128x2xbf16>
// CHECK: tpu.A16Gather %[[Q]], %[[S]], %{{.*}}, %{{.*}} {q_group_size = 32 : i64, weight_bits = 4 : i64} : (tensor<128x64x!quant.any<i4:bf16>>, tensor<128x2xbf16>, none, tensor<1x4xi32>) -> tensor<1x4x64xbf16>
// A float mode gathers the float table.
// FLOAT-LABEL: func.func @tied_embedding
// FLOAT: tpu.Gather {{.*}} : (tensor<128x64xbf16>, tensor<1x4xi32>) -> tensor<1x4x64xbf16>
func.func @tied_embedding(%arg0: tensor<1x4xi32>) -> tensor<1x4x64xf32> attributes {llmc.quantized_tables = ["model.embed_tokens.weight"]} {
  %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %t = top.Weight "model.embed_tokens.weight" : () -> tensor<128x64xf32>
  %y = top.Gather %t, %ids : (tensor<128x64xf32>, tensor<1x4xi32>) -> tensor<1x4x64xf32>
  return %y : tensor<1x4x64xf32>
}

// -----

// A table no Linear layer reads stays a float gather in every mode.
// CHECK-LABEL: func.func @untied_embedding
// CHECK: tpu.Gather {{.*}} : (tensor<128x64xbf16>, tensor<1x4xi32>) -> tensor<1x4x64xbf16>
func.func @untied_embedding(%arg0: tensor<1x4xi32>) -> tensor<1x4x64xf32> attributes {llmc.quantized_tables = ["lm_head.weight"]} {
  %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %t = top.Weight "model.embed_tokens.weight" : () -> tensor<128x64xf32>
  %y = top.Gather %t, %ids : (tensor<128x64xf32>, tensor<1x4xi32>) -> tensor<1x4x64xf32>
  return %y : tensor<1x4x64xf32>
}

// -----

// A checkpoint whose author left its floats float keeps the table float,
// as its LM head.
// CHECK-LABEL: func.func @kept_float
// CHECK: tpu.Gather {{.*}} : (tensor<128x64xbf16>, tensor<1x4xi32>) -> tensor<1x4x64xbf16>
func.func @kept_float(%arg0: tensor<1x4xi32>) -> tensor<1x4x64xf32> attributes {llmc.quantized_tables = ["model.embed_tokens.weight"], llmc.keeps_float_weights} {
  %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %t = top.Weight "model.embed_tokens.weight" : () -> tensor<128x64xf32>
  %y = top.Gather %t, %ids : (tensor<128x64xf32>, tensor<1x4xi32>) -> tensor<1x4x64xf32>
  return %y : tensor<1x4x64xf32>
}
