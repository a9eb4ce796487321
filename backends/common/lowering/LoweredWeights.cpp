//===- LoweredWeights.cpp - run top pieces on a lowering's weights --------===//

#include "backends/common/lowering/LoweredWeights.h"

#include "backends/common/lowering/Passes.h"
#include "backends/common/quant/DerivedWeightName.h"
#include "dialects/top/IR/TopOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace llmc::lowering {

static llvm::Error loweringError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// How the lowered piece reads each source weight: the derivation of the
/// values it computes with, or "" for the source as it is.
static llvm::Expected<llvm::StringMap<std::string>>
collectDerivations(ModuleOp lowered) {
  llvm::StringMap<std::string> derivations;
  std::optional<std::string> conflict;
  lowered.walk([&](top::WeightOp weight) {
    if (weight->use_empty())
      return;
    std::string source = weight.getName().str();
    std::string derivation;
    if (std::optional<quant::DerivedWeightName> derived =
            quant::DerivedWeightName::parse(source)) {
      source = derived->source;
      derivation = derived->derivation.str();
    } else {
      Type element = weight.getType().getElementType();
      if (element.isF16())
        derivation = quant::Derivation::rounded(quant::FloatType::F16).str();
      else if (element.isBF16())
        derivation = quant::Derivation::rounded(quant::FloatType::BF16).str();
    }
    auto [entry, inserted] = derivations.try_emplace(source, derivation);
    if (!inserted && entry->second != derivation && !conflict)
      conflict = "the lowering reads weight '" + source + "' both as '" +
                 (entry->second.empty() ? "f32" : entry->second) +
                 "' and as '" + (derivation.empty() ? "f32" : derivation) + "'";
  });
  if (conflict)
    return loweringError(*conflict);
  return derivations;
}

llvm::Error retargetToLoweredWeights(ModuleOp module,
                                     const LoweringOptions &options,
                                     std::vector<std::string> *warnings) {
  MLIRContext *context = module.getContext();
  OwningOpRef<ModuleOp> lowered = module.clone();
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
        diagnostics += (diagnostics.empty() ? "" : "; ") + diagnostic.str();
      else if (diagnostic.getSeverity() == DiagnosticSeverity::Warning &&
               warnings)
        warnings->push_back(diagnostic.str());
      return success();
    });
    PassManager pm(context);
    buildTopToTpuPipeline(pm, options);
    if (failed(pm.run(*lowered)))
      return loweringError("cannot lower to " +
                           stringifyQuantMode(options.mode) + ": " +
                           diagnostics);
  }
  llvm::Expected<llvm::StringMap<std::string>> derivations =
      collectDerivations(*lowered);
  if (!derivations)
    return derivations.takeError();
  module.walk([&](top::WeightOp weight) {
    auto found = derivations->find(weight.getName());
    if (found != derivations->end() && !found->second.empty())
      weight.setName((weight.getName() + "#" + found->second).str());
  });
  return llvm::Error::success();
}

} // namespace llmc::lowering
