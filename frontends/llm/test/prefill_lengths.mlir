// Shorter prompt chunks get pieces of their own length beside L's: by default
// 16, 64, 256, ... below L; --prefill-lengths chooses others or none.
// RUN: llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 32 --list | FileCheck %s --check-prefix=AUTO
// RUN: llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 32 --prefill-lengths none --list | FileCheck %s --check-prefix=NONE
// RUN: llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --prefill-lengths 4,8 --piece block.1.prefill_kv.4 | FileCheck %s --check-prefix=KV4
// RUN: llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --prefill-lengths 4,8 --piece embed.prefill.8 | FileCheck %s --check-prefix=EMBED8
// RUN: not llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --prefill-lengths 4 --piece block.1.prefill_kv.8 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --prefill-lengths 8,4 --list 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --prefill-lengths 16 --list 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not llmc pieces -m %refdata/models/tiny-qwen2 -s 64 --max-input-length 16 --prefill-lengths 4,x --list 2>&1 | FileCheck %s --check-prefix=PARSE

// AUTO: embed.prefill
// AUTO-NEXT: embed.prefill.16
// AUTO-NEXT: embed.decode
// AUTO-NEXT: block.0.prefill
// AUTO-NEXT: block.0.prefill.16
// AUTO-NEXT: block.0.prefill_kv
// AUTO-NEXT: block.0.prefill_kv.16
// AUTO-NEXT: block.0.decode
// AUTO-NEXT: block.1.prefill

// NONE: embed.prefill
// NONE-NEXT: embed.decode
// NONE-NEXT: block.0.prefill
// NONE-NEXT: block.0.prefill_kv
// NONE-NEXT: block.0.decode

// A chunk of 4 after S - 4 = 60 history slots.
// KV4-LABEL: func.func @block_1_prefill_kv_4(
// KV4-SAME: %arg0: tensor<1x4x256xf32>, %arg1: tensor<1x4xi32>, %arg2: tensor<1x4x64xf32>, %arg3: tensor<1x60x2x32xf32>, %arg4: tensor<1x60x2x32xf32>)
// KV4: top.Input %arg3 {role = "history_k"}
// KV4: top.FAttention {{.*}} -> tensor<1x4x256xf32>
// KV4: return {{.*}} : tensor<1x4x256xf32>, tensor<1x4x2x32xf32>, tensor<1x4x2x32xf32>

// EMBED8-LABEL: func.func @embed_prefill_8(
// EMBED8: top.Gather {{.*}} -> tensor<1x8x256xf32>

// MISSING: error: no piece named 'block.1.prefill_kv.8' in this model
// ORDER: error: --prefill-lengths: prefill lengths must ascend without repeats (8 then 4)
// RANGE: error: --prefill-lengths: prefill length 16 is outside [1, 16): every one must be shorter than the max input length
// PARSE: error: --prefill-lengths: 'x' is not a length (give lengths such as 16,64, or auto, or none)
