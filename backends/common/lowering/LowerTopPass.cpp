//===- LowerTopPass.cpp - the tpu-lower-top pass --------------------------===//

#include "backends/common/lowering/Passes.h"

#include "backends/common/lowering/LoweringSupport.h"
#include "backends/common/lowering/TopToTpu.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

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

/// The tpu.Cast, before `user`, of `value` to `type` (float tensors of one
/// shape), or an error on `user` when no element-type conversion does it.
FailureOr<Value> castTo(Operation *user, Value value, Type type) {
  auto from = dyn_cast<RankedTensorType>(value.getType());
  auto to = dyn_cast<RankedTensorType>(type);
  if (!from || !to || from.getShape() != to.getShape() ||
      !isa<FloatType>(from.getElementType()) ||
      !isa<FloatType>(to.getElementType()))
    return user->emitOpError("needs ")
           << value.getType() << " as " << type << ", which no tpu op converts";
  OpBuilder builder(user);
  return Value(llmc::tpu::CastOp::create(builder, value.getLoc(), to, value));
}

/// The conversion leaves an unrealized cast where a lowered value meets a
/// user that keeps its top type: a piece output (func.return keeps the types
/// the graph builder gave the piece). Each becomes a tpu.Cast before its
/// return, in the order of the outputs.
LogicalResult castAtPieceOutputs(Operation *root) {
  WalkResult walked = root->walk([&](func::ReturnOp ret) {
    for (OpOperand &operand : ret->getOpOperands()) {
      auto cast = operand.get().getDefiningOp<UnrealizedConversionCastOp>();
      if (!cast)
        continue;
      if (cast.getNumOperands() != 1)
        return WalkResult(cast.emitOpError("joins several values"));
      FailureOr<Value> converted =
          castTo(ret, cast.getOperand(0), operand.get().getType());
      if (failed(converted))
        return WalkResult::interrupt();
      operand.set(*converted);
    }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  WalkResult leftover = root->walk([](UnrealizedConversionCastOp cast) {
    if (cast->use_empty()) {
      cast.erase();
      return WalkResult::advance();
    }
    return WalkResult(cast.emitOpError("is left by the lowering for a user "
                                       "that is not a piece output"));
  });
  return failure(leftover.wasInterrupted());
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
    // Every top op but the graph's leaves (inputs, weights, none) becomes
    // tpu. An op's element types follow from its own mode (the qtable may
    // give each op another), not from its operands' types, so the patterns
    // take their operands as lowered, with no type converter, and cast
    // where they need; the driver visits producers before their users.
    ConversionTarget target(getContext());
    target.addLegalDialect<llmc::tpu::TpuDialect, func::FuncDialect>();
    target.addIllegalDialect<llmc::top::TopDialect>();
    target.addLegalOp<llmc::top::InputOp, llmc::top::WeightOp,
                      llmc::top::NoneOp>();
    ConversionConfig config;
    // Piece outputs keep their top types: castAtPieceOutputs turns the
    // driver's placeholder casts into tpu.Cast.
    config.buildMaterializations = false;
    // Folding is canonicalization's job, not lowering's.
    config.foldingMode = DialectConversionFoldingMode::Never;
    // Patterns report why an op cannot lower (a group size that does not
    // divide K); the driver's own "failed to legalize" then says nothing
    // more and is dropped. A pattern the driver tries again reports once.
    std::set<std::pair<const void *, std::string>> shown;
    std::set<const void *> explained;
    ScopedDiagnosticHandler handler(root->getContext(), [&](Diagnostic &d) {
      const void *where = d.getLocation().getAsOpaquePointer();
      if (d.getSeverity() == DiagnosticSeverity::Error &&
          llvm::StringRef(d.str()).starts_with("failed to legalize") &&
          explained.count(where))
        return success();
      if (d.getSeverity() == DiagnosticSeverity::Error)
        explained.insert(where);
      return success(!shown.emplace(where, d.str()).second);
    });
    if (failed(applyPartialConversion(root, target, patterns, config)) ||
        failed(castAtPieceOutputs(root)))
      return signalPassFailure();
    // Reading a weight in another element type leaves its top-typed read
    // unused.
    root->walk<WalkOrder::PostOrder, ReverseIterator>([](Operation *op) {
      if (isOpTriviallyDead(op))
        op->erase();
    });
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
