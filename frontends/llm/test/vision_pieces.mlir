// The vision pieces of the two vision-language families, as the graph
// builder builds them from the checkpoints' configs.
// RUN: llmc pieces -m %refdata/vlm/models/tiny-internvl --piece vision | FileCheck %s --check-prefix=INTERNVL
// RUN: llmc pieces -m %refdata/vlm/models/tiny-minicpmv --piece vision | FileCheck %s --check-prefix=MINICPMV

// InternViT on one 112-pixel tile: 8 x 8 patches of 14 unfolded for the
// patch embedding (the kernel read as a MatMul weight), the class token,
// attention without a mask, pixel shuffle and mlp1: 16 embeddings.
// INTERNVL-LABEL: func.func @vision(%arg0: tensor<1x3x112x112xf32>) -> (tensor<1x16x128xf32> {llmc.role = "vision_embeds"}) attributes {llmc.float_by_default}
// INTERNVL: top.Input %arg0 {role = "pixel_values"}
// INTERNVL: top.Permute %{{.*}} {order = array<i64: 0, 2, 4, 1, 3, 5>} : (tensor<1x3x8x14x8x14xf32>) -> tensor<1x8x8x3x14x14xf32>
// INTERNVL: top.Weight "vision_model.embeddings.patch_embedding.weight" : () -> tensor<64x588xf32>
// INTERNVL: top.Concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x1x64xf32>, tensor<1x64x64xf32>) -> tensor<1x65x64xf32>
// INTERNVL: top.LayerNorm
// INTERNVL: top.Slice %{{.*}} {ends = array<i64: 1, 65, 2, 4, 16>, starts = array<i64: 0, 0, 1, 0, 0>
// INTERNVL: top.FAttention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 16 : i64, kv_head = 4 : i64, q_head = 4 : i64, scale = 2.500000e-01 : f64} : ({{.*}}, none) -> tensor<1x65x64xf32>
// INTERNVL: top.Weight "vision_model.encoder.layers.0.ls1"
// INTERNVL: top.Permute %{{.*}} {order = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x128xf32>) -> tensor<1x4x8x128xf32>
// INTERNVL: top.Permute %{{.*}} {order = array<i64: 0, 2, 1, 3>} : (tensor<1x4x4x256xf32>) -> tensor<1x4x4x256xf32>
// INTERNVL: top.Weight "mlp1.0.weight"
// INTERNVL: top.Weight "mlp1.3.weight" : () -> tensor<128x128xf32>
// INTERNVL: return %{{.*}} : tensor<1x16x128xf32>

// SigLIP and the resampler on one padded picture of up to 81 patches, with
// its position ids, masks and key position embeddings as inputs; the
// resampler's fused projections split at load.
// MINICPMV-LABEL: func.func @vision(%arg0: tensor<1x3x14x1134xf32>, %arg1: tensor<1x81xi32>, %arg2: tensor<1x81x81xf32>, %arg3: tensor<1x81x256xf32>, %arg4: tensor<1x16x81xf32>) -> (tensor<1x16x256xf32> {llmc.role = "vision_embeds"}) attributes {llmc.float_by_default}
// MINICPMV: %[[IDS:.*]] = top.Input %arg1 {role = "position_ids"}
// MINICPMV: %[[MASK:.*]] = top.Input %arg2 {role = "patch_mask"}
// MINICPMV: %[[POS:.*]] = top.Input %arg3 {role = "position_embeds"}
// MINICPMV: %[[QMASK:.*]] = top.Input %arg4 {role = "query_mask"}
// MINICPMV: top.Permute %{{.*}} {order = array<i64: 0, 3, 1, 2, 4>} : (tensor<1x3x14x81x14xf32>) -> tensor<1x81x3x14x14xf32>
// MINICPMV: %[[TABLE:.*]] = top.Weight "vpm.embeddings.position_embedding.weight" : () -> tensor<400x64xf32>
// MINICPMV: top.Gather %[[TABLE]], %[[IDS]]
// MINICPMV: top.Weight "vpm.encoder.layers.0.self_attn.q_proj.weight"
// MINICPMV: top.Weight "vpm.encoder.layers.0.self_attn.k_proj.weight"
// MINICPMV: top.Weight "vpm.encoder.layers.0.self_attn.v_proj.weight"
// MINICPMV: top.FAttention %{{.*}}, %{{.*}}, %{{.*}}, %[[MASK]]
// MINICPMV: top.GELU %{{.*}} {approximation = #top<gelu_approximation tanh>}
// MINICPMV: top.Weight "vpm.post_layernorm.weight"
// MINICPMV: top.Weight "resampler.kv_proj.weight" : () -> tensor<256x64xf32>
// MINICPMV: top.Weight "resampler.query" : () -> tensor<1x16x256xf32>
// MINICPMV: top.Add %{{.*}}, %[[POS]]
// MINICPMV: top.Weight "llmc.resampler.q_proj.weight"
// MINICPMV: top.Weight "llmc.resampler.k_proj.weight"
// MINICPMV: top.Weight "llmc.resampler.v_proj.weight"
// MINICPMV: top.FAttention %{{.*}}, %{{.*}}, %{{.*}}, %[[QMASK]] {head_dim = 128 : i64, kv_head = 2 : i64, q_head = 2 : i64
// MINICPMV: top.Weight "llmc.resampler.proj.weight" : () -> tensor<256x256xf32>
// MINICPMV: return %{{.*}} : tensor<1x16x256xf32>
