//===- PieceCompiler.cpp - one piece from top to its command stream -------===//

#include "backends/common/compile/PieceCompiler.h"

#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace llmc::compile {

func::FuncOp getPieceFunction(ModuleOp module) {
  auto functions = module.getOps<func::FuncOp>();
  return functions.empty() ? func::FuncOp() : *functions.begin();
}

llvm::Error lowerAndPlace(ModuleOp module, const plugins::BackendPlugin &backend,
                          const lowering::LoweringOptions &options) {
  PassManager pm(module.getContext());
  if (llvm::Error error = backend.buildLoweringPipeline(pm, options))
    return error;
  pm.addNestedPass<func::FuncOp>(tpu::createTpuFoldIOCastsPass());
  tpu::TpuAddressAssignPassOptions placement;
  placement.lanes = backend.getDescriptor().npuLanes;
  pm.addNestedPass<func::FuncOp>(tpu::createTpuAddressAssignPass(placement));
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": " << diag << "\n";
    return success();
  });
  if (failed(pm.run(module)))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "compiling " + (module.getSymName() ? *module.getSymName() : "piece") +
            " for " + backend.getDescriptor().id + " failed:\n" + diagnostics);
  return llvm::Error::success();
}

std::vector<WeightUse> collectWeights(ModuleOp module) {
  std::vector<WeightUse> uses;
  llvm::StringSet<> seen;
  module.walk([&](top::WeightOp weight) {
    if (weight->use_empty() || !seen.insert(weight.getName()).second)
      return;
    uses.push_back({weight.getName().str(),
                    cast<RankedTensorType>(weight.getType())});
  });
  return uses;
}

} // namespace llmc::compile
