// The pieces of Gemma checkpoints (tests/families): the embedding scaled by
// sqrt(hidden), norms of 1 + w served as plain norms, norms after attention
// and the MLP, soft-capped scores and logits, and Gemma 3's sliding layers
// rotating from their own tables.
// RUN: llmc pieces -m %runfiles/tests/families/models/tiny-gemma2 -s 64 --max-input-length 16 --piece embed.decode | FileCheck %s --check-prefix=EMBED
// RUN: llmc pieces -m %runfiles/tests/families/models/tiny-gemma2 -s 64 --max-input-length 16 --piece block.0.decode | FileCheck %s --check-prefix=BLOCK
// RUN: llmc pieces -m %runfiles/tests/families/models/tiny-gemma2 -s 64 --max-input-length 16 --piece lm_head | FileCheck %s --check-prefix=HEAD
// RUN: llmc pieces -m %runfiles/tests/families/models/tiny-gemma3 -s 64 --max-input-length 16 --piece block.0.decode | FileCheck %s --check-prefix=SLIDING
// RUN: llmc pieces -m %runfiles/tests/families/models/tiny-gemma3 -s 64 --max-input-length 16 --piece block.1.decode | FileCheck %s --check-prefix=GLOBAL

// EMBED: %[[ROWS:.*]] = top.Gather
// EMBED: %[[SCALED:.*]] = top.MulConst %[[ROWS]] {const_val = 8.000000e+00 : f64}
// EMBED: return %[[SCALED]]

// BLOCK: top.Weight "llmc.norm_offset.model.layers.0.input_layernorm.weight"
// BLOCK: top.FAttention {{.*}} {head_dim = 32 : i64, kv_head = 1 : i64, q_head = 2 : i64, scale = 0.17677669529663687 : f64, softcap = 5.000000e+00 : f64}
// BLOCK: %[[O:.*]] = top.MatMul {{.*}} -> tensor<1x1x64xf32>
// BLOCK: %[[ON:.*]] = top.RMSNorm %[[O]], %{{.*}} {{.*}}
// BLOCK: top.Add %{{.*}}, %[[ON]]
// BLOCK: top.Weight "llmc.norm_offset.model.layers.0.pre_feedforward_layernorm.weight"
// BLOCK: %[[MLP:.*]] = top.MLP {{.*}} {activation = #top<activation gelu_tanh>}
// BLOCK: %[[MN:.*]] = top.RMSNorm %[[MLP]], %{{.*}} {{.*}}
// BLOCK: top.Add %{{.*}}, %[[MN]]

// HEAD: %[[LOGITS:.*]] = top.MatMul
// HEAD: %[[DOWN:.*]] = top.MulConst %[[LOGITS]] {const_val = 0.33333333333333331 : f64}
// HEAD: %[[BENT:.*]] = top.Tanh %[[DOWN]]
// HEAD: %[[CAPPED:.*]] = top.MulConst %[[BENT]] {const_val = 3.000000e+00 : f64}
// HEAD: return %[[CAPPED]]

// SLIDING: top.Weight "llmc.rope_sliding.cos"
// SLIDING-NOT: softcap
// GLOBAL: top.Weight "llmc.rope.cos"
