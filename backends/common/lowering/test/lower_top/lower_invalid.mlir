// RUN: not llmc-opt %s --tpu-lower-top=mode=W3F16 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not llmc-opt %s --tpu-lower-top="mode=W4F16 q-group-size=-2" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not llmc-opt %s --tpu-lower-top="mode=F16 qtable=%S/bad_qtable.txt" 2>&1 | FileCheck %s --check-prefix=QTABLE
// RUN: not llmc-opt %s --tpu-lower-top="mode=F16 qtable=%S/missing.txt" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not llmc-opt %s --tpu-lower-top-pipeline=mode=Q4_0 2>&1 | FileCheck %s --check-prefix=MODE

// MODE: error: tpu-lower-top: unknown quantization mode '{{W3F16|Q4_0}}'; valid modes: F32, F16, BF16, W8F16, W8BF16, W4F16, W4BF16

// NEGATIVE: error: tpu-lower-top: the quantization group size must be positive, or 0 for per-channel quantization; got -2

// QTABLE: error: tpu-lower-top: {{.*}}bad_qtable.txt:2: unknown quantization mode 'W3F16'; valid modes: F32,

// MISSING: error: tpu-lower-top: cannot read qtable '{{.*}}missing.txt':

func.func @linear(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x32xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %w = top.Weight "proj.weight" : () -> tensor<32x64xf32>
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, none) -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}
