//===- PieceCompiler.h - one piece from top to its command stream -*- C++ -*-===//
//
// The stages of a piece's compilation, for the model compiler and tests:
// lower the top module with the backend's pipeline and place its values
// (tpu-address-assign), list the weights it reads, then (once the binary's
// weight layout is known) generate its command stream.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_COMPILE_PIECECOMPILER_H
#define LLMC_BACKENDS_COMMON_COMPILE_PIECECOMPILER_H

#include "backends/common/lowering/LoweringOptions.h"
#include "plugins/Plugin.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace llmc::compile {

/// How a lowered piece's values are placed in global memory.
struct PlacementOptions {
  /// Never reuse a value's range, so that every value can be read back
  /// after a run (tpu-address-assign's keep-values); a binary's pieces
  /// reuse them.
  bool keepEveryValue = false;
};

/// Lowers `module` (one top piece) to tpu for `backend` and places it. The
/// piece exchanges its float inputs and outputs in its compute type
/// (tpu-fold-io-casts), but for the logits. Errors carry the pass
/// diagnostics; the passes' warnings are added to `warnings` when given.
llvm::Error lowerAndPlace(mlir::ModuleOp module,
                          const plugins::BackendPlugin &backend,
                          const lowering::LoweringOptions &options,
                          std::vector<std::string> *warnings = nullptr,
                          const PlacementOptions &placement = {});

struct WeightUse {
  std::string name;
  mlir::RankedTensorType type;
  /// A constant's packed elements (codegen::packConstant); empty for a
  /// checkpoint weight.
  std::vector<uint8_t> constant;
};

/// The weights and constants a lowered piece reads, in first-use order,
/// each once.
std::vector<WeightUse> collectWeights(mlir::ModuleOp module);

/// The piece's single function.
mlir::func::FuncOp getPieceFunction(mlir::ModuleOp module);

} // namespace llmc::compile

#endif // LLMC_BACKENDS_COMMON_COMPILE_PIECECOMPILER_H
