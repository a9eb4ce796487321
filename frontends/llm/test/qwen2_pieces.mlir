// The pieces of a Qwen2 checkpoint: q/k/v projections carry biases.
// RUN: llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --piece block.0.prefill_kv --print-locations | FileCheck %s --check-prefix=PREFILL-KV
// RUN: llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --piece block.3.decode | FileCheck %s --check-prefix=DECODE

// PREFILL-KV-LABEL: func.func @block_0_prefill_kv(
// PREFILL-KV-SAME: %arg2: tensor<1x16x64xf32> "mask", %arg3: tensor<1x48x2x32xf32> "history_k", %arg4: tensor<1x48x2x32xf32> "history_v")
// PREFILL-KV: %[[HK:.*]] = top.Input %arg3 {role = "history_k"}
// PREFILL-KV: %[[HV:.*]] = top.Input %arg4 {role = "history_v"}
// PREFILL-KV: %[[QB:.*]] = top.Weight "model.layers.0.self_attn.q_proj.bias" : () -> tensor<256xf32>
// PREFILL-KV: top.MatMul %{{.*}}, %{{.*}}, %[[QB]] {right_transpose = true}
// PREFILL-KV: %[[KB:.*]] = top.Weight "model.layers.0.self_attn.k_proj.bias" : () -> tensor<64xf32>
// PREFILL-KV: top.MatMul %{{.*}}, %{{.*}}, %[[KB]]
// PREFILL-KV: top.Reshape {{.*}} -> tensor<1x16x2x32xf32> "layers.0.k_heads"
// PREFILL-KV: %[[V:.*]] = top.Reshape {{.*}} -> tensor<1x16x2x32xf32> "layers.0.v_heads"
// PREFILL-KV: top.Rope {{.*}} "layers.0.q_rope"
// PREFILL-KV: %[[K:.*]] = top.Rope {{.*}} "layers.0.k_rope"
// PREFILL-KV: %[[KALL:.*]] = top.Concat %[[HK]], %[[K]] {axis = 1 : i64} : (tensor<1x48x2x32xf32>, tensor<1x16x2x32xf32>) -> tensor<1x64x2x32xf32>
// PREFILL-KV: %[[VALL:.*]] = top.Concat %[[HV]], %[[V]] {axis = 1 : i64}
// PREFILL-KV: top.FAttention %{{.*}}, %[[KALL]], %[[VALL]], %{{.*}} : ({{.*}}, tensor<1x16x64xf32>) -> tensor<1x16x256xf32>
// PREFILL-KV: return %{{.*}}, %[[K]], %[[V]]

// DECODE-LABEL: func.func @block_3_decode(
// DECODE-SAME: %arg0: tensor<1x1x256xf32>, %arg1: tensor<1x1xi32>, %arg2: tensor<1x1x65xf32>, %arg3: tensor<1x64x2x32xf32>, %arg4: tensor<1x64x2x32xf32>)
// DECODE-SAME: -> (tensor<1x1x256xf32> {llmc.role = "hidden"}, tensor<1x1x2x32xf32> {llmc.role = "new_k"}, tensor<1x1x2x32xf32> {llmc.role = "new_v"})
// DECODE: top.Weight "model.layers.3.self_attn.v_proj.bias"
// DECODE: top.Concat {{.*}} -> tensor<1x65x2x32xf32>
// DECODE: top.FAttention {{.*}} -> tensor<1x1x256xf32>
