// RUN: %python %runfiles/tools/onnx/export_onnx.py -m %refdata/models/tiny-qwen3 -o %t/qwen3 --layout pieces -s 64 --max-input-length 16 > /dev/null
// RUN: llmc-translate --import-onnx %t/qwen3/block_0.onnx | llmc-opt --top-raise-primitives --canonicalize | FileCheck %s --check-prefix=PREFILL
// RUN: llmc-translate --import-onnx %t/qwen3/block_cache_0.onnx | llmc-opt --top-raise-primitives --canonicalize | FileCheck %s --check-prefix=DECODE
// RUN: %python %runfiles/tools/onnx/export_onnx.py -m %refdata/models/tiny-qwen2 -o %t/qwen2 --layout pieces -s 64 --max-input-length 16 --opset 13 > /dev/null
// RUN: llmc-translate --import-onnx %t/qwen2/block_0.onnx | llmc-opt --top-raise-primitives --canonicalize | FileCheck %s --check-prefix=QWEN2
// RUN: llmc-translate --import-onnx %t/qwen2/lm_head.onnx | llmc-opt --top-raise-primitives --canonicalize | FileCheck %s --check-prefix=HEAD

// Blocks exported by PyTorch from Hugging Face's eager code (the per-piece
// layout of TPU toolchains) import and raise to the fused ops the graph
// builder emits: no primitive of a norm, rotary embedding, attention or
// MLP is left.

// Qwen3 prefill: input norm, q/k norms per head, rotary on q and k, GQA
// attention of 8 query heads over 2 KV heads, post-attention norm, MLP.
// PREFILL-LABEL: func.func @main
// PREFILL-SAME: -> (tensor<1x16x256xf32> {llmc.role = "hidden_out"}, tensor<1x16x2x64xf32> {llmc.role = "new_k"}, tensor<1x16x2x64xf32> {llmc.role = "new_v"})
// PREFILL: %[[H:.*]] = top.Input %{{.*}} {role = "hidden"}
// PREFILL: %[[POS:.*]] = top.Input %{{.*}} {role = "position_ids"}
// PREFILL: %[[MASK:.*]] = top.Input %{{.*}} {role = "mask"}
// PREFILL: %[[X:.*]] = top.RMSNorm %[[H]], %{{.*}} {eps = 9.9999999999999995E-7 : f64}
// PREFILL: %[[QN:.*]] = top.RMSNorm %{{.*}} : (tensor<1x16x8x64xf32>, tensor<64xf32>) -> tensor<1x16x8x64xf32>
// PREFILL: %[[KN:.*]] = top.RMSNorm %{{.*}} : (tensor<1x16x2x64xf32>, tensor<64xf32>) -> tensor<1x16x2x64xf32>
// PREFILL: %[[COS:.*]] = top.Gather %{{.*}}, %[[POS]]
// PREFILL: %[[SIN:.*]] = top.Gather %{{.*}}, %[[POS]]
// PREFILL: %[[Q:.*]] = top.Rope %[[QN]], %[[COS]], %[[SIN]]
// PREFILL: %[[K:.*]] = top.Rope %[[KN]], %[[COS]], %[[SIN]]
// PREFILL: %[[A:.*]] = top.FAttention %[[Q]], %[[K]], %[[V:.*]], %[[MASK]] {head_dim = 64 : i64, kv_head = 2 : i64, q_head = 8 : i64, scale = 1.250000e-01 : f64}
// PREFILL: top.RMSNorm
// PREFILL: top.MLP
// PREFILL: return %{{.*}}, %[[K]], %[[V]]
// PREFILL-NOT: top.Pow
// PREFILL-NOT: top.Softmax
// PREFILL-NOT: top.Sigmoid
// PREFILL-NOT: top.Slice

// Decode joins the history and the new keys tokens-first, as the graph
// builder's decode block does.
// DECODE: %[[HK:.*]] = top.Input %{{.*}} {role = "history_k"} : (tensor<1x64x2x64xf32>)
// DECODE: %[[HV:.*]] = top.Input %{{.*}} {role = "history_v"}
// DECODE: %[[Q:.*]] = top.Rope %{{.*}} -> tensor<1x1x8x64xf32>
// DECODE: %[[K:.*]] = top.Rope %{{.*}} -> tensor<1x1x2x64xf32>
// DECODE: %[[KS:.*]] = top.Concat %[[HK]], %[[K]] {axis = 1 : i64} : (tensor<1x64x2x64xf32>, tensor<1x1x2x64xf32>) -> tensor<1x65x2x64xf32>
// DECODE: %[[VS:.*]] = top.Concat %[[HV]], %{{.*}} {axis = 1 : i64}
// DECODE: top.FAttention %[[Q]], %[[KS]], %[[VS]], %{{.*}} : (tensor<1x1x8x64xf32>, tensor<1x65x2x64xf32>, tensor<1x65x2x64xf32>, tensor<1x1x65xf32>) -> tensor<1x1x512xf32>
// DECODE-NOT: top.Permute %{{.*}} {order = array<i64: 0, 2, 1, 3>}

// Qwen2 at opset 13: biased q/k/v projections, no q/k norms.
// QWEN2: top.RMSNorm
// QWEN2: top.MatMul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x16x256xf32>, tensor<256x256xf32>, none)
// QWEN2-NEXT: top.Weight "model.layers.0.self_attn.q_proj.bias"
// QWEN2-NEXT: top.Add
// QWEN2: top.Rope
// QWEN2: top.Rope
// QWEN2: top.FAttention
// QWEN2: top.RMSNorm
// QWEN2: top.MLP
// QWEN2-NOT: top.Softmax

// HEAD: %[[N:.*]] = top.RMSNorm %{{.*}} : (tensor<1x256xf32>, tensor<256xf32>) -> tensor<1x256xf32>
// HEAD: top.MatMul %[[N]], %{{.*}} : (tensor<1x256xf32>, tensor<256x512xf32>, none) -> tensor<1x512xf32>

// RUN: %python %runfiles/tools/onnx/export_onnx.py -m %refdata/models/tiny-llama -o %t/decoder --layout decoder > /dev/null
// RUN: llmc-translate --import-onnx %t/decoder/decoder.onnx --onnx-input-shape=input_ids=1x8 --onnx-input-shape=position_ids=1x8 | llmc-opt --top-raise-primitives --canonicalize | FileCheck %s --check-prefix=DECODER

// A whole-decoder export (dynamic T, the causal mask built in the graph from
// Shape, Range and Less) imports at a given T; each layer raises.
// DECODER: %[[IDS:.*]] = top.Input %{{.*}} {role = "input_ids"} : (tensor<1x8xi64>)
// DECODER: top.Gather %{{.*}}, %[[IDS]]
// DECODER-COUNT-4: top.FAttention
// DECODER: top.RMSNorm
// DECODER: top.MatMul {{.*}} -> tensor<1x8x512xf32>
// DECODER-NOT: top.Softmax
// DECODER-NOT: top.Range
