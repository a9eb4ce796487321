//===- EmitRowwise.cpp - elementwise ops, norms, softmax, rope, copies ----===//
//
// Row-wise work splits rows over the lanes (each lane whole rows, as norms,
// softmax and rope need) in tiles of lanes x rows-per-lane, loaded two tiles
// ahead. Purely elementwise ops first re-view their operands as rows of a
// width that spreads them over every lane, so a decode step's single row of
// hidden state does not run on one lane.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/Emitters.h"

#include "backends/common/cmodel/DType.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace llmc::codegen {
namespace {

constexpr int64_t kPrefetch = 2;

/// The widest row, at most what one lane comfortably holds of the tensor,
/// that divides `elements` and still gives every lane a row.
int64_t chooseFlatWidth(int64_t elements, int64_t lanes) {
  int64_t limit =
      std::max<int64_t>(1, std::min<int64_t>(2048, elements / lanes));
  for (int64_t width = limit; width > 1; --width)
    if (elements % width == 0)
      return width;
  return 1;
}

} // namespace

llvm::Error emitRowwise(Emitter &emitter, const cmd::Compute &compute,
                        llvm::ArrayRef<RowwiseInput> inputs,
                        const cmd::GlobalTensor &output) {
  if (emitter.isUntiled()) {
    std::vector<cmd::GlobalTensor> globals;
    for (const RowwiseInput &input : inputs)
      globals.push_back(input.global);
    emitter.computeGlobal(compute, globals, {output});
    return llvm::Error::success();
  }
  int64_t rows = output.rows(), lanes = emitter.getLanes();
  const RowwiseInput *held = llvm::find_if(
      inputs, [](const RowwiseInput &input) { return input.held; });
  if (held == inputs.end())
    held = nullptr;
  emitter.getArena().beginOp();
  // Broadcast rows stay for the whole op.
  std::vector<cmd::LocalTensor> pinned(inputs.size());
  uint64_t rowBytes = emitter.getRowBytes(output.cols(), output.dtype());
  for (auto [input, local] : llvm::zip(inputs, pinned)) {
    if (input.held)
      continue;
    if (!input.broadcast) {
      rowBytes +=
          emitter.getRowBytes(input.global.cols(), input.global.dtype());
      continue;
    }
    local = emitter.replicated(1, input.global.cols(), input.global.dtype(),
                               static_cast<uint32_t>(lanes));
    if (llvm::Error error = emitter.pin(local))
      return error;
    emitter.load(input.global, local);
  }
  uint64_t budget = emitter.getArena().ringCapacity() / (kPrefetch + 1);
  if (rowBytes > budget)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a row of " + llvm::Twine(output.cols()) +
            " elements does not fit a lane's streaming memory");
  int64_t perLane =
      std::min<int64_t>(llvm::divideCeil(rows, lanes), budget / rowBytes);
  if (held) {
    perLane = held->held->per_lane();
    if (held->held->rows() != rows || perLane * lanes < rows ||
        static_cast<uint64_t>(perLane) * rowBytes > budget)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "a held operand's rows do not fit one tile of the row-wise op");
  }
  int64_t tileRows = perLane * lanes;
  int64_t tiles = llvm::divideCeil(rows, tileRows);
  struct Tile {
    std::vector<cmd::LocalTensor> inputs;
    cmd::LocalTensor output;
  };
  std::vector<Tile> loaded(tiles);
  auto issueLoads = [&](int64_t t) -> llvm::Error {
    int64_t r0 = t * tileRows, count = std::min(tileRows, rows - r0);
    Tile &tile = loaded[t];
    for (auto [input, local] : llvm::zip(inputs, pinned)) {
      if (input.held) {
        tile.inputs.push_back(*input.held);
        continue;
      }
      if (input.broadcast) {
        tile.inputs.push_back(local);
        continue;
      }
      cmd::LocalTensor tensor = emitter.rowsLayout(
          count, input.global.cols(), input.global.dtype(), perLane);
      if (llvm::Error error = emitter.ring(tensor))
        return error;
      emitter.load(sliceRows(input.global, r0, count), tensor);
      tile.inputs.push_back(tensor);
    }
    tile.output =
        emitter.rowsLayout(count, output.cols(), output.dtype(), perLane);
    return emitter.ring(tile.output);
  };
  for (int64_t t = 0; t < std::min(kPrefetch, tiles); ++t)
    if (llvm::Error error = issueLoads(t))
      return error;
  for (int64_t t = 0; t < tiles; ++t) {
    cmd::Compute step = compute;
    for (const cmd::LocalTensor &input : loaded[t].inputs)
      *step.add_inputs() = input;
    *step.add_outputs() = loaded[t].output;
    emitter.compute(step);
    emitter.store(loaded[t].output,
                  sliceRows(output, t * tileRows, loaded[t].output.rows()));
    if (t + kPrefetch < tiles)
      if (llvm::Error error = issueLoads(t + kPrefetch))
        return error;
  }
  return llvm::Error::success();
}

llvm::Error emitHeldRowwise(Emitter &emitter, const cmd::Compute &compute,
                            llvm::ArrayRef<cmd::GlobalTensor> inputs,
                            const cmd::LocalTensor &output) {
  emitter.getArena().beginOp();
  bool splitsRows = output.layout() == cmd::LAYOUT_ROWS;
  cmd::Compute step = compute;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    if (input.rows() == 0) {
      *step.add_inputs() = cmodel::absent();
      continue;
    }
    // Pinned, not streamed: every input is read whole by the one command.
    // x as the output lies; a weight or bias on every lane it uses.
    cmd::LocalTensor local =
        splitsRows && index == 0
            ? emitter.rowsLayout(input.rows(), input.cols(), input.dtype(),
                                 output.per_lane(), output.lane_begin())
            : emitter.replicated(input.rows(), input.cols(), input.dtype(),
                                 output.lane_count(), output.lane_begin());
    if (llvm::Error error = emitter.pin(local))
      return error;
    emitter.load(input, local);
    *step.add_inputs() = local;
  }
  *step.add_outputs() = output;
  emitter.compute(step);
  return llvm::Error::success();
}

llvm::Error emitHeldNorm(Emitter &emitter, const ValuePlacement &placement,
                         Operation *op, const cmd::LocalTensor &output) {
  std::optional<RowwiseNorm> norm = getRowwiseNorm(op);
  if (!norm)
    return opError(op, "is not a norm over its last axis");
  int64_t cols = output.cols();
  std::vector<cmd::GlobalTensor> inputs;
  for (Value operand : norm->operands) {
    if (!operand || isa<NoneType>(operand.getType())) {
      inputs.emplace_back();
      continue;
    }
    // x as rows of the output's width; a weight or bias [C] as one row.
    llvm::Expected<cmd::GlobalTensor> view = placement.view(operand, cols);
    if (!view)
      return view.takeError();
    inputs.push_back(*view);
  }
  return emitHeldRowwise(emitter, norm->compute, inputs, output);
}

std::optional<RowwiseNorm> getRowwiseNorm(Operation *op) {
  RowwiseNorm norm;
  if (auto rms = dyn_cast<tpu::RMSNormOp>(op)) {
    norm.compute = cmodel::makeCompute(cmd::RMSNORM, {}, {});
    norm.compute.set_eps(rms.getEps().convertToDouble());
    norm.operands = {rms.getInput(), rms.getWeight()};
  } else if (auto layer = dyn_cast<tpu::LayerNormOp>(op)) {
    norm.compute = cmodel::makeCompute(cmd::LAYERNORM, {}, {});
    norm.compute.set_eps(layer.getEps().convertToDouble());
    norm.operands = {layer.getInput(), layer.getWeight(), layer.getBias()};
  } else {
    return std::nullopt;
  }
  // Absent optional operands are trailing: drop them.
  while (
      !norm.operands.empty() &&
      (!norm.operands.back() || isa<NoneType>(norm.operands.back().getType())))
    norm.operands.pop_back();
  return norm;
}

llvm::Error emitCopy(Emitter &emitter, const cmd::GlobalTensor &source,
                     const cmd::GlobalTensor &destination) {
  if (emitter.isUntiled()) {
    emitter.computeGlobal(cmodel::makeCompute(cmd::COPY, {}, {}), {source},
                          {destination});
    return llvm::Error::success();
  }
  int64_t lanes = emitter.getLanes();
  // Contiguous bytes copy as rows that spread over the lanes.
  auto packed = [](const cmd::GlobalTensor &tensor) {
    return tensor.rows() == 1 ||
           getRowStride(tensor) == static_cast<uint64_t>(cmodel::getDTypeBytes(
                                       tensor.dtype(), tensor.cols()));
  };
  cmd::GlobalTensor from = source, to = destination;
  if (packed(from) && packed(to) && !cmodel::isInt4DType(from.dtype())) {
    int64_t width = chooseFlatWidth(from.rows() * from.cols(), lanes);
    from = reflow(from, width);
    to = reflow(to, width);
  }
  emitter.getArena().beginOp();
  uint64_t budget = emitter.getArena().ringCapacity() / (kPrefetch + 1);
  uint64_t rowBytes = emitter.getRowBytes(from.cols(), from.dtype());
  if (rowBytes > budget)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a row of " + llvm::Twine(from.cols()) +
                                       " elements is too wide to copy");
  int64_t perLane = std::min<int64_t>(llvm::divideCeil(from.rows(), lanes),
                                      budget / rowBytes);
  int64_t tileRows = perLane * lanes;
  for (int64_t r0 = 0; r0 < from.rows(); r0 += tileRows) {
    int64_t count = std::min(tileRows, from.rows() - r0);
    cmd::LocalTensor local =
        emitter.rowsLayout(count, from.cols(), from.dtype(), perLane);
    if (llvm::Error error = emitter.ring(local))
      return error;
    emitter.load(sliceRows(from, r0, count), local);
    emitter.store(local, sliceRows(to, r0, count));
  }
  return llvm::Error::success();
}

namespace {

/// Runs an elementwise opcode. Equally shaped operands are re-viewed as
/// rows that spread over every lane; otherwise the output is viewed as rows
/// of its last dimension and a smaller operand (one element, or one row)
/// is broadcast from every lane.
llvm::Error emitElementwise(Emitter &emitter, const ValuePlacement &placement,
                            Operation *op, const cmd::Compute &compute) {
  int64_t elements = getNumElements(op->getResult(0));
  bool sameShapes = llvm::all_of(op->getOperands(), [&](Value operand) {
    return getNumElements(operand) == elements;
  });
  int64_t width =
      sameShapes
          ? chooseFlatWidth(elements, emitter.getLanes())
          : cast<ShapedType>(op->getResult(0).getType()).getShape().back();
  std::vector<RowwiseInput> inputs;
  for (Value operand : op->getOperands()) {
    int64_t count = getNumElements(operand);
    if (count != elements && count != width && count != 1)
      return opError(op, "codegen broadcasts only a single element or a "
                         "single trailing row");
    llvm::Expected<cmd::GlobalTensor> view =
        placement.view(operand, std::min(width, count));
    if (!view)
      return view.takeError();
    inputs.push_back({*view, count != elements});
  }
  llvm::Expected<cmd::GlobalTensor> output =
      placement.view(op->getResult(0), width);
  if (!output)
    return output.takeError();
  return emitRowwise(emitter, compute, inputs, *output);
}

/// The command-stream relation of a compare mode.
cmd::Comparison getComparison(top::CompareMode mode) {
  switch (mode) {
  case top::CompareMode::Eq:
    return cmd::COMPARISON_EQ;
  case top::CompareMode::Ne:
    return cmd::COMPARISON_NE;
  case top::CompareMode::Lt:
    return cmd::COMPARISON_LT;
  case top::CompareMode::Le:
    return cmd::COMPARISON_LE;
  case top::CompareMode::Gt:
    return cmd::COMPARISON_GT;
  case top::CompareMode::Ge:
    return cmd::COMPARISON_GE;
  }
  return cmd::COMPARISON_INVALID;
}

/// Operands of a row-wise op over the result's last dimension: full
/// tensors, or one row (a norm's weight, a broadcast addend).
llvm::Error emitRowsOf(Emitter &emitter, const ValuePlacement &placement,
                       Operation *op, const cmd::Compute &compute,
                       llvm::ArrayRef<Value> operands, int64_t cols,
                       const HeldValues *held) {
  std::vector<RowwiseInput> inputs;
  int64_t rows = getNumElements(op->getResult(0)) / cols;
  for (Value operand : operands) {
    if (!operand || isa<NoneType>(operand.getType())) {
      inputs.push_back({cmd::GlobalTensor(), true});
      continue;
    }
    if (held)
      if (auto it = held->find(operand); it != held->end()) {
        const cmd::LocalTensor &local = it->second;
        inputs.push_back({cmodel::globalTensor(cmd::REGION_INVALID, 0,
                                               local.rows(), local.cols(),
                                               local.dtype()),
                          false, &local});
        continue;
      }
    // The first operand is viewed like the output; the others (a norm's
    // weight, rope's tables) by their last dimension.
    int64_t operandCols =
        inputs.empty() ? cols
                       : cast<ShapedType>(operand.getType()).getShape().back();
    bool broadcast = getNumElements(operand) == operandCols && rows > 1;
    llvm::Expected<cmd::GlobalTensor> view =
        placement.view(operand, operandCols);
    if (!view)
      return view.takeError();
    inputs.push_back({*view, broadcast});
  }
  // Absent optional operands are trailing: drop them.
  while (!inputs.empty() && inputs.back().global.rows() == 0)
    inputs.pop_back();
  llvm::Expected<cmd::GlobalTensor> output =
      placement.view(op->getResult(0), cols);
  if (!output)
    return output.takeError();
  return emitRowwise(emitter, compute, inputs, *output);
}

int64_t getLastDim(Value value) {
  return cast<ShapedType>(value.getType()).getShape().back();
}

} // namespace

llvm::Error emitRowwiseOp(Emitter &emitter, const ValuePlacement &placement,
                          Operation *op, const HeldValues *held) {
  auto make = [](cmd::Opcode opcode) {
    return cmodel::makeCompute(opcode, {}, {});
  };
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](tpu::AddOp) {
        return emitElementwise(emitter, placement, op, make(cmd::ADD));
      })
      .Case([&](tpu::MulOp) {
        return emitElementwise(emitter, placement, op, make(cmd::MUL));
      })
      .Case([&](tpu::DivOp) {
        return emitElementwise(emitter, placement, op, make(cmd::DIV));
      })
      .Case([&](tpu::CompareOp compare) {
        cmd::Compute compute = make(cmd::COMPARE);
        compute.set_comparison(getComparison(compare.getMode()));
        return emitElementwise(emitter, placement, op, compute);
      })
      .Case([&](tpu::WhereOp) {
        return emitElementwise(emitter, placement, op, make(cmd::SELECT));
      })
      .Case([&](tpu::MulConstOp mul) {
        cmd::Compute compute = make(cmd::MUL_CONST);
        compute.set_scalar(mul.getConstVal().convertToDouble());
        return emitElementwise(emitter, placement, op, compute);
      })
      .Case([&](tpu::SiLUOp) {
        return emitElementwise(emitter, placement, op, make(cmd::SILU));
      })
      .Case([&](tpu::TanhOp) {
        return emitElementwise(emitter, placement, op, make(cmd::TANH));
      })
      .Case([&](tpu::GELUOp gelu) {
        cmd::Compute compute = make(cmd::GELU);
        compute.set_tanh_approx(gelu.getApproximation() ==
                                top::GELUApproximation::Tanh);
        return emitElementwise(emitter, placement, op, compute);
      })
      .Case([&](tpu::CastOp cast) {
        cmd::Compute compute = make(cmd::CAST);
        // Quantizing to 8 bits (INT8 activations): the scale and zero point.
        if (auto quantized = dyn_cast<quant::UniformQuantizedType>(
                getElementTypeOrSelf(cast.getType()))) {
          compute.set_scalar(quantized.getScale());
          compute.set_zero_point(
              static_cast<int32_t>(quantized.getZeroPoint()));
        }
        return emitElementwise(emitter, placement, op, compute);
      })
      .Case<tpu::RMSNormOp, tpu::LayerNormOp>([&](Operation *op) {
        RowwiseNorm norm = *getRowwiseNorm(op);
        return emitRowsOf(emitter, placement, op, norm.compute, norm.operands,
                          getLastDim(op->getOperand(0)), held);
      })
      .Case([&](tpu::SoftmaxOp softmax) -> llvm::Error {
        auto type = cast<ShapedType>(softmax.getType());
        // I64Attr axes read back unsigned.
        auto axis = static_cast<int64_t>(softmax.getAxis());
        if (axis != -1 && axis != type.getRank() - 1)
          return opError(op, "codegen runs softmax over the last axis only");
        return emitRowsOf(emitter, placement, op, make(cmd::SOFTMAX),
                          {softmax.getInput()}, type.getShape().back(), held);
      })
      .Case([&](tpu::CumSumOp cumSum) -> llvm::Error {
        auto type = cast<ShapedType>(cumSum.getType());
        // I64Attr axes read back unsigned.
        auto axis = static_cast<int64_t>(cumSum.getAxis());
        if (axis != -1 && axis != type.getRank() - 1)
          return opError(op, "codegen sums over the last axis only");
        cmd::Compute compute = make(cmd::CUMSUM);
        compute.set_exclusive(cumSum.getExclusive());
        compute.set_reverse(cumSum.getReverse());
        return emitRowsOf(emitter, placement, op, compute, {cumSum.getInput()},
                          type.getShape().back(), held);
      })
      .Case([&](tpu::RopeOp rope) -> llvm::Error {
        // x [.., L, H, D] as [L, H * D]; cos, sin [.., L, R] as [L, R].
        auto type = cast<ShapedType>(rope.getInput().getType());
        if (type.getRank() < 3)
          return opError(op, "codegen expects rope input [.., L, H, D]");
        int64_t headDim = type.getShape().back();
        int64_t cols = headDim * type.getShape()[type.getRank() - 2];
        cmd::Compute compute = make(cmd::ROPE);
        compute.set_group(headDim);
        compute.set_interleaved(rope.getMode() == top::RopeMode::Interleaved);
        return emitRowsOf(emitter, placement, op, compute,
                          {rope.getInput(), rope.getCos(), rope.getSin()},
                          cols, held);
      })
      .Default(
          [&](Operation *) { return opError(op, "is not a row-wise op"); });
}

} // namespace llmc::codegen
