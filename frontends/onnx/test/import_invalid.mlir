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
// RUN: %python %S/make_onnx.py huge_typed_initializer %t/huge_init.onnx
// RUN: not llmc-translate --import-onnx %t/huge_init.onnx 2>&1 | FileCheck %s --check-prefix=HUGE-INIT
// RUN: %python %S/make_onnx.py overflowing_initializer %t/overflow.onnx
// RUN: not llmc-translate --import-onnx %t/overflow.onnx 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: %python %S/make_onnx.py huge_range %t/range.onnx
// RUN: not llmc-translate --import-onnx %t/range.onnx 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: %python %S/make_onnx.py huge_constant %t/constant.onnx
// RUN: not llmc-translate --import-onnx %t/constant.onnx 2>&1 | FileCheck %s --check-prefix=CONSTANT
// RUN: %python %S/make_onnx.py position_sum %t/position_sum.onnx
// RUN: not llmc-translate --import-onnx %t/position_sum.onnx 2>&1 | FileCheck %s --check-prefix=POSITION-SUM
// RUN: %python %S/make_onnx.py if_computed %t/if_computed.onnx
// RUN: not llmc-translate --import-onnx %t/if_computed.onnx 2>&1 | FileCheck %s --check-prefix=IF-COMPUTED
// RUN: %python %S/make_onnx.py node_without_output %t/no_output.onnx
// RUN: not llmc-translate --import-onnx %t/no_output.onnx 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT

// Malformed or unsupported models: one clear error naming the file and the
// problem, and no output.

// NOT-ONNX: error: [[FILE]]: not an ONNX model (the protobuf does not parse)
// DYNAMIC: error: {{.*}}dynamic.onnx: input 'x' has the dynamic dimension 'batch'; give the input a static shape
// BAD-SHAPE: error: --onnx-input-shape: 'x=3by4' is not name=1x8x256
// NO-OP: error: {{.*}}erf.onnx: Erf node 'erf_0' is not an op the ONNX importer supports
// OUTSIDE: error: {{.*}}m.onnx: initializer 'w' has external location '../../etc/passwd' outside the model's directory
// SHORT: error: {{.*}}m.onnx: initializer 'w' reads bytes [8, 72) of 'short.bin', which has 40
// HUGE-INIT: error: {{.*}}huge_init.onnx: initializer 'w' holds 2 values, its shape 1099511627776
// OVERFLOW: error: {{.*}}overflow.onnx: initializer 'w' has dimensions whose product overflows int64
// RANGE: error: {{.*}}range.onnx: Range node 'range_0' makes a tensor with a negative dimension or more than 16777216 elements, too large to fold
// CONSTANT: error: {{.*}}constant.onnx: Constant node 'const_0' constant tensor 'c' has a negative dimension or more than 16777216 elements, more than the importer folds
// A value of the positions whose rows depend on every position is not
// tabulated: its ops reach the device, where Cos is not supported.
// POSITION-SUM: error: {{.*}}position_sum.onnx: Cos node 'cos_0' is not an op the ONNX importer supports
// IF-COMPUTED: error: {{.*}}if_computed.onnx: If node 'if_0' branches on a value not known while importing
// NO-OUTPUT: error: {{.*}}no_output.onnx: Sigmoid node 'sig_0' has no output
