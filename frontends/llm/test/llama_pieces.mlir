// The pieces of a Llama checkpoint (no biases, untied LM head).
// RUN: llmc pieces -m %refdata/models/tiny-llama -s 64 --max-input-length 16 --piece embed.prefill --piece embed.decode | FileCheck %s --check-prefix=EMBED
// RUN: llmc pieces -m %refdata/models/tiny-llama -s 64 --max-input-length 16 --piece block.2.prefill --print-locations | FileCheck %s --check-prefix=PREFILL
// RUN: llmc pieces -m %refdata/models/tiny-llama -s 64 --max-input-length 16 --piece lm_head --piece greedy_head | FileCheck %s --check-prefix=HEAD

// EMBED-LABEL: func.func @embed_prefill(%arg0: tensor<1x16xi32>) -> (tensor<1x16x256xf32> {llmc.role = "hidden"})
// EMBED: %[[IDS:.*]] = top.Input %arg0 {role = "input_ids"}
// EMBED: %[[TABLE:.*]] = top.Weight "model.embed_tokens.weight" : () -> tensor<512x256xf32>
// EMBED: top.Gather %[[TABLE]], %[[IDS]] : (tensor<512x256xf32>, tensor<1x16xi32>) -> tensor<1x16x256xf32>
// EMBED-LABEL: func.func @embed_decode(%arg0: tensor<1x1xi32>)
// EMBED: top.Gather {{.*}} -> tensor<1x1x256xf32>

// PREFILL-LABEL: func.func @block_2_prefill(
// PREFILL-SAME: tensor<1x16x256xf32> "hidden", %{{.*}}: tensor<1x16xi32> "position_ids", %{{.*}}: tensor<1x16x16xf32> "mask")
// PREFILL-SAME: {llmc.role = "new_k"}
// PREFILL-NOT: history_k
// PREFILL: %[[NONE:.*]] = top.None
// PREFILL: top.RMSNorm {{.*}} "model.layers.2.input_layernorm"
// PREFILL: %[[Q:.*]] = top.MatMul %{{.*}}, %{{.*}}, %[[NONE]] {right_transpose = true} : (tensor<1x16x256xf32>, tensor<256x256xf32>, none) -> tensor<1x16x256xf32> "model.layers.2.self_attn.q_proj"
// PREFILL: top.MatMul {{.*}} -> tensor<1x16x64xf32> "model.layers.2.self_attn.k_proj"
// PREFILL-NOT: q_norm
// PREFILL: top.Rope {{.*}} : (tensor<1x16x8x32xf32>, tensor<1x16x32xf32>, tensor<1x16x32xf32>) -> tensor<1x16x8x32xf32>
// PREFILL-NOT: top.Concat
// PREFILL: top.FAttention {{.*}} {head_dim = 32 : i64, kv_head = 2 : i64, q_head = 8 : i64, scale = 0.176776{{[0-9]*}} : f64} : (tensor<1x16x8x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x2x32xf32>, tensor<1x16x16xf32>) -> tensor<1x16x256xf32>
// PREFILL: top.MatMul {{.*}} "model.layers.2.self_attn.o_proj"
// PREFILL: top.Add
// PREFILL: top.MLP {{.*}} : (tensor<1x16x256xf32>, tensor<768x256xf32>, tensor<768x256xf32>, tensor<256x768xf32>) -> tensor<1x16x256xf32>
// PREFILL: top.Add

// HEAD-LABEL: func.func @lm_head(%arg0: tensor<1x256xf32>) -> (tensor<1x512xf32> {llmc.role = "logits"})
// HEAD: top.Weight "model.norm.weight"
// HEAD: top.Weight "lm_head.weight" : () -> tensor<512x256xf32>
// HEAD: top.MatMul {{.*}} {right_transpose = true} : (tensor<1x256xf32>, tensor<512x256xf32>, none) -> tensor<1x512xf32>
// HEAD-LABEL: func.func @greedy_head(%arg0: tensor<1x512xf32>) -> (tensor<1x1xi32> {llmc.role = "token"})
// HEAD: top.Arg %{{.*}} {axis = 1 : i64} : (tensor<1x512xf32>) -> tensor<1x1xi32>
