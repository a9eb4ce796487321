//===- PieceComparison.cpp - every op of a piece, device against reference ===//

#include "driver/PieceComparison.h"

#include "backends/common/codegen/GlobalViews.h"
#include "backends/common/compile/DeviceRun.h"
#include "backends/common/compile/PieceCompiler.h"
#include "backends/common/lowering/Int8Reference.h"
#include "backends/common/lowering/LoweredWeights.h"
#include "backends/common/lowering/LoweringSupport.h"
#include "backends/common/lowering/Tolerance.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/top/Interpreter/Interpreter.h"
#include "dialects/tpu/IR/ResidualAdd.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "dialects/tpu/IR/TpuTraits.h"
#include "support/LlvmStatus.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;

namespace llmc::driver {
namespace {

/// One result of one op, by the row name it is compared under.
struct NamedResult {
  Operation *op;
  unsigned index;
};

std::string withIndex(llvm::StringRef name, unsigned index) {
  return index > 0 ? (name + "#" + llvm::Twine(index)).str() : name.str();
}

/// The name result `index` of `op` is compared under: its first NameLoc.
std::string getRowName(Operation *op, unsigned index) {
  return withIndex(lowering::getLocationName(op), index);
}

/// Every name of `op`'s location: an op may compute what the device
/// computes under another name (an unfused MLP's down projection is also
/// the MLP's output).
llvm::SmallVector<llvm::StringRef> getLocationNames(Operation *op) {
  llvm::SmallVector<llvm::StringRef> names;
  op->getLoc()->walk([&](Location location) {
    if (auto named = dyn_cast<NameLoc>(location))
      names.push_back(named.getName().getValue());
    return WalkResult::advance();
  });
  return names;
}

/// The device value computing `name`: the last op of that name that is not
/// a cast (a cast of a value carries the value's name), else the last cast.
std::optional<NamedResult>
chooseDeviceResult(llvm::ArrayRef<NamedResult> candidates) {
  std::optional<NamedResult> chosen;
  for (const NamedResult &candidate : candidates)
    if (!chosen || !isa<tpu::CastOp>(candidate.op) ||
        isa<tpu::CastOp>(chosen->op))
      chosen = candidate;
  return chosen;
}

/// The figures of `row.device` against `row.reference`.
void measure(OpComparison &row, double minCosine) {
  const top::Tensor &want = row.reference;
  const top::Tensor &got = *row.device;
  if (want.isI32() || got.isI32()) {
    if (want.isI32() != got.isI32()) {
      row.note = "the device holds " + got.describe() + ", the reference " +
                 want.describe();
      row.pastTolerance = true;
      return;
    }
    llvm::ArrayRef<int32_t> a = want.getI32(), b = got.getI32();
    int64_t differing = 0;
    for (size_t i = 0; i < a.size(); ++i)
      differing += a[i] != b[i];
    row.cosine = differing ? 0 : 1;
    row.maxError = static_cast<double>(differing);
    row.pastTolerance = differing > 0;
    return;
  }
  llvm::ArrayRef<float> a = want.getF32(), b = got.getF32();
  row.cosine = compile::cosine(b, a);
  for (size_t i = 0; i < a.size(); ++i) {
    row.maxError = std::max(row.maxError, std::fabs(double(b[i]) - a[i]));
    row.maxReference = std::max(row.maxReference, std::fabs(double(a[i])));
    if (std::isnan(b[i]) != std::isnan(a[i]))
      row.maxError = std::numeric_limits<double>::quiet_NaN();
  }
  row.pastTolerance = !(row.cosine >= minCosine) || std::isnan(row.maxError);
}

} // namespace

llvm::Expected<PieceComparison>
comparePiece(ModuleOp piece, const plugins::BackendPlugin &backend,
             const plugins::WeightSource &weights,
             const lowering::LoweringOptions &lowering,
             llvm::ArrayRef<top::Tensor> inputs,
             const ComparisonOptions &options) {
  OwningOpRef<ModuleOp> reference = piece.clone();
  if (llvm::Error error =
          lowering::quantizesActivations(lowering.mode)
              ? lowering::buildInt8Reference(*reference, lowering)
              : lowering::retargetToLoweredWeights(*reference, lowering))
    return std::move(error);
  OwningOpRef<ModuleOp> device = piece.clone();
  compile::PlacementOptions placement;
  placement.keepEveryValue = true;
  if (llvm::Error error = compile::lowerAndPlace(*device, backend, lowering,
                                                 nullptr, placement))
    return std::move(error);
  if (options.afterLowering)
    options.afterLowering(*device);

  codegen::WeightOffsets offsets;
  llvm::Expected<std::vector<uint8_t>> coeff =
      compile::packCoeff(*device, weights, offsets);
  if (!coeff)
    return coeff.takeError();
  func::FuncOp function = compile::getPieceFunction(*device);
  cmd::CommandStream stream;
  if (llvm::Error error = backend.generateStream(function, offsets, stream))
    return std::move(error);
  std::unique_ptr<cmodel::StreamDevice> chip = backend.createDevice({});
  if (!chip)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "chip '" + backend.getDescriptor().id +
                                       "' has no device to run on");
  if (llvm::Error error =
          compile::runOnDevice(*chip, function, stream, *coeff, inputs)
              .takeError())
    return std::move(error);

  std::vector<NamedResult> referenceResults;
  llvm::DenseMap<Value, top::Tensor> referenceValues;
  top::InterpreterOptions run;
  run.cacheWeights = false;
  llvm::StringMap<std::vector<NamedResult>> referenceByName;
  run.observeResults = [&](Operation &op,
                           llvm::ArrayRef<const top::Tensor *> results) {
    // INT8's reference rounds a Linear's input under the Linear's name; the
    // device's rounded copy is a cast under the input's name.
    if (isa<top::FakeQuantOp>(op))
      return;
    for (auto [index, result] : llvm::enumerate(results)) {
      llvm::SmallVector<llvm::StringRef> names = getLocationNames(&op);
      if (!result || names.empty())
        continue;
      NamedResult named{&op, static_cast<unsigned>(index)};
      referenceResults.push_back(named);
      for (llvm::StringRef name : names)
        referenceByName[withIndex(name, named.index)].push_back(named);
      referenceValues.try_emplace(op.getResult(index), *result);
    }
  };
  top::Interpreter interpreter(weights, run);
  if (llvm::Error error =
          interpreter.run(compile::getPieceFunction(*reference), inputs)
              .takeError())
    return std::move(error);

  llvm::StringMap<std::vector<NamedResult>> deviceResults;
  // A layer group's ops are compared one by one, not as the group.
  function.walk([&](Operation *op) {
    if (!isa_and_nonnull<tpu::TpuDialect>(op->getDialect()) ||
        isa<tpu::ConstantOp, tpu::GroupOp, tpu::LoadOp, tpu::StoreOp,
            tpu::YieldOp>(op))
      return;
    for (unsigned index = 0; index < op->getNumResults(); ++index)
      deviceResults[getRowName(op, index)].push_back({op, index});
  });

  PieceComparison comparison;
  comparison.minCosine = options.minCosine > 0
                             ? options.minCosine
                             : lowering::getMinPieceCosine(lowering.mode);
  llvm::StringMap<size_t> rowOf;
  codegen::ValuePlacement placementView(offsets);
  for (const NamedResult &result : referenceResults) {
    std::string name = getRowName(result.op, result.index);
    auto [it, inserted] = rowOf.try_emplace(name, comparison.ops.size());
    if (!inserted)
      continue;
    OpComparison row;
    row.name = name;
    row.referenceOp = result.op->getName().getStringRef().str();
    std::optional<NamedResult> onDevice =
        chooseDeviceResult(deviceResults.lookup(name));
    // The reference's output of this name: the last of the device's size
    // (an op the reference computes unfused shares its name with its
    // parts).
    const top::Tensor *want = nullptr;
    for (const NamedResult &candidate : referenceByName.lookup(name)) {
      const top::Tensor &tensor =
          referenceValues.find(candidate.op->getResult(candidate.index))
              ->second;
      if (!onDevice ||
          tensor.getNumElements() ==
              cast<ShapedType>(
                  onDevice->op->getResult(onDevice->index).getType())
                  .getNumElements()) {
        want = &tensor;
        row.referenceOp = candidate.op->getName().getStringRef().str();
      }
    }
    row.reference =
        want ? *want
             : referenceValues.find(result.op->getResult(result.index))->second;
    if (!onDevice) {
      row.note = "not computed on its own on the device";
      for (llvm::StringRef other : getLocationNames(result.op))
        if (deviceResults.count(withIndex(other, result.index)))
          row.note = "on the device, part of '" + other.str() + "'";
      comparison.ops.push_back(std::move(row));
      continue;
    }
    Value value = onDevice->op->getResult(onDevice->index);
    row.deviceOp = onDevice->op->getName().getStringRef().str();
    if (!want) {
      row.note = "the device computes a different shape";
      comparison.ops.push_back(std::move(row));
      continue;
    }
    if (Operation *add = tpu::getAbsorbedResidualAdd(onDevice->op)) {
      row.note =
          "fused into '" + lowering::getLocationName(add) + "': never stored";
      comparison.ops.push_back(std::move(row));
      continue;
    }
    llvm::Expected<std::pair<cmd::Region, uint64_t>> address =
        placementView.getAddress(value);
    if (!address)
      return address.takeError();
    llvm::Expected<absl::Span<const uint8_t>> bytes = support::toExpected(
        chip->global().read(address->first, address->second,
                            tpu::getTensorBytes(value.getType()).value_or(0)));
    if (!bytes)
      return bytes.takeError();
    row.device = compile::decodeTensor(*bytes, value.getType());
    if (!row.device) {
      row.note = "its device type is not compared";
      comparison.ops.push_back(std::move(row));
      continue;
    }
    measure(row, comparison.minCosine);
    if (row.pastTolerance && !comparison.firstPastTolerance)
      comparison.firstPastTolerance = comparison.ops.size();
    comparison.ops.push_back(std::move(row));
  }
  return comparison;
}

} // namespace llmc::driver
