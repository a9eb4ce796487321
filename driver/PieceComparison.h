//===- PieceComparison.h - every op of a piece, device against reference -*- C++ -*-===//
//
// Per-op bisection of a compiled piece, as TPU-MLIR users compare every
// tensor of a deployed model with the original: the piece is compiled for a
// chip with every value kept in memory (no range reused), run on the chip's
// device, and each value is read back and compared with the same op's
// output in the top interpreter running the reference (the weights the
// binary holds, in f32) on the same inputs. Ops are matched by their
// source names, the NameLocs the frontends attach.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_DRIVER_PIECECOMPARISON_H
#define LLMC_DRIVER_PIECECOMPARISON_H

#include "backends/common/lowering/LoweringOptions.h"
#include "dialects/top/Interpreter/Tensor.h"
#include "plugins/Plugin.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llmc::driver {

/// One output of one source op.
struct OpComparison {
  /// The source name (`model.layers.0.self_attn.q_proj`); a second or later
  /// result of an op adds `#<index>`.
  std::string name;
  /// The reference op (`top.MatMul`) and the device op computing the value
  /// (`tpu.A16MatMul`; empty when the device has no op of this name).
  std::string referenceOp;
  std::string deviceOp;
  top::Tensor reference;
  /// The device's values; std::nullopt when they were not read (`note`
  /// says why).
  std::optional<top::Tensor> device;
  /// For floats: the cosine similarity and the largest |device - reference|.
  /// For integers: 1 or 0, and the number of elements that differ.
  double cosine = 1;
  double maxError = 0;
  /// The largest |reference| (0 for integers), to read maxError against.
  double maxReference = 0;
  bool pastTolerance = false;
  std::string note;
};

struct PieceComparison {
  std::vector<OpComparison> ops;
  /// The cosine every float output must reach.
  double minCosine = 1;
  /// The index in `ops` of the first output past tolerance.
  std::optional<size_t> firstPastTolerance;
};

struct ComparisonOptions {
  /// The lowest cosine similarity an output may have; 0 means the mode's
  /// piece tolerance (lowering::getMinPieceCosine).
  double minCosine = 0;
  /// Called on the lowered, placed module before its stream is generated;
  /// tests break a lowering here to see the comparison find it.
  std::function<void(mlir::ModuleOp)> afterLowering;
};

/// Compiles `piece` (a top module, left unchanged) for `backend` in
/// `lowering`'s mode and compares each op's output on the backend's device
/// with the reference's, both run on `inputs` (one per argument). `weights`
/// serves the weights in the form the mode stores them (a
/// quant::DerivedWeightSource). INT8 needs `lowering.calibration`.
llvm::Expected<PieceComparison>
comparePiece(mlir::ModuleOp piece, const plugins::BackendPlugin &backend,
             const plugins::WeightSource &weights,
             const lowering::LoweringOptions &lowering,
             llvm::ArrayRef<top::Tensor> inputs,
             const ComparisonOptions &options = {});

} // namespace llmc::driver

#endif // LLMC_DRIVER_PIECECOMPARISON_H
