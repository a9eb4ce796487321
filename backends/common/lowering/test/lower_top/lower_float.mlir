// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=F32 | FileCheck %s --check-prefix=F32
// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=F16 | FileCheck %s --check-prefix=F16
// RUN: llmc-opt %s --split-input-file --tpu-lower-top=mode=bf16 | FileCheck %s --check-prefix=BF16

// Float modes: every top op becomes its tpu op in the mode's element type.
// Piece inputs and outputs keep their f32 types, with tpu.Cast at the
// boundaries; float weights are read in the mode's type.

// F32-LABEL: func.func @linear
// F32-NOT: tpu.Cast
// F32: %[[W:.*]] = top.Weight "layers.0.proj.weight" : () -> tensor<32x64xf32>
// F32: tpu.MatMul %{{.*}}, %[[W]], %{{.*}} {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<1x4x32xf32>
// F32-NOT: tpu.Cast
// F32: return

// F16-LABEL: func.func @linear
// F16: %[[X:.*]] = top.Input %arg0 {role = "hidden"}
// F16-NEXT: %[[XH:.*]] = tpu.Cast %[[X]] : (tensor<1x4x64xf32>) -> tensor<1x4x64xf16>
// F16: %[[NW:.*]] = top.Weight "layers.0.norm.weight" : () -> tensor<64xf16>
// F16: %[[N:.*]] = tpu.RMSNorm %[[XH]], %[[NW]] {{.*}} : (tensor<1x4x64xf16>, tensor<64xf16>) -> tensor<1x4x64xf16>
// F16: %[[W:.*]] = top.Weight "layers.0.proj.weight" : () -> tensor<32x64xf16>
// F16: %[[B:.*]] = top.Weight "layers.0.proj.bias" : () -> tensor<32xf16>
// F16: %[[Y:.*]] = tpu.MatMul %[[N]], %[[W]], %[[B]] {right_transpose = true} : (tensor<1x4x64xf16>, tensor<32x64xf16>, tensor<32xf16>) -> tensor<1x4x32xf16>
// F16: %[[S:.*]] = tpu.SiLU %[[Y]] : (tensor<1x4x32xf16>) -> tensor<1x4x32xf16>
// F16: %[[R:.*]] = tpu.Reshape %[[S]] : (tensor<1x4x32xf16>) -> tensor<1x4x2x16xf16>
// F16: %[[RO:.*]] = tpu.Cast %[[R]] : (tensor<1x4x2x16xf16>) -> tensor<1x4x2x16xf32>
// F16: %[[XO:.*]] = tpu.Cast %[[N]] : (tensor<1x4x64xf16>) -> tensor<1x4x64xf32>
// F16: return %[[RO]], %[[XO]] : tensor<1x4x2x16xf32>, tensor<1x4x64xf32>

// BF16-LABEL: func.func @linear
// BF16: tpu.Cast %{{.*}} : (tensor<1x4x64xf32>) -> tensor<1x4x64xbf16>
// BF16: tpu.MatMul {{.*}} : (tensor<1x4x64xbf16>, tensor<32x64xbf16>, tensor<32xbf16>) -> tensor<1x4x32xbf16>
// BF16: tpu.Cast %{{.*}} : (tensor<1x4x2x16xbf16>) -> tensor<1x4x2x16xf32>
func.func @linear(%arg0: tensor<1x4x64xf32>) -> (tensor<1x4x2x16xf32>, tensor<1x4x64xf32>) {
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %nw = top.Weight "layers.0.norm.weight" : () -> tensor<64xf32>
  %n = top.RMSNorm %x, %nw {eps = 1.0e-6 : f64} : (tensor<1x4x64xf32>, tensor<64xf32>) -> tensor<1x4x64xf32>
  %w = top.Weight "layers.0.proj.weight" : () -> tensor<32x64xf32>
  %b = top.Weight "layers.0.proj.bias" : () -> tensor<32xf32>
  %y = top.MatMul %n, %w, %b {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<1x4x32xf32>
  %s = top.SiLU %y : (tensor<1x4x32xf32>) -> tensor<1x4x32xf32>
  %r = top.Reshape %s : (tensor<1x4x32xf32>) -> tensor<1x4x2x16xf32>
  return %r, %n : tensor<1x4x2x16xf32>, tensor<1x4x64xf32>
}

// -----

// The embedding table is read in the mode's type; the ids stay i32.

// F32-LABEL: func.func @embedding
// F32: tpu.Gather {{.*}} : (tensor<512x64xf32>, tensor<1x4xi32>) -> tensor<1x4x64xf32>

// F16-LABEL: func.func @embedding
// F16: %[[T:.*]] = top.Weight "model.embed_tokens.weight" : () -> tensor<512x64xf16>
// F16: %[[G:.*]] = tpu.Gather %[[T]], %{{.*}} : (tensor<512x64xf16>, tensor<1x4xi32>) -> tensor<1x4x64xf16>
// F16: %[[O:.*]] = tpu.Cast %[[G]] : (tensor<1x4x64xf16>) -> tensor<1x4x64xf32>
// F16: return %[[O]]
func.func @embedding(%arg0: tensor<1x4xi32>) -> tensor<1x4x64xf32> {
  %ids = top.Input %arg0 {role = "input_ids"} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %table = top.Weight "model.embed_tokens.weight" : () -> tensor<512x64xf32>
  %h = top.Gather %table, %ids {axis = 0 : i64} : (tensor<512x64xf32>, tensor<1x4xi32>) -> tensor<1x4x64xf32>
  return %h : tensor<1x4x64xf32>
}

// -----

// Selection keeps its input's element type: the greedy head picks from the
// f32 logits it receives, without a cast.

// F16-LABEL: func.func @greedy_head
// F16-NOT: tpu.Cast
// F16: tpu.Arg %{{.*}} {axis = 1 : i64} : (tensor<1x512xf32>) -> tensor<1x1xi32>
// F16-NOT: tpu.Cast
func.func @greedy_head(%arg0: tensor<1x512xf32>) -> tensor<1x1xi32> {
  %logits = top.Input %arg0 {role = "logits"} : (tensor<1x512xf32>) -> tensor<1x512xf32>
  %token = top.Arg %logits {axis = 1 : i64} : (tensor<1x512xf32>) -> tensor<1x1xi32>
  return %token : tensor<1x1xi32>
}

// -----

// Attention: every float input is cast once, however many ops use it.

// F16-LABEL: func.func @attention
// F16: %[[Q:.*]] = tpu.Cast %{{.*}} : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf16>
// F16: %[[M:.*]] = tpu.Cast %{{.*}} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf16>
// F16-NOT: tpu.Cast %{{.*}} : (tensor<1x4x8x16xf32>)
// F16: %[[A:.*]] = tpu.FAttention %[[Q]], %{{.*}}, %{{.*}}, %[[M]] {{.*}} -> tensor<1x4x128xf16>
// F16: %[[D:.*]] = tpu.Add %[[A]], %[[A]] : (tensor<1x4x128xf16>, tensor<1x4x128xf16>) -> tensor<1x4x128xf16>
// F16: tpu.MulConst %[[D]] {const_val = 5.000000e-01 : f64}
func.func @attention(%arg0: tensor<1x4x8x16xf32>, %arg1: tensor<1x4x4xf32>) -> tensor<1x4x128xf32> {
  %q = top.Input %arg0 {role = "hidden"} : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %mask = top.Input %arg1 {role = "mask"} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %a = top.FAttention %q, %q, %q, %mask {scale = 0.25 : f64, q_head = 8 : i64, kv_head = 8 : i64, head_dim = 16 : i64} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x4xf32>) -> tensor<1x4x128xf32>
  %d = top.Add %a, %a : (tensor<1x4x128xf32>, tensor<1x4x128xf32>) -> tensor<1x4x128xf32>
  %h = top.MulConst %d {const_val = 0.5 : f64} : (tensor<1x4x128xf32>) -> tensor<1x4x128xf32>
  return %h : tensor<1x4x128xf32>
}

// -----

// Gemma's soft caps: the FAttention attribute carries over; the logits'
// tanh is an op of its own.

// BF16-LABEL: func.func @soft_caps
// BF16: tpu.FAttention {{.*}} softcap = 5.000000e+01 : f64{{.*}} -> tensor<1x4x128xbf16>
// BF16: %[[T:.*]] = tpu.Tanh %{{.*}} : (tensor<1x4x128xbf16>) -> tensor<1x4x128xbf16>
// BF16: tpu.MulConst %[[T]] {const_val = 3.000000e+01 : f64}
func.func @soft_caps(%arg0: tensor<1x4x8x16xf32>) -> tensor<1x4x128xf32> {
  %q = top.Input %arg0 {role = "hidden"} : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %none = top.None : none
  %a = top.FAttention %q, %q, %q, %none {scale = 0.25 : f64, q_head = 8 : i64, kv_head = 8 : i64, head_dim = 16 : i64, causal = true, softcap = 50.0 : f64} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, none) -> tensor<1x4x128xf32>
  %s = top.MulConst %a {const_val = 0.03125 : f64} : (tensor<1x4x128xf32>) -> tensor<1x4x128xf32>
  %t = top.Tanh %s : (tensor<1x4x128xf32>) -> tensor<1x4x128xf32>
  %c = top.MulConst %t {const_val = 30.0 : f64} : (tensor<1x4x128xf32>) -> tensor<1x4x128xf32>
  return %c : tensor<1x4x128xf32>
}
