// llmc eval --quantize runs the top interpreter on the weights a binary of
// the mode holds; tools/quant/quant_error.py measures the error.
// RUN: llmc eval -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --input-ids 5,6,7 --max-new-tokens 2 --quantize W4BF16 --asymmetric --q-group-size 32 | FileCheck %s
// RUN: llmc eval -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --input-ids 5,6,7 --max-new-tokens 2 --quantize W8F16 --qtable %S/eval_qtable.txt | FileCheck %s
// RUN: not llmc eval -m %refdata/models/tiny-qwen3 --input-ids 5 --quantize W3F16 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: llmc eval -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --input-ids 5,6,7 --max-new-tokens 2 --quantize W4F16 --q-group-size 48 | FileCheck %s
// RUN: llmc eval -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --input-ids 5,6,7 --max-new-tokens 2 --quantize W4F16 --q-group-size 48 2>&1 >/dev/null | FileCheck %s --check-prefix=FALLBACK
// RUN: not llmc eval -m %refdata/models/tiny-qwen3 -s 64 --max-input-length 16 --input-ids 5 --quantize INT8 2>&1 | FileCheck %s --check-prefix=INT8

// CHECK: {"generated":[{{[0-9]+}},{{[0-9]+}}],"prompt":[5,6,7]

// MODE: llmc: error: --quantize: unknown quantization mode 'W3F16'; valid modes: F32, F16, BF16, W8F16, W8BF16, W4F16, W4BF16

// A group size that divides no K falls back (lower_group_fallback.mlir),
// said once for each weight however many pieces read it; INT8 without a
// calibration table cannot lower.
// FALLBACK: llmc: warning: group size 48 does not divide K = 256 of 'model.layers.0.self_attn.q_proj.weight'; it is quantized in groups of 32
// FALLBACK-NOT: of 'model.layers.0.self_attn.q_proj.weight'

// INT8: llmc: error: {{.*}}calibration
