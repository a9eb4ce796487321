// RUN: mkdir -p %t/outside %t/short
// RUN: %python %S/make_onnx.py not_onnx %t/not.onnx
// RUN: not llmc-translate --import-onnx %t/not.onnx 2>&1 | FileCheck %s --check-prefix=NOT-ONNX -DFILE=%t/not.onnx
// RUN: %python %S/make_onnx.py dynamic_input %t/dynamic.onnx
// RUN: not llmc-translate --import-onnx %t/dynamic.onnx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not llmc-translate --import-onnx %t/dynamic.onnx --onnx-input-shape=x=3by4 2>&1 | FileCheck %s --check-prefix=BAD-SHAPE
// RUN: %python %S/make_onnx.py unsupported_op %t/erf.onnx
// RUN: not llmc-translate --import-onnx %t/erf.onnx 2>&1 | FileCheck %s --check-prefix=NO-OP
// RUN: %python %S/make_onnx.py external_outside %t/outside/m.onnx
// RUN: not llmc-translate --import-onnx %t/outside/m.onnx 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: %python %S/make_onnx.py external_short %t/short/m.onnx
// RUN: not llmc-translate --import-onnx %t/short/m.onnx 2>&1 | FileCheck %s --check-prefix=SHORT

// Malformed or unsupported models: one clear error naming the file and the
// problem, and no output.

// NOT-ONNX: error: [[FILE]]: not an ONNX model (the protobuf does not parse)
// DYNAMIC: error: {{.*}}dynamic.onnx: input 'x' has the dynamic dimension 'batch'; give the input a static shape
// BAD-SHAPE: error: --onnx-input-shape: 'x=3by4' is not name=1x8x256
// NO-OP: error: {{.*}}erf.onnx: Erf node 'erf_0' is not an op the ONNX importer supports
// OUTSIDE: error: {{.*}}m.onnx: initializer 'w' has external location '../../etc/passwd' outside the model's directory
// SHORT: error: {{.*}}m.onnx: initializer 'w' reads bytes [8, 72) of 'short.bin', which has 40
