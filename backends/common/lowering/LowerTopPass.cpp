//===- LowerTopPass.cpp - the tpu-lower-top pass --------------------------===//

#include "backends/common/lowering/Passes.h"

#include "backends/common/lowering/LoweringSupport.h"
#include "backends/common/lowering/TopToTpu.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <set>

namespace llmc::lowering {
#define GEN_PASS_DEF_TPULOWERTOPPASS
#include "backends/common/lowering/Passes.h.inc"
} // namespace llmc::lowering

using namespace mlir;
using llmc::lowering::LoweringOptions;

namespace {

/// Parses the pass options into LoweringOptions (reading the qtable and
/// calibration table).
llvm::Expected<LoweringOptions> parseOptions(llvm::StringRef mode,
                                             int64_t groupSize, bool asymmetric,
                                             llvm::StringRef qtable,
                                             llvm::StringRef calibrationTable) {
  LoweringOptions options;
  llvm::Expected<llmc::lowering::QuantMode> parsed =
      llmc::lowering::parseQuantMode(mode);
  if (!parsed)
    return parsed.takeError();
  options.mode = *parsed;
  options.groupSize = groupSize;
  options.asymmetric = asymmetric;
  if (!qtable.empty()) {
    llvm::Expected<std::vector<llmc::lowering::QTableRule>> rules =
        llmc::lowering::readQTableFile(qtable);
    if (!rules)
      return rules.takeError();
    options.qtable = std::move(*rules);
    options.qtablePath = qtable.str();
  }
  if (!calibrationTable.empty()) {
    llvm::Expected<llmc::quant::CalibrationTable> table =
        llmc::quant::CalibrationTable::read(calibrationTable);
    if (!table)
      return table.takeError();
    options.calibration =
        std::make_shared<llmc::quant::CalibrationTable>(std::move(*table));
    options.calibrationPath = calibrationTable.str();
  }
  return options;
}

/// Converts the values each function returns back to its declared result
/// types: piece outputs keep the types the graph builder gave them.
LogicalResult restoreResultTypes(func::FuncOp function) {
  if (function.isExternal())
    return success();
  WalkResult walked = function.walk([&](func::ReturnOp ret) {
    OpBuilder builder(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Type declared = function.getResultTypes()[operand.getOperandNumber()];
      Value value = operand.get();
      if (value.getType() == declared)
        continue;
      auto from = dyn_cast<RankedTensorType>(value.getType());
      auto to = dyn_cast<RankedTensorType>(declared);
      if (!from || !to || from.getShape() != to.getShape() ||
          !isa<FloatType>(from.getElementType()) ||
          !isa<FloatType>(to.getElementType())) {
        ret.emitOpError("returns ")
            << value.getType() << " where the function declares " << declared;
        return WalkResult::interrupt();
      }
      operand.set(
          llmc::tpu::CastOp::create(builder, value.getLoc(), to, value));
    }
    return WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

struct TpuLowerTopPass
    : llmc::lowering::impl::TpuLowerTopPassBase<TpuLowerTopPass> {
  using Base::Base;

  TpuLowerTopPass(const LoweringOptions &options,
                  llmc::lowering::PatternPopulator populate)
      : preset(options), populate(std::move(populate)) {
    mode = llmc::lowering::stringifyQuantMode(options.mode).str();
    groupSize = options.groupSize;
    asymmetric = options.asymmetric;
    qtable = options.qtablePath;
    calibrationTable = options.calibrationPath;
  }

  LogicalResult initialize(MLIRContext *context) override {
    // Option errors are reported on the operation the pass runs on, where
    // they have a location.
    llvm::Expected<LoweringOptions> options =
        preset ? llvm::Expected<LoweringOptions>(*preset)
               : parseOptions(mode, groupSize, asymmetric, qtable,
                              calibrationTable);
    if (options) {
      if (llvm::Error error = options->validate())
        options = std::move(error);
    }
    if (!options) {
      optionError = llvm::toString(options.takeError());
      return success();
    }
    RewritePatternSet set(context);
    if (populate)
      populate(set, *options);
    else
      llmc::lowering::populateTopToTpuPatterns(set, *options);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    if (!optionError.empty()) {
      root->emitError("tpu-lower-top: ") << optionError;
      return signalPassFailure();
    }
    // A piece that pins its mode must name one.
    bool badPin = false;
    root->walk([&](func::FuncOp function) {
      auto pinned = llmc::lowering::getPinnedMode(function);
      if (pinned)
        return;
      function.emitOpError("tpu-lower-top: ")
          << llvm::toString(pinned.takeError());
      badPin = true;
    });
    if (badPin)
      return signalPassFailure();
    // Patterns report why an op cannot lower (a group size that does not
    // divide K); the generic message below is only for silent failures. The
    // driver may try a pattern on an op again after lowering its operands:
    // each diagnostic is shown once.
    bool reported = false;
    {
      std::set<std::pair<const void *, std::string>> shown;
      ScopedDiagnosticHandler handler(root->getContext(), [&](Diagnostic &d) {
        reported |= d.getSeverity() == DiagnosticSeverity::Error;
        bool repeated =
            !shown.emplace(d.getLocation().getAsOpaquePointer(), d.str())
                 .second;
        return success(repeated);
      });
      // Top-down, producers lower before their users, so casts see final
      // element types; folding is canonicalization's job, not lowering's.
      GreedyRewriteConfig config;
      config.setUseTopDownTraversal(true).enableFolding(false);
      (void)applyPatternsGreedily(root, patterns, config);
    }
    bool failed = reported;
    root->walk([&](Operation *op) {
      if (!isa<llmc::top::TopDialect>(op->getDialect()) ||
          isa<llmc::top::InputOp, llmc::top::WeightOp, llmc::top::NoneOp>(op))
        return;
      if (!reported)
        op->emitOpError("has no lowering to tpu in this mode");
      failed = true;
    });
    root->walk([&](func::FuncOp function) {
      if (::failed(restoreResultTypes(function)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }

  std::optional<LoweringOptions> preset;
  llmc::lowering::PatternPopulator populate;
  FrozenRewritePatternSet patterns;
  std::string optionError;
};

} // namespace

std::unique_ptr<Pass>
llmc::lowering::createTpuLowerTopPass(const LoweringOptions &options,
                                      PatternPopulator populate) {
  return std::make_unique<TpuLowerTopPass>(options, std::move(populate));
}
