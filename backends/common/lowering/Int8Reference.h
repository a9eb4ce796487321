//===- Int8Reference.h - top pieces computing as INT8 does -----*- C++ -*-===//
//
// The reference of an INT8 binary is the top interpreter computing in f32
// on the values the chip computes with: the per-channel 8-bit weights
// dequantized (LoweredWeights.h) and every activation an INT8 op quantizes
// rounded to its 8-bit grid by a top.FakeQuant. Gated MLPs are decomposed
// into their three Linear layers so the intermediate can be rounded too:
//
//   top.MLP "layers.0.mlp"(x, gate, up, down)
//     ->  h = act(MatMul "layers.0.mlp"(FQ(x), gate)) *
//             MatMul "layers.0.mlp"(FQ(x), up)
//         MatMul "model.layers.0.mlp.down_proj"(FQ(h), down)
//
// The decomposition alone (decomposeMLPs) is what calibration runs: then
// every tensor INT8 quantizes is the input of a Linear top.MatMul whose
// location name is the tensor's calibration-table name.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_LOWERING_INT8REFERENCE_H
#define LLMC_BACKENDS_COMMON_LOWERING_INT8REFERENCE_H

#include "backends/common/lowering/LoweringOptions.h"

#include "mlir/IR/BuiltinOps.h"

namespace llmc::lowering {

/// Replaces every gated top.MLP of `module` whose weights are Linear
/// weights by its Linear layers, located as above. Fails on an activation
/// top has no op for (ReLU).
llvm::Error decomposeMLPs(mlir::ModuleOp module);

/// The calibration-table name of the tensor a Linear `op` (a top.MatMul
/// reading a [N, K] weight transposed) quantizes, or "" for any other op.
std::string getQuantizedInputName(mlir::Operation *op);

/// Turns top piece `module` into the reference of its INT8 lowering under
/// `options`: weights renamed as retargetToLoweredWeights does, MLPs of
/// INT8 ops decomposed and top.FakeQuant in front of every Linear in INT8
/// mode. Fails naming a tensor the calibration table lacks.
llvm::Error buildInt8Reference(mlir::ModuleOp module,
                               const LoweringOptions &options);

} // namespace llmc::lowering

#endif // LLMC_BACKENDS_COMMON_LOWERING_INT8REFERENCE_H
