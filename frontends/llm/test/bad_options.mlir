// Options that do not fit give a clear error and a non-zero exit.
// RUN: not llmc pieces -m %refdata/models/tiny-llama -s 16 --max-input-length 16 --list 2>&1 | FileCheck %s --check-prefix=SEQ
// RUN: not llmc pieces -m %refdata/models/tiny-llama --piece block.9.decode 2>&1 | FileCheck %s --check-prefix=PIECE
// RUN: not llmc pieces -m %S/no-such-model --list 2>&1 | FileCheck %s --check-prefix=MISSING

// SEQ: error: {{.*}}tiny-llama: --seq-length (16) must exceed --max-input-length (16)
// PIECE: error: no piece named 'block.9.decode' in this model
// MISSING: error: {{.*}}no-such-model: not a checkpoint any linked frontend reads (tried: hf, gguf, onnx)
