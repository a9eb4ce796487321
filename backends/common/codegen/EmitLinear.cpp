//===- EmitLinear.cpp - projections and gated MLPs ------------------------===//
//
// A projection keeps a tile of activation rows in every lane (broadcast once)
// and streams the weight through the lanes a tile of output channels at a
// time: lane i holds rows of the weight, so it computes output columns. Tiles
// are loaded two ahead of the computation, so on decode, where the weights
// are almost all the bytes, the DMA queue streams them back to back.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/Emitters.h"

#include "backends/common/cmodel/DType.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace llmc::codegen {
namespace {

/// Tiles issued ahead of the computation.
constexpr int64_t kPrefetch = 2;

bool present(const cmd::GlobalTensor &tensor) { return tensor.rows() > 0; }

/// One projection's share of a tile of output channels.
struct ProjectionTile {
  cmd::LocalTensor weight, scale, zp, bias, y;
};

class ProjectionPlan {
public:
  ProjectionPlan(Emitter &emitter, int64_t rowsPerTile, int64_t k,
                 cmd::DType outputType,
                 const cmd::GlobalTensor *residual = nullptr)
      : emitter(emitter), rowsPerTile(rowsPerTile), k(k),
        outputType(outputType), residual(residual) {}

  /// Per-lane bytes of `channels` output channels of `weights`.
  uint64_t getLaneBytes(const ProjectionWeights &weights,
                        int64_t channels) const {
    uint64_t bytes = channels * emitter.getRowBytes(k, weights.weight.dtype());
    if (present(weights.scale))
      bytes += channels * emitter.getRowBytes(weights.scale.cols(),
                                              weights.scale.dtype());
    if (present(weights.zp))
      bytes +=
          channels * emitter.getRowBytes(weights.zp.cols(), weights.zp.dtype());
    if (present(weights.bias))
      bytes += emitter.getRowBytes(channels, weights.bias.dtype());
    return bytes + rowsPerTile * emitter.getRowBytes(channels, outputType);
  }

  /// Allocates and loads channels [n0, n0 + count) of `weights`, `perLane`
  /// per lane, for activation rows [m0, m0 + rows) (and their residual).
  llvm::Expected<ProjectionTile> load(const ProjectionWeights &weights,
                                      int64_t m0, int64_t n0, int64_t count,
                                      int64_t perLane, int64_t rows) {
    ProjectionTile tile;
    auto loadRows = [&](const cmd::GlobalTensor &global,
                        cmd::LocalTensor &local) -> llvm::Error {
      local = emitter.rowsLayout(count, global.cols(), global.dtype(), perLane);
      if (llvm::Error error = emitter.ring(local))
        return error;
      emitter.load(sliceRows(global, n0, count), local);
      return llvm::Error::success();
    };
    if (llvm::Error error = loadRows(weights.weight, tile.weight))
      return std::move(error);
    if (present(weights.scale))
      if (llvm::Error error = loadRows(weights.scale, tile.scale))
        return std::move(error);
    if (present(weights.zp))
      if (llvm::Error error = loadRows(weights.zp, tile.zp))
        return std::move(error);
    if (present(weights.bias)) {
      tile.bias = emitter.colsLayout(1, count, weights.bias.dtype(), perLane);
      if (llvm::Error error = emitter.ring(tile.bias))
        return std::move(error);
      emitter.load(sliceCols(weights.bias, n0, count), tile.bias);
    }
    tile.y = emitter.colsLayout(rows, count, outputType, perLane);
    if (llvm::Error error = emitter.ring(tile.y))
      return std::move(error);
    if (residual)
      emitter.load(sliceCols(sliceRows(*residual, m0, rows), n0, count),
                   tile.y);
    return tile;
  }

  /// The projection of the tile's channels for `x`.
  void compute(const cmd::LocalTensor &x, const ProjectionTile &tile) {
    bool quantized = tile.scale.rows() > 0;
    std::vector<cmd::LocalTensor> inputs = {x, tile.weight};
    if (quantized) {
      inputs.push_back(tile.scale);
      inputs.push_back(tile.zp);
    }
    inputs.push_back(tile.bias);
    while (!inputs.empty() && inputs.back().rows() == 0)
      inputs.pop_back();
    cmd::Compute compute = cmodel::makeCompute(
        quantized ? cmd::A16MATMUL : cmd::MATMUL, inputs, {tile.y});
    compute.set_accumulate(residual != nullptr);
    emitter.compute(compute);
  }

private:
  Emitter &emitter;
  int64_t rowsPerTile;
  int64_t k;
  cmd::DType outputType;
  const cmd::GlobalTensor *residual;
};

/// Activation rows per tile: what a third of a lane holds, broadcast.
int64_t chooseRowTile(Emitter &emitter, int64_t m, int64_t k,
                      cmd::DType type) {
  uint64_t budget = emitter.getArena().getLaneBytes() * 3 / 8;
  uint64_t rowBytes = emitter.getRowBytes(k, type);
  return std::max<int64_t>(1, std::min<int64_t>(m, budget / rowBytes));
}

/// Output channels per lane so that kPrefetch + 1 tiles of `projections`
/// fit the ring.
llvm::Expected<int64_t>
chooseChannelsPerLane(Emitter &emitter, const ProjectionPlan &plan,
                      llvm::ArrayRef<ProjectionWeights> projections, int64_t n) {
  uint64_t budget = emitter.getArena().ringCapacity() / (kPrefetch + 1);
  int64_t best = 0;
  for (int64_t perLane = 1,
               most = llvm::divideCeil(n, emitter.getLanes());
       perLane <= most; ++perLane) {
    uint64_t bytes = 0;
    for (const ProjectionWeights &weights : projections)
      bytes += plan.getLaneBytes(weights, perLane);
    if (bytes > budget)
      break;
    best = perLane;
  }
  if (!best)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a weight row of " + llvm::Twine(projections.front().weight.cols()) +
            " elements does not fit a lane's streaming memory");
  // An even split keeps 4-bit rows of a tile on byte boundaries.
  return best;
}

/// A pinned buffer for `rows` rows of x in every lane.
llvm::Expected<cmd::LocalTensor> pinActivations(Emitter &emitter,
                                                const cmd::GlobalTensor &x,
                                                int64_t rows) {
  cmd::LocalTensor local = emitter.replicated(
      rows, x.cols(), x.dtype(), static_cast<uint32_t>(emitter.getLanes()));
  if (llvm::Error error = emitter.pin(local))
    return std::move(error);
  return local;
}

/// Streams channel tiles of `projections` (all [N, K] over the same x),
/// calling `finish(tiles, n0, count)` after each tile's projections.
template <typename Finish>
llvm::Error streamChannels(Emitter &emitter, const cmd::GlobalTensor &x,
                           llvm::ArrayRef<ProjectionWeights> projections,
                           cmd::DType outputType,
                           const cmd::GlobalTensor *residual, Finish finish) {
  int64_t m = x.rows(), k = x.cols();
  int64_t n = projections.front().weight.rows();
  int64_t rowTile = chooseRowTile(emitter, m, k, x.dtype());
  for (int64_t m0 = 0; m0 < m; m0 += rowTile) {
    int64_t rows = std::min(rowTile, m - m0);
    emitter.getArena().beginOp();
    llvm::Expected<cmd::LocalTensor> xLocal =
        pinActivations(emitter, x, rows);
    if (!xLocal)
      return xLocal.takeError();
    ProjectionPlan plan(emitter, rows, k, outputType, residual);
    llvm::Expected<int64_t> perLane =
        chooseChannelsPerLane(emitter, plan, projections, n);
    if (!perLane)
      return perLane.takeError();
    int64_t channelTile = *perLane * emitter.getLanes();
    int64_t tiles = llvm::divideCeil(n, channelTile);
    std::vector<std::vector<ProjectionTile>> loaded(tiles);
    auto issueLoads = [&](int64_t t) -> llvm::Error {
      int64_t n0 = t * channelTile, count = std::min(channelTile, n - n0);
      for (const ProjectionWeights &weights : projections) {
        llvm::Expected<ProjectionTile> tile =
            plan.load(weights, m0, n0, count, *perLane, rows);
        if (!tile)
          return tile.takeError();
        loaded[t].push_back(*tile);
      }
      return llvm::Error::success();
    };
    // Weights first: they do not wait for the previous op's stores, so
    // they stream while its last tile computes.
    for (int64_t t = 0; t < std::min(kPrefetch, tiles); ++t)
      if (llvm::Error error = issueLoads(t))
        return error;
    emitter.load(sliceRows(x, m0, rows), *xLocal);
    for (int64_t t = 0; t < tiles; ++t) {
      for (const ProjectionTile &tile : loaded[t])
        plan.compute(*xLocal, tile);
      int64_t n0 = t * channelTile;
      finish(loaded[t], m0, n0);
      if (t + kPrefetch < tiles)
        if (llvm::Error error = issueLoads(t + kPrefetch))
          return error;
    }
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error emitProjection(Emitter &emitter, const cmd::GlobalTensor &x,
                           const ProjectionWeights &weights,
                           const cmd::GlobalTensor &y,
                           const cmd::GlobalTensor *residual) {
  return streamChannels(
      emitter, x, {weights}, y.dtype(), residual,
      [&](llvm::ArrayRef<ProjectionTile> tiles, int64_t m0, int64_t n0) {
        const cmd::LocalTensor &local = tiles.front().y;
        emitter.store(local, sliceCols(sliceRows(y, m0, local.rows()), n0,
                                       local.cols()));
      });
}

/// h = act(gate(x)) * up(x) into `scratch`, then y = down(h).
static llvm::Error emitGatedMlp(Emitter &emitter, const cmd::GlobalTensor &x,
                                const ProjectionWeights &gate,
                                const ProjectionWeights &up,
                                const ProjectionWeights &down,
                                top::Activation activation,
                                const cmd::GlobalTensor &scratch,
                                const cmd::GlobalTensor &y,
                                const cmd::GlobalTensor *residual) {
  cmd::Compute act;
  switch (activation) {
  case top::Activation::SiLU:
    act = cmodel::makeCompute(cmd::SILU, {}, {});
    break;
  case top::Activation::GELU:
  case top::Activation::GELUTanh:
    act = cmodel::makeCompute(cmd::GELU, {}, {});
    act.set_tanh_approx(activation == top::Activation::GELUTanh);
    break;
  case top::Activation::ReLU:
    act = cmodel::makeCompute(cmd::RELU, {}, {});
    break;
  }
  llvm::Error error = streamChannels(
      emitter, x, {gate, up}, x.dtype(), /*residual=*/nullptr,
      [&](llvm::ArrayRef<ProjectionTile> tiles, int64_t m0, int64_t n0) {
        const cmd::LocalTensor &g = tiles[0].y;
        cmd::Compute step = act;
        *step.add_inputs() = g;
        *step.add_outputs() = g;
        emitter.compute(step);
        emitter.compute(cmodel::makeCompute(cmd::MUL, {g, tiles[1].y}, {g}));
        emitter.store(g, sliceCols(sliceRows(scratch, m0, g.rows()), n0,
                                   g.cols()));
      });
  if (error)
    return error;
  return emitProjection(emitter, scratch, down, y, residual);
}

llvm::Error opError(Operation *op, const llvm::Twine &message) {
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + op->getName().getStringRef() + "' at " +
                                     location + ": " + message);
}

namespace {

/// Views of a weight operand and its optional scale, zero point and bias.
class WeightViews {
public:
  explicit WeightViews(const ValuePlacement &placement)
      : placement(placement) {}

  llvm::Error add(cmd::GlobalTensor &out, Value value) {
    if (!value || isa<NoneType>(value.getType()))
      return llvm::Error::success();
    llvm::Expected<cmd::GlobalTensor> view = placement.view(value);
    if (!view)
      return view.takeError();
    out = *view;
    // A bias [N] is one row of N.
    if (cast<ShapedType>(value.getType()).getRank() == 1)
      out = reflow(out, out.cols());
    return llvm::Error::success();
  }

  llvm::Expected<ProjectionWeights> get(Value weight, Value scale, Value zp,
                                        Value bias) {
    ProjectionWeights weights;
    if (llvm::Error error = add(weights.weight, weight))
      return std::move(error);
    if (llvm::Error error = add(weights.scale, scale))
      return std::move(error);
    if (llvm::Error error = add(weights.zp, zp))
      return std::move(error);
    if (llvm::Error error = add(weights.bias, bias))
      return std::move(error);
    return weights;
  }

private:
  const ValuePlacement &placement;
};

/// Where a linear op writes: its result, or the result of the residual add
/// it absorbs, with the residual.
struct LinearOutput {
  Value value;
  Value residual;
};

LinearOutput getLinearOutput(Operation *op, Operation *residualAdd) {
  if (!residualAdd)
    return {op->getResult(0), nullptr};
  Value other = residualAdd->getOperand(0) == op->getResult(0)
                    ? residualAdd->getOperand(1)
                    : residualAdd->getOperand(0);
  return {residualAdd->getResult(0), other};
}

/// The views of `output` as [rows, cols]: the value and its residual.
llvm::Error viewOutput(const ValuePlacement &placement,
                       const LinearOutput &output, int64_t cols,
                       cmd::GlobalTensor &y,
                       std::optional<cmd::GlobalTensor> &residual) {
  llvm::Expected<cmd::GlobalTensor> view = placement.view(output.value, cols);
  if (!view)
    return view.takeError();
  y = *view;
  if (!output.residual)
    return llvm::Error::success();
  llvm::Expected<cmd::GlobalTensor> added =
      placement.view(output.residual, cols);
  if (!added)
    return added.takeError();
  residual = *added;
  return llvm::Error::success();
}

llvm::Error emitLinear(Emitter &emitter, const ValuePlacement &placement,
                       const LinearOutput &output, Value input,
                       llvm::Expected<ProjectionWeights> weights) {
  if (!weights)
    return weights.takeError();
  int64_t k = weights->weight.cols();
  llvm::Expected<cmd::GlobalTensor> x = placement.view(input, k);
  if (!x)
    return x.takeError();
  cmd::GlobalTensor y;
  std::optional<cmd::GlobalTensor> residual;
  if (llvm::Error error = viewOutput(placement, output,
                                     weights->weight.rows(), y, residual))
    return error;
  return emitProjection(emitter, *x, *weights, y,
                        residual ? &*residual : nullptr);
}

} // namespace

llvm::Error emitLinearOp(Emitter &emitter, const ValuePlacement &placement,
                         Operation *op, Operation *residualAdd) {
  WeightViews views(placement);
  LinearOutput output = getLinearOutput(op, residualAdd);
  auto scratchView = [&](Value input, int64_t cols)
      -> llvm::Expected<cmd::GlobalTensor> {
    auto mem = op->getAttrOfType<tpu::MemAttr>("scratch");
    if (!mem)
      return opError(op, "has no scratch: run tpu-address-assign first");
    llvm::Expected<cmd::DType> dtype =
        getDType(cast<ShapedType>(input.getType()).getElementType());
    if (!dtype)
      return dtype.takeError();
    int64_t rows = getNumElements(input) /
                   cast<ShapedType>(input.getType()).getShape().back();
    return cmodel::globalTensor(cmd::REGION_ACTIVATION, mem.getOffset(), rows,
                                cols, *dtype);
  };
  auto mlp = [&](Value input, llvm::Expected<ProjectionWeights> gate,
                 llvm::Expected<ProjectionWeights> up,
                 llvm::Expected<ProjectionWeights> down,
                 top::Activation activation) -> llvm::Error {
    if (!gate)
      return gate.takeError();
    if (!up)
      return up.takeError();
    if (!down)
      return down.takeError();
    llvm::Expected<cmd::GlobalTensor> x =
        placement.view(input, gate->weight.cols());
    if (!x)
      return x.takeError();
    cmd::GlobalTensor y;
    std::optional<cmd::GlobalTensor> residual;
    if (llvm::Error error =
            viewOutput(placement, output, down->weight.rows(), y, residual))
      return error;
    llvm::Expected<cmd::GlobalTensor> scratch =
        scratchView(input, gate->weight.rows());
    if (!scratch)
      return scratch.takeError();
    return emitGatedMlp(emitter, *x, *gate, *up, *down, activation, *scratch,
                        y, residual ? &*residual : nullptr);
  };
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](tpu::MatMulOp matmul) -> llvm::Error {
        if (matmul.getLeftTranspose() || !matmul.getRightTranspose())
          return opError(op, "codegen handles x [M, K] times a weight "
                             "[N, K] (right_transpose) only");
        return emitLinear(emitter, placement, output, matmul.getInput(),
                          views.get(matmul.getRight(), nullptr, nullptr,
                                    matmul.getBias()));
      })
      .Case([&](tpu::A16MatMulOp matmul) {
        return emitLinear(emitter, placement, output, matmul.getInput(),
                          views.get(matmul.getWeight(), matmul.getScale(),
                                    matmul.getZp(), matmul.getBias()));
      })
      .Case([&](tpu::MLPOp mlpOp) {
        return mlp(mlpOp.getInput(),
                   views.get(mlpOp.getGate(), nullptr, nullptr, nullptr),
                   views.get(mlpOp.getUp(), nullptr, nullptr, nullptr),
                   views.get(mlpOp.getDown(), nullptr, nullptr, nullptr),
                   mlpOp.getActivation());
      })
      .Case([&](tpu::A16MLPOp mlpOp) {
        return mlp(mlpOp.getInput(),
                   views.get(mlpOp.getGate(), mlpOp.getGateScale(),
                             mlpOp.getGateZp(), nullptr),
                   views.get(mlpOp.getUp(), mlpOp.getUpScale(),
                             mlpOp.getUpZp(), nullptr),
                   views.get(mlpOp.getDown(), mlpOp.getDownScale(),
                             mlpOp.getDownZp(), nullptr),
                   mlpOp.getActivation());
      })
      .Default([&](Operation *) {
        return opError(op, "is not a linear op");
      });
}

} // namespace llmc::codegen
