// The pieces of a Qwen3 checkpoint: per-head q/k RMSNorm before the rotary
// embedding, explicit head_dim (64 with hidden 256 and 8 heads), tied LM head.
// RUN: llmc pieces -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --piece block.1.decode --print-locations | FileCheck %s --check-prefix=DECODE
// RUN: llmc pieces -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --piece lm_head | FileCheck %s --check-prefix=HEAD
// RUN: llmc pieces -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --list | FileCheck %s --check-prefix=LIST

// DECODE-LABEL: func.func @block_1_decode(
// DECODE: %[[Q:.*]] = top.MatMul {{.*}} -> tensor<1x1x512xf32> "model.layers.1.self_attn.q_proj"
// DECODE-NOT: q_proj.bias
// DECODE: %[[QH:.*]] = top.Reshape %[[Q]] : (tensor<1x1x512xf32>) -> tensor<1x1x8x64xf32>
// DECODE: %[[QN:.*]] = top.RMSNorm %[[QH]], %{{.*}} {eps = {{.*}}} : (tensor<1x1x8x64xf32>, tensor<64xf32>) -> tensor<1x1x8x64xf32> "model.layers.1.self_attn.q_norm"
// DECODE: top.RMSNorm {{.*}} "model.layers.1.self_attn.k_norm"
// DECODE: %[[COS:.*]] = top.Weight "llmc.rope.cos" : () -> tensor<64x64xf32>
// DECODE: top.Rope %[[QN]]
// DECODE: top.FAttention {{.*}} {head_dim = 64 : i64, kv_head = 2 : i64, q_head = 8 : i64, scale = 1.250000e-01 : f64}

// The tied LM head projects with the token embedding.
// HEAD-LABEL: func.func @lm_head
// HEAD-NOT: lm_head.weight
// HEAD: top.Weight "model.embed_tokens.weight" : () -> tensor<512x256xf32>

// LIST: embed.prefill: input_ids[1x16xi32] -> hidden[1x16x256xf32] (1 weights)
// LIST: block.0.prefill: hidden[1x16x256xf32], position_ids[1x16xi32], mask[1x16x16xf32] -> hidden[1x16x256xf32], new_k[1x16x2x64xf32], new_v[1x16x2x64xf32] (13 weights)
// LIST: block.3.decode: {{.*}} history_k[1x64x2x64xf32], history_v[1x64x2x64xf32] -> hidden[1x1x256xf32], new_k[1x1x2x64xf32], new_v[1x1x2x64xf32] (13 weights)
// LIST: lm_head: hidden[1x256xf32] -> logits[1x512xf32] (2 weights)
// LIST: greedy_head: logits[1x512xf32] -> token[1x1xi32] (0 weights)
// LIST: sample_head: logits[1x512xf32], recent_ids[1x64xi32], penalty[1x1xf32], temperature[1x1xf32], top_p[1x1xf32], top_k[1x1xi32] -> probs[1x50xf32], token_ids[1x50xi32] (0 weights)
