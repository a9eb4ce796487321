// RUN: not llmc-opt %s --tpu-lower-top="mode=INT8 calibration-table=%S/int8_table.txt" 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not llmc-opt %s --tpu-lower-top=mode=INT8 2>&1 | FileCheck %s --check-prefix=NOTABLE
// RUN: not llmc-opt %s --tpu-lower-top="mode=INT8 calibration-table=%S/missing.txt" 2>&1 | FileCheck %s --check-prefix=MISSING

// A tensor the table does not list is an error naming it; the layer is not
// lowered silently in float.
// ENTRY: error: loc("layers.1.proj"): 'top.MatMul' op INT8 needs the calibrated range of 'layers.1.proj', which the calibration table '{{.*}}int8_table.txt' does not list
// ENTRY-NOT: error

// NOTABLE: error: tpu-lower-top: INT8 quantizes activations and needs a calibration table (llmc calibrate; --calibration-table)

// MISSING: error: tpu-lower-top: cannot read calibration table '{{.*}}missing.txt':

func.func @linear(%arg0: tensor<1x4x64xf32>) -> tensor<1x4x32xf32> {
  %none = top.None : none
  %x = top.Input %arg0 {role = "hidden"} : (tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %w = top.Weight "layers.1.proj.weight" : () -> tensor<32x64xf32>
  %y = top.MatMul %x, %w, %none {right_transpose = true} : (tensor<1x4x64xf32>, tensor<32x64xf32>, none) -> tensor<1x4x32xf32> loc("layers.1.proj")
  return %y : tensor<1x4x32xf32>
}
