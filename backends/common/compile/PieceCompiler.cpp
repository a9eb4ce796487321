//===- PieceCompiler.cpp - one piece from top to its command stream -------===//

#include "backends/common/compile/PieceCompiler.h"

#include "backends/common/codegen/GlobalViews.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"
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
                          const lowering::LoweringOptions &options,
                          std::vector<std::string> *warnings,
                          const PlacementOptions &placement) {
  PassManager pm(module.getContext());
  if (llvm::Error error = backend.buildLoweringPipeline(pm, options))
    return error;
  pm.addNestedPass<func::FuncOp>(tpu::createTpuFoldIOCastsPass());
  tpu::TpuAddressAssignPassOptions addresses;
  addresses.lanes = backend.getDescriptor().npuLanes;
  addresses.keepValues = placement.keepEveryValue;
  pm.addNestedPass<func::FuncOp>(tpu::createTpuAddressAssignPass(addresses));
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Warning && warnings) {
      warnings->push_back(diag.str());
      return success();
    }
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
  module.walk([&](Operation *op) {
    if (op->getNumResults() != 1 || op->use_empty())
      return;
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (auto weight = dyn_cast<top::WeightOp>(op)) {
      if (seen.insert(weight.getName()).second)
        uses.push_back({weight.getName().str(), type, {}});
      return;
    }
    auto constant = dyn_cast<tpu::ConstantOp>(op);
    auto value =
        constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
    if (!value)
      return;
    std::vector<uint8_t> packed = codegen::packConstant(value);
    std::string name = codegen::getConstantName(packed);
    if (seen.insert(name).second)
      uses.push_back({std::move(name), type, std::move(packed)});
  });
  return uses;
}

} // namespace llmc::compile
