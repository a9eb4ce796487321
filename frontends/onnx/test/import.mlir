// RUN: mkdir -p %t
// RUN: %python %S/make_onnx.py shape_arithmetic %t/shape.onnx
// RUN: llmc-translate --import-onnx %t/shape.onnx | FileCheck %s --check-prefix=SHAPE
// RUN: %python %S/make_onnx.py gather_and_where %t/gather.onnx
// RUN: llmc-translate --import-onnx %t/gather.onnx | FileCheck %s --check-prefix=GATHER
// RUN: %python %S/make_onnx.py dynamic_input %t/dynamic.onnx
// RUN: llmc-translate --import-onnx %t/dynamic.onnx --onnx-input-shape=x=3x4 | FileCheck %s --check-prefix=DYNAMIC
// RUN: %python %S/make_onnx.py rotary %t/rotary.onnx
// RUN: llmc-translate --import-onnx %t/rotary.onnx | FileCheck %s --check-prefix=ROTARY
// RUN: %python %S/make_onnx.py if_constant %t/if.onnx
// RUN: llmc-translate --import-onnx %t/if.onnx | FileCheck %s --check-prefix=IF

// The shape arithmetic (Shape, Gather, Unsqueeze, Concat) is folded while
// importing; only the tensor computation reaches top. Neg and Sub become
// MulConst -1 and Add, Reciprocal a Div of 1, a Slice end of INT64_MAX the
// dimension, and opset 18's ReduceMean reads its axes from an input.

// SHAPE-LABEL: func.func @main
// SHAPE-SAME: (%[[ARG:.*]]: tensor<1x4x8xf32>) -> (tensor<1x2x4xf32> {llmc.role = "mean"})
// SHAPE: %[[X:.*]] = top.Input %[[ARG]] {role = "x"}
// SHAPE-NEXT: %[[R:.*]] = top.Reshape %[[X]] : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32>
// SHAPE-NEXT: %[[T:.*]] = top.Permute %[[R]] {order = array<i64: 0, 2, 1, 3>}
// SHAPE-NEXT: %[[H:.*]] = top.Slice %[[T]] {ends = array<i64: 1, 2, 4, 4>, starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x2xf32>
// SHAPE-NEXT: %[[N:.*]] = top.MulConst %[[H]] {const_val = -1.000000e+00 : f64}
// SHAPE-NEXT: %[[NN:.*]] = top.MulConst %[[N]] {const_val = -1.000000e+00 : f64}
// SHAPE-NEXT: %[[D:.*]] = top.Add %[[H]], %[[NN]]
// SHAPE-NEXT: %[[S:.*]] = top.Sigmoid %[[D]]
// SHAPE-NEXT: %[[Q:.*]] = top.Sqrt %[[S]]
// SHAPE-NEXT: %[[ONE:.*]] = top.Constant dense<1.000000e+00> : tensor<f32>
// SHAPE-NEXT: %[[I:.*]] = top.Div %[[ONE]], %[[Q]]
// SHAPE-NEXT: %[[P:.*]] = top.Softmax %[[I]] :
// SHAPE-NEXT: %[[M:.*]] = top.ReduceMean %[[P]] {axes = array<i64: -1>, keepdims = false} : (tensor<1x2x4x2xf32>) -> tensor<1x2x4xf32>
// SHAPE-NEXT: return %[[M]]

// Float initializers are weights, read by name; a comparison gives i1.

// GATHER-LABEL: func.func @main
// GATHER: %[[IDS:.*]] = top.Input %{{.*}} {role = "ids"} : (tensor<1x3xi32>) -> tensor<1x3xi32>
// GATHER: %[[FILL:.*]] = top.Input %{{.*}} {role = "fill"}
// GATHER: %[[TABLE:.*]] = top.Weight "table" : () -> tensor<8x4xf32>
// GATHER: %[[ROWS:.*]] = top.Gather %[[TABLE]], %[[IDS]] : (tensor<8x4xf32>, tensor<1x3xi32>) -> tensor<1x3x4xf32>
// GATHER: %[[SAME:.*]] = top.Compare %[[ROWS]], %[[ROWS]] {mode = #top<compare_mode eq>} : {{.*}} -> tensor<1x3x4xi1>
// GATHER: top.Where %[[SAME]], %[[ROWS]], %[[FILL]]

// A dynamic input dimension takes the shape given on the command line.

// DYNAMIC: top.Sigmoid %{{.*}} : (tensor<3x4xf32>) -> tensor<3x4xf32>

// cos and sin computed from position_ids alone are evaluated as tables over
// 4096 positions while importing, named after the values, and gathered by
// position id; the Unsqueeze that moves the position axis runs on the
// gathered rows.

// ROTARY-LABEL: func.func @main
// ROTARY: %[[X:.*]] = top.Input %{{.*}} {role = "x"}
// ROTARY: %[[Y:.*]] = top.Input %{{.*}} {role = "y"}
// ROTARY: %[[POS:.*]] = top.Input %{{.*}} {role = "position_ids"}
// ROTARY-NEXT: %[[COS:.*]] = top.Weight "cos" : () -> tensor<4096x8xf32>
// ROTARY-NEXT: %[[C:.*]] = top.Gather %[[COS]], %[[POS]] : (tensor<4096x8xf32>, tensor<1x4xi64>) -> tensor<1x4x8xf32>
// ROTARY-NEXT: %[[CU:.*]] = top.Reshape %[[C]] : (tensor<1x4x8xf32>) -> tensor<1x1x4x8xf32>
// ROTARY-NEXT: top.Mul %[[X]], %[[CU]]
// ROTARY-NEXT: %[[SIN:.*]] = top.Weight "sin" : () -> tensor<4096x8xf32>
// ROTARY-NEXT: %[[S:.*]] = top.Gather %[[SIN]], %[[POS]]
// ROTARY-NEXT: top.Mul %[[Y]], %[[S]]
// ROTARY-NOT: top.Cos

// An If whose condition is known while importing imports the branch it
// takes, which reads the outer graph's values by name.

// IF-LABEL: func.func @main
// IF: %[[X:.*]] = top.Input %{{.*}} {role = "x"}
// IF-NEXT: %[[Y:.*]] = top.Sigmoid %[[X]]
// IF-NEXT: return %[[Y]]
// IF-NOT: top.MulConst
