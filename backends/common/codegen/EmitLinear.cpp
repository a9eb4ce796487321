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

#include "backends/common/codegen/TilingSearch.h"

#include "backends/common/cmodel/DType.h"
#include "backends/common/cmodel/TimeModel.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace llmc::codegen {
namespace {

/// Tiles issued ahead of the computation.
constexpr int64_t kPrefetch = 2;
/// The short last tiles a piece's last projection tries, in channels per
/// lane: each costs a run of the time model over the piece so far.
constexpr int64_t kTailsPerLane[] = {1, 2, 4, 8};

bool present(const cmd::GlobalTensor &tensor) { return tensor.rows() > 0; }

/// How a projection's work spreads over the lanes.
enum class LaneSplit {
  /// x's row tile on every lane, each lane a range of output channels: each
  /// weight element is loaded once per row tile and dequantized once.
  Channels,
  /// Each lane a range of x's rows, the weight tile broadcast to every lane:
  /// one pass over the weights serves lanes x rows-per-lane rows (prefill),
  /// but every lane dequantizes the whole tile.
  Rows,
};

/// A projection's tiling: `rowTile` activation rows at a time (`perLane`
/// of them on each lane when splitting rows), `channelTile` output channels
/// at a time (`perLane` of them on each lane when splitting channels).
struct ProjectionTiling {
  LaneSplit split = LaneSplit::Channels;
  int64_t rowTile = 1;
  int64_t channelTile = 1;
  int64_t perLane = 1;
  /// Weight tiles issued before x's rows (at most kPrefetch): weights do not
  /// wait for the previous op's stores, but the first computation waits for
  /// x.
  int64_t tilesBeforeX = kPrefetch;
  /// Splitting channels: when positive, the last tile is this many channels
  /// per lane and the tiles before it share the rest. A piece's last
  /// projection leaves its last tile's computation exposed; a short last
  /// tile shortens that tail without the latency of more, smaller tiles.
  int64_t tailPerLane = 0;

  /// The tiling of a last tile of `channels`: splitting channels, a tile
  /// shorter than the others spreads over every lane, as many per lane as
  /// that takes, rather than over the first lanes at the full tile's depth.
  ProjectionTiling getLastTile(int64_t channels, int64_t lanes) const {
    ProjectionTiling last = *this;
    last.tailPerLane = 0;
    if (split != LaneSplit::Channels || channels >= channelTile)
      return last;
    last.perLane = llvm::divideCeil(channels, lanes);
    last.channelTile = last.perLane * lanes;
    return last;
  }

  /// The [first channel, channels) of each tile of `n` output channels.
  std::vector<std::pair<int64_t, int64_t>>
  getChannelTiles(int64_t n, int64_t lanes) const {
    int64_t tail = std::min(n, tailPerLane * lanes);
    std::vector<std::pair<int64_t, int64_t>> tiles;
    for (int64_t n0 = 0; n0 < n - tail; n0 += channelTile)
      tiles.push_back({n0, std::min(channelTile, n - tail - n0)});
    if (tail > 0)
      tiles.push_back({n - tail, tail});
    return tiles;
  }
};

/// One projection's share of a tile of output channels; `quantized` holds
/// y quantized, for the first projection of a plan that quantizes.
struct ProjectionTile {
  cmd::LocalTensor weight, scale, zp, bias, y, quantized;
};

class ProjectionPlan {
public:
  ProjectionPlan(Emitter &emitter, const ProjectionTiling &tiling,
                 cmd::DType outputType,
                 const cmd::GlobalTensor *residual = nullptr,
                 cmd::DType quantizedType = cmd::DTYPE_INVALID,
                 const cmd::LocalTensor *heldY = nullptr)
      : emitter(emitter), tiling(tiling), outputType(outputType),
        residual(residual), quantizedType(quantizedType), heldY(heldY) {}

  /// A local tensor of output columns: split as the tiling splits them.
  cmd::LocalTensor outputLayout(int64_t rows, int64_t channels,
                                cmd::DType dtype) const {
    if (tiling.split == LaneSplit::Rows)
      return emitter.rowsLayout(rows, channels, dtype, tiling.perLane);
    return emitter.colsLayout(rows, channels, dtype, tiling.perLane);
  }

  /// A local tensor of weight rows (output channels).
  cmd::LocalTensor weightLayout(int64_t channels, int64_t cols,
                                cmd::DType dtype, int64_t rows) const {
    if (tiling.split == LaneSplit::Rows)
      return emitter.replicated(channels, cols, dtype, getLanesUsed(rows));
    return emitter.rowsLayout(channels, cols, dtype, tiling.perLane);
  }

  /// A bias tile of `channels` for `rows` activation rows.
  cmd::LocalTensor biasLayout(int64_t channels, cmd::DType dtype,
                              int64_t rows) const {
    if (tiling.split == LaneSplit::Rows)
      return emitter.replicated(1, channels, dtype, getLanesUsed(rows));
    return emitter.colsLayout(1, channels, dtype, tiling.perLane);
  }

  /// x's rows [m0, m0 + rows) as the tiling holds them.
  cmd::LocalTensor activationLayout(const cmd::GlobalTensor &x,
                                    int64_t rows) const {
    if (tiling.split == LaneSplit::Rows)
      return emitter.rowsLayout(rows, x.cols(), x.dtype(), tiling.perLane);
    return emitter.replicated(rows, x.cols(), x.dtype(),
                              static_cast<uint32_t>(emitter.getLanes()));
  }

  /// Per-lane bytes of one full channel tile of `weights` and its outputs:
  /// the footprints of the buffers load() places.
  uint64_t getTileBytes(const ProjectionWeights &weights) const {
    int64_t channels = tiling.channelTile, rows = tiling.rowTile;
    uint64_t bytes = 0;
    for (const cmd::GlobalTensor *rowsOf :
         {&weights.weight, &weights.scale, &weights.zp})
      if (present(*rowsOf))
        bytes += emitter.getFootprint(
            weightLayout(channels, rowsOf->cols(), rowsOf->dtype(), rows));
    if (present(weights.bias))
      bytes += emitter.getFootprint(
          biasLayout(channels, weights.bias.dtype(), rows));
    if (heldY)
      return bytes;
    return bytes +
           emitter.getFootprint(outputLayout(rows, channels, outputType));
  }

  /// Per-lane bytes of one channel tile's quantized output (one per tile).
  uint64_t getQuantizedBytes() const {
    if (quantizedType == cmd::DTYPE_INVALID)
      return 0;
    return emitter.getFootprint(
        outputLayout(tiling.rowTile, tiling.channelTile, quantizedType));
  }

  /// Allocates and loads channels [n0, n0 + count) of `weights` for
  /// activation rows [m0, m0 + rows) (and their residual).
  llvm::Expected<ProjectionTile> load(const ProjectionWeights &weights,
                                      int64_t m0, int64_t n0, int64_t count,
                                      int64_t rows, bool first) {
    ProjectionTile tile;
    if (first && quantizedType != cmd::DTYPE_INVALID) {
      tile.quantized = outputLayout(rows, count, quantizedType);
      if (llvm::Error error = emitter.ring(tile.quantized))
        return std::move(error);
    }
    auto loadRows = [&](const cmd::GlobalTensor &global,
                        cmd::LocalTensor &local) -> llvm::Error {
      local = weightLayout(count, global.cols(), global.dtype(), rows);
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
      tile.bias = biasLayout(count, weights.bias.dtype(), rows);
      if (llvm::Error error = emitter.ring(tile.bias))
        return std::move(error);
      emitter.load(sliceCols(weights.bias, n0, count), tile.bias);
    }
    if (heldY) {
      tile.y = Emitter::viewRows(*heldY, rows, n0, count);
    } else {
      tile.y = outputLayout(rows, count, outputType);
      if (llvm::Error error = emitter.ring(tile.y))
        return std::move(error);
    }
    if (residual)
      emitter.load(sliceCols(sliceRows(*residual, m0, rows), n0, count),
                   tile.y);
    return tile;
  }

  /// The projection of the tile's channels for `x`.
  void compute(const cmd::LocalTensor &x, const ProjectionTile &tile,
               const ActivationQuantization &input) {
    if (input.present()) {
      std::vector<cmd::LocalTensor> inputs = {x, tile.weight, tile.scale};
      if (tile.bias.rows() > 0)
        inputs.push_back(tile.bias);
      cmd::Compute compute =
          cmodel::makeCompute(cmd::I8MATMUL, inputs, {tile.y});
      compute.set_scalar(input.scale);
      compute.set_zero_point(input.zeroPoint);
      compute.set_accumulate(residual != nullptr);
      emitter.compute(compute);
      return;
    }
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
  /// The lanes holding `rows` activation rows when splitting rows.
  uint32_t getLanesUsed(int64_t rows) const {
    return static_cast<uint32_t>(llvm::divideCeil(rows, tiling.perLane));
  }

  Emitter &emitter;
  ProjectionTiling tiling;
  cmd::DType outputType;
  const cmd::GlobalTensor *residual;
  cmd::DType quantizedType;
  const cmd::LocalTensor *heldY;
};

/// What a projection over x streams: its weights, the type of its outputs
/// (and of their quantized copy, for an INT8 MLP's intermediate).
struct ProjectionWork {
  const cmd::GlobalTensor &x;
  llvm::ArrayRef<ProjectionWeights> projections;
  cmd::DType outputType;
  const cmd::GlobalTensor *residual;
  cmd::DType quantizedType;
  /// The piece's last work: nothing after it overlaps its last tile.
  bool endsPiece = false;
  /// All of x where a layer group holds it: nothing loads it. Whole on
  /// every lane, only channel splits of all rows can read it; its rows
  /// over the lanes, only the row split it has.
  const cmd::LocalTensor *heldX = nullptr;
  /// All of y's rows over the lanes where a layer group holds them: the
  /// row split computes each channel tile there and stores nothing.
  const cmd::LocalTensor *heldY = nullptr;
  /// What the op emits after these projections (a gated MLP's down
  /// projection), costed with each tiling: a tiling that finishes these
  /// sooner may load what follows later.
  llvm::function_ref<llvm::Error(Emitter &)> then = nullptr;
  /// Whether the tilings are searched; else the first one listed streams (a
  /// stand-in for what follows another op's candidate, which would
  /// otherwise multiply the searches).
  bool search = true;
};

/// The output channels a tile of a held y starts at a multiple of: the
/// elements of an EU row, so that each tile's columns start one.
int64_t getHeldChannelUnit(const Emitter &emitter, const ProjectionWork &work) {
  if (!work.heldY)
    return 1;
  return std::max<int64_t>(1, emitter.getChip().euBytesPerLane * 8 /
                                  cmodel::getDTypeBits(work.outputType));
}

/// Whether `tiling`'s tiles fit: the pinned activations within three
/// eighths of a lane, kPrefetch + 1 channel tiles within the ring beside
/// them, so no tile's bytes are reused while it is still to be computed.
bool fits(Emitter &emitter, const ProjectionWork &work,
          const ProjectionTiling &tiling) {
  const LocalArena &arena = emitter.getArena();
  ProjectionPlan plan(emitter, tiling, work.outputType, work.residual,
                      work.quantizedType, work.heldY);
  uint64_t pinned =
      work.heldX
          ? 0
          : llvm::alignTo(emitter.getFootprint(plan.activationLayout(
                              work.x, std::min(tiling.rowTile, work.x.rows()))),
                          arena.getAlignment());
  if (pinned > arena.getLaneBytes() * 3 / 8)
    return false;
  uint64_t tile = plan.getQuantizedBytes();
  for (const ProjectionWeights &weights : work.projections)
    tile += plan.getTileBytes(weights);
  return (kPrefetch + 1) * tile <= arena.getLaneBytes() - pinned;
}

/// The largest `most` in [1, limit] for which `fitsWith` holds (it holds
/// for all smaller ones); 0 when none.
template <typename Fits> int64_t largestFitting(int64_t limit, Fits fitsWith) {
  int64_t low = 0, high = limit;
  while (low < high) {
    int64_t mid = low + (high - low + 1) / 2;
    if (fitsWith(mid))
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

/// The largest tiling of `split` that fits, its row tile as large as three
/// eighths of a lane holds; none when not even one channel per tile fits.
std::optional<ProjectionTiling>
largestTiling(Emitter &emitter, const ProjectionWork &work, LaneSplit split) {
  int64_t m = work.x.rows(), k = work.x.cols();
  int64_t n = work.projections.front().weight.rows();
  int64_t lanes = emitter.getLanes();
  uint64_t rowBytes = emitter.getRowBytes(k, work.x.dtype());
  int64_t fittingRows = std::max<int64_t>(1, emitter.getArena().getLaneBytes() *
                                                 3 / 8 / rowBytes);
  ProjectionTiling tiling;
  tiling.split = split;
  if (split == LaneSplit::Channels) {
    tiling.rowTile = work.heldX ? m : std::min(m, fittingRows);
    tiling.perLane =
        largestFitting(llvm::divideCeil(n, lanes), [&](int64_t perLane) {
          ProjectionTiling candidate = tiling;
          candidate.perLane = perLane;
          candidate.channelTile = perLane * lanes;
          return fits(emitter, work, candidate);
        });
    tiling.channelTile = tiling.perLane * lanes;
  } else {
    // Rows spread evenly over the lanes, as many on each as fit; a held x
    // or y has its own.
    tiling.perLane =
        work.heldX ? work.heldX->per_lane()
                   : llvm::divideCeil(std::min(m, fittingRows * lanes), lanes);
    if (work.heldY) {
      if (work.heldX && work.heldX->per_lane() != work.heldY->per_lane())
        return std::nullopt;
      tiling.perLane = work.heldY->per_lane();
    }
    tiling.rowTile = std::min(m, tiling.perLane * lanes);
    if (work.heldY && tiling.rowTile < m)
      return std::nullopt;
    int64_t unit = getHeldChannelUnit(emitter, work);
    tiling.channelTile = std::min(
        n, unit * largestFitting(llvm::divideCeil(n, unit), [&](int64_t units) {
             ProjectionTiling candidate = tiling;
             candidate.channelTile = std::min(n, units * unit);
             return fits(emitter, work, candidate);
           }));
  }
  if (tiling.channelTile == 0)
    return std::nullopt;
  return tiling;
}

/// Streams channel tiles of `work.projections` (all [N, K] over the same
/// x), calling `finish(tiles, m0, n0)` after each tile's projections. With
/// a quantized type, the first projection's tiles have a `quantized` buffer.
template <typename Finish>
llvm::Error streamChannels(Emitter &emitter, const ProjectionWork &work,
                           const ProjectionTiling &tiling, Finish finish) {
  const cmd::GlobalTensor &x = work.x;
  int64_t m = x.rows();
  int64_t n = work.projections.front().weight.rows();
  for (int64_t m0 = 0; m0 < m; m0 += tiling.rowTile) {
    int64_t rows = std::min(tiling.rowTile, m - m0);
    emitter.getArena().beginOp();
    ProjectionPlan plan(emitter, tiling, work.outputType, work.residual,
                        work.quantizedType, work.heldY);
    std::vector<std::pair<int64_t, int64_t>> channelTiles =
        tiling.getChannelTiles(n, emitter.getLanes());
    auto tiles = static_cast<int64_t>(channelTiles.size());
    ProjectionPlan lastPlan(
        emitter,
        tiling.getLastTile(channelTiles.back().second, emitter.getLanes()),
        work.outputType, work.residual, work.quantizedType, work.heldY);
    cmd::LocalTensor xLocal =
        work.heldX ? *work.heldX : plan.activationLayout(x, rows);
    if (!work.heldX)
      if (llvm::Error error = emitter.pin(xLocal))
        return error;
    std::vector<std::vector<ProjectionTile>> loaded(tiles);
    auto issueLoads = [&](int64_t t) -> llvm::Error {
      auto [n0, count] = channelTiles[t];
      for (const ProjectionWeights &weights : work.projections) {
        llvm::Expected<ProjectionTile> tile =
            (t == tiles - 1 ? lastPlan : plan)
                .load(weights, m0, n0, count, rows, loaded[t].empty());
        if (!tile)
          return tile.takeError();
        loaded[t].push_back(*tile);
      }
      return llvm::Error::success();
    };
    // Weights first: they do not wait for the previous op's stores, so
    // they stream while its last tile computes.
    for (int64_t t = 0; t < std::min(tiling.tilesBeforeX, tiles); ++t)
      if (llvm::Error error = issueLoads(t))
        return error;
    if (!work.heldX)
      emitter.load(sliceRows(x, m0, rows), xLocal);
    for (int64_t t = tiling.tilesBeforeX; t < std::min(kPrefetch, tiles); ++t)
      if (llvm::Error error = issueLoads(t))
        return error;
    for (int64_t t = 0; t < tiles; ++t) {
      for (auto [tile, weights] : llvm::zip(loaded[t], work.projections))
        plan.compute(xLocal, tile, weights.input);
      finish(loaded[t], m0, channelTiles[t].first);
      if (t + kPrefetch < tiles)
        if (llvm::Error error = issueLoads(t + kPrefetch))
          return error;
    }
  }
  return llvm::Error::success();
}

/// Streams `work` with the fastest tiling the time model finds among each
/// split's largest tiling, that tiling with half the channels (more,
/// smaller tiles start computing sooner), and, splitting rows, both with
/// output tiles of whole DDR bursts per row (a strided store moves whole
/// bursts).
template <typename Finish>
llvm::Error streamFastest(Emitter &emitter, const ProjectionWork &work,
                          Finish finish) {
  std::vector<ProjectionTiling> candidates;
  int64_t burstChannels =
      std::max<int64_t>(1, cmodel::TimeModelParams().ddrBurstBytes * 8 /
                               cmodel::getDTypeBits(work.outputType));
  for (LaneSplit split : {LaneSplit::Channels, LaneSplit::Rows}) {
    if (work.heldX && (split == LaneSplit::Rows) !=
                          (work.heldX->layout() == cmd::LAYOUT_ROWS))
      continue;
    if (work.heldY && split != LaneSplit::Rows)
      continue;
    std::optional<ProjectionTiling> largest =
        largestTiling(emitter, work, split);
    if (!largest)
      continue;
    ProjectionTiling half = *largest;
    if (split == LaneSplit::Channels) {
      half.perLane = llvm::divideCeil(largest->perLane, 2);
      half.channelTile = half.perLane * emitter.getLanes();
    } else {
      half.channelTile =
          llvm::alignTo(llvm::divideCeil(largest->channelTile, 2),
                        getHeldChannelUnit(emitter, work));
    }
    for (const ProjectionTiling &tiling : {*largest, half}) {
      if (!candidates.empty() &&
          candidates.back().channelTile == tiling.channelTile &&
          candidates.back().split == tiling.split)
        continue;
      candidates.push_back(tiling);
      // Nothing stores a held y's tiles.
      int64_t whole = llvm::alignDown(tiling.channelTile, burstChannels);
      if (split == LaneSplit::Rows && !work.heldY && whole &&
          whole != tiling.channelTile) {
        candidates.push_back(tiling);
        candidates.back().channelTile = whole;
      }
    }
  }
  if (candidates.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a weight row of " + llvm::Twine(work.x.cols()) +
            " elements does not fit a lane's streaming memory");
  if (!work.search)
    return streamChannels(emitter, work, candidates.front(),
                          [&](auto &&...args) { finish(emitter, args...); });
  // The piece's last projection: its last tile's computation and store are
  // exposed, with nothing after them to overlap. Finer channel tiles
  // shorten that tail, and x loaded after the first tile lets the first
  // computation start sooner. Only here is the greedy search's cost (the
  // piece so far) the whole piece's, so only here are they weighed: for an
  // earlier op, finer tiles finish it sooner but load the next op's weights
  // later.
  if (work.endsPiece) {
    std::vector<ProjectionTiling> tails;
    for (const ProjectionTiling &tiling : candidates) {
      if (tiling.split != LaneSplit::Channels)
        continue;
      for (int64_t parts : {4, 8}) {
        ProjectionTiling finer = tiling;
        finer.perLane = llvm::divideCeil(tiling.perLane, parts);
        finer.channelTile = finer.perLane * emitter.getLanes();
        tails.push_back(finer);
      }
    }
    // A short last tile after the largest tiles.
    int64_t n = work.projections.front().weight.rows();
    if (!candidates.empty() && candidates.front().split == LaneSplit::Channels)
      for (int64_t tail : kTailsPerLane)
        if (tail < candidates.front().perLane &&
            tail * emitter.getLanes() < n) {
          tails.push_back(candidates.front());
          tails.back().tailPerLane = tail;
        }
    candidates.insert(candidates.end(), tails.begin(), tails.end());
    size_t listed = candidates.size();
    for (size_t i = 0; i < listed; ++i) {
      candidates.push_back(candidates[i]);
      candidates.back().tilesBeforeX = 1;
    }
  }
  llvm::Expected<ProjectionTiling> best = chooseFastest<ProjectionTiling>(
      emitter, candidates,
      [&](Emitter &trial, const ProjectionTiling &tiling) -> llvm::Error {
        if (llvm::Error error =
                streamChannels(trial, work, tiling,
                               [&](auto &&...args) { finish(trial, args...); }))
          return error;
        return work.then ? work.then(trial) : llvm::Error::success();
      });
  if (!best)
    return best.takeError();
  return streamChannels(emitter, work, *best,
                        [&](auto &&...args) { finish(emitter, args...); });
}

/// `work`'s projection (one) into y, each tile stored unless y is held.
llvm::Error streamProjection(Emitter &emitter, const ProjectionWork &work,
                             const cmd::GlobalTensor &y) {
  return streamFastest(
      emitter, work,
      [&](Emitter &target, llvm::ArrayRef<ProjectionTile> tiles, int64_t m0,
          int64_t n0) {
        if (work.heldY)
          return;
        const cmd::LocalTensor &local = tiles.front().y;
        target.store(
            local, sliceCols(sliceRows(y, m0, local.rows()), n0, local.cols()));
      });
}

} // namespace

llvm::Error emitProjection(Emitter &emitter, const cmd::GlobalTensor &x,
                           const ProjectionWeights &weights,
                           const cmd::GlobalTensor &y,
                           const cmd::GlobalTensor *residual, bool endsPiece,
                           const cmd::LocalTensor *heldX,
                           const cmd::LocalTensor *heldY) {
  if (emitter.isUntiled())
    return emitUntiledProjection(emitter, x, weights, y, residual);
  ProjectionWork work{
      x,         weights, y.dtype(), residual, cmd::DTYPE_INVALID,
      endsPiece, heldX,   heldY};
  return streamProjection(emitter, work, y);
}

/// The command computing `activation`, without tensors.
static cmd::Compute makeActivation(top::Activation activation) {
  switch (activation) {
  case top::Activation::SiLU:
    return cmodel::makeCompute(cmd::SILU, {}, {});
  case top::Activation::GELU:
  case top::Activation::GELUTanh: {
    cmd::Compute act = cmodel::makeCompute(cmd::GELU, {}, {});
    act.set_tanh_approx(activation == top::Activation::GELUTanh);
    return act;
  }
  case top::Activation::ReLU:
    return cmodel::makeCompute(cmd::RELU, {}, {});
  }
  llvm_unreachable("unknown activation");
}

/// h = act(gate(x)) * up(x) into `scratch` (columns as gate's rows).
/// The activation and product compute in `hiddenType`; with `intermediate`
/// present, h is quantized before it is stored (INT8).
static llvm::Error emitGatedActivation(
    Emitter &emitter, const cmd::GlobalTensor &x, const ProjectionWeights &gate,
    const ProjectionWeights &up, top::Activation activation,
    cmd::DType hiddenType, const ActivationQuantization &intermediate,
    const cmd::GlobalTensor &scratch, const cmd::LocalTensor *heldX,
    llvm::function_ref<llvm::Error(Emitter &)> then = nullptr) {
  cmd::Compute act = makeActivation(activation);
  if (emitter.isUntiled()) {
    if (intermediate.present())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "chip '" + emitter.getChip().id +
              "' has no 8-bit MLP intermediate (INT8 mode)");
    return emitUntiledGatedMatMul(emitter, x, gate, up, act, scratch);
  }
  ProjectionWeights both[] = {gate, up};
  ProjectionWork work{x,
                      both,
                      hiddenType,
                      /*residual=*/nullptr,
                      intermediate.dtype,
                      /*endsPiece=*/false,
                      heldX,
                      /*heldY=*/nullptr,
                      then};
  return streamFastest(
      emitter, work,
      [&](Emitter &target, llvm::ArrayRef<ProjectionTile> tiles, int64_t m0,
          int64_t n0) {
        const cmd::LocalTensor &g = tiles[0].y;
        cmd::Compute step = act;
        *step.add_inputs() = g;
        *step.add_outputs() = g;
        target.compute(step);
        target.compute(cmodel::makeCompute(cmd::MUL, {g, tiles[1].y}, {g}));
        const cmd::LocalTensor *h = &g;
        if (intermediate.present()) {
          h = &tiles[0].quantized;
          cmd::Compute quantize = cmodel::makeCompute(cmd::CAST, {g}, {*h});
          quantize.set_scalar(intermediate.scale);
          quantize.set_zero_point(intermediate.zeroPoint);
          target.compute(quantize);
        }
        target.store(
            *h, sliceCols(sliceRows(scratch, m0, h->rows()), n0, h->cols()));
      });
}

/// Output channels [begin, begin + count) of `weights`.
static ProjectionWeights sliceChannels(const ProjectionWeights &weights,
                                       const CoreRange &range) {
  ProjectionWeights slice = weights;
  for (cmd::GlobalTensor *rows : {&slice.weight, &slice.scale, &slice.zp})
    if (present(*rows))
      *rows = sliceRows(*rows, range.begin, range.count);
  if (present(slice.bias))
    slice.bias = sliceCols(slice.bias, range.begin, range.count);
  return slice;
}

/// y = x w^T (+ residual), on one core or split by output channels.
static llvm::Error emitProjectionOnCores(SectionWriter &sections, int64_t cores,
                                         const cmd::GlobalTensor &x,
                                         const ProjectionWeights &weights,
                                         const cmd::GlobalTensor &y,
                                         const cmd::GlobalTensor *residual,
                                         bool endsPiece,
                                         const cmd::LocalTensor *heldX) {
  if (cores <= 1)
    return emitProjection(sections.serial(), x, weights, y, residual, endsPiece,
                          heldX);
  int64_t lanes = sections.getChip().npuLanes;
  return sections.parallel(
      cores, [&](Emitter &emitter, int64_t core) -> llvm::Error {
        CoreRange range = getCoreRange(y.cols(), cores, core, lanes);
        if (!range.count)
          return llvm::Error::success();
        std::optional<cmd::GlobalTensor> part;
        if (residual)
          part = sliceCols(*residual, range.begin, range.count);
        return emitProjection(emitter, x, sliceChannels(weights, range),
                              sliceCols(y, range.begin, range.count),
                              part ? &*part : nullptr, endsPiece);
      });
}

/// The gated MLP on one core: h = act(gate(x)) * up(x) into `scratch`,
/// then y = down(h), or, when the time model finds it faster (a float MLP
/// over rows enough to spread over the lanes), h kept in local memory by
/// emitRowMlp.
static llvm::Error emitGatedMlpOnOneCore(
    Emitter &emitter, const cmd::GlobalTensor &x, const ProjectionWeights &gate,
    const ProjectionWeights &up, const ProjectionWeights &down,
    top::Activation activation, const ActivationQuantization &intermediate,
    const cmd::GlobalTensor &scratch, const cmd::GlobalTensor &y,
    const cmd::GlobalTensor *residual, bool endsPiece,
    const cmd::LocalTensor *heldX) {
  // Costing gate/up's tilings, the down projection stands in with its
  // first tiling: its own search for each would multiply the runs.
  auto costDown = [&](Emitter &target) {
    ProjectionWork work{scratch, down, y.dtype(), residual};
    work.search = false;
    return streamProjection(target, work, y);
  };
  auto throughScratch = [&](Emitter &target) -> llvm::Error {
    if (llvm::Error error =
            emitGatedActivation(target, x, gate, up, activation, y.dtype(),
                                intermediate, scratch, heldX, costDown))
      return error;
    return emitProjection(target, scratch, down, y, residual, endsPiece);
  };
  bool floatWeights = !present(gate.scale) && !present(down.scale) &&
                      !gate.input.present() && !intermediate.present();
  bool replicatedX = heldX && heldX->layout() != cmd::LAYOUT_ROWS;
  if (emitter.isUntiled() || replicatedX || !floatWeights || x.rows() < 2)
    return throughScratch(emitter);
  // Candidates: nullopt is the two-op form, listed first to win ties.
  std::vector<std::optional<RowMlpTiling>> candidates = {std::nullopt};
  for (const RowMlpTiling &tiling :
       listRowMlpTilings(emitter, x, gate, down, y.dtype(), y.dtype(), heldX))
    candidates.push_back(tiling);
  cmd::Compute act = makeActivation(activation);
  auto emit = [&](Emitter &target,
                  const std::optional<RowMlpTiling> &tiling) -> llvm::Error {
    if (!tiling)
      return throughScratch(target);
    return emitRowMlp(target, x, gate, up, down, act, y.dtype(), y, residual,
                      *tiling, heldX);
  };
  if (candidates.size() == 1)
    return throughScratch(emitter);
  llvm::Expected<std::optional<RowMlpTiling>> best =
      chooseFastest<std::optional<RowMlpTiling>>(emitter, candidates, emit);
  if (!best)
    return best.takeError();
  return emit(emitter, *best);
}

/// The activation of a tpu.MLP or tpu.A16MLP.
static llvm::Expected<top::Activation> getMlpActivation(Operation *mlp) {
  if (auto op = dyn_cast<tpu::MLPOp>(mlp))
    return op.getActivation();
  if (auto op = dyn_cast<tpu::A16MLPOp>(mlp))
    return op.getActivation();
  return opError(mlp, "is not a tpu.MLP or tpu.A16MLP");
}

llvm::Error
emitGatedMlp(Emitter &emitter, Operation *mlp, const cmd::GlobalTensor &x,
             const ProjectionWeights &gate, const ProjectionWeights &up,
             const ProjectionWeights &down, const cmd::GlobalTensor &scratch,
             const cmd::GlobalTensor &y, const cmd::GlobalTensor *residual,
             const cmd::LocalTensor *heldX) {
  llvm::Expected<top::Activation> activation = getMlpActivation(mlp);
  if (!activation)
    return activation.takeError();
  return emitGatedMlpOnOneCore(emitter, x, gate, up, down, *activation,
                               /*intermediate=*/{}, scratch, y, residual,
                               /*endsPiece=*/false, heldX);
}

/// The gated MLP: h = act(gate(x)) * up(x) into `scratch`, then y =
/// down(h). Split, each core computes a range of h's channels, then (after
/// the barrier, as it needs all of h) a range of y's.
static llvm::Error
emitGatedMlp(SectionWriter &sections, int64_t cores, const cmd::GlobalTensor &x,
             const ProjectionWeights &gate, const ProjectionWeights &up,
             const ProjectionWeights &down, top::Activation activation,
             const ActivationQuantization &intermediate,
             const cmd::GlobalTensor &scratch, const cmd::GlobalTensor &y,
             const cmd::GlobalTensor *residual, bool endsPiece,
             const cmd::LocalTensor *heldX) {
  if (cores <= 1)
    return emitGatedMlpOnOneCore(sections.serial(), x, gate, up, down,
                                 activation, intermediate, scratch, y, residual,
                                 endsPiece, heldX);
  int64_t lanes = sections.getChip().npuLanes;
  llvm::Error error = sections.parallel(
      cores, [&](Emitter &emitter, int64_t core) -> llvm::Error {
        CoreRange range = getCoreRange(scratch.cols(), cores, core, lanes);
        if (!range.count)
          return llvm::Error::success();
        return emitGatedActivation(
            emitter, x, sliceChannels(gate, range), sliceChannels(up, range),
            activation, y.dtype(), intermediate,
            sliceCols(scratch, range.begin, range.count), heldX);
      });
  if (error)
    return error;
  return emitProjectionOnCores(sections, cores, scratch, down, y, residual,
                               endsPiece, /*heldX=*/nullptr);
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

/// The 8-bit quantization of `type` (a per-tensor quantized type, or a
/// tensor of one).
ActivationQuantization getQuantization(Type type) {
  auto uniform = cast<quant::UniformQuantizedType>(getElementTypeOrSelf(type));
  ActivationQuantization result;
  result.dtype = uniform.isSigned() ? cmd::DTYPE_I8 : cmd::DTYPE_U8;
  result.scale = uniform.getScale();
  result.zeroPoint = static_cast<int32_t>(uniform.getZeroPoint());
  return result;
}
ActivationQuantization getQuantization(Value value) {
  return getQuantization(value.getType());
}

/// `weights` read by an I8MATMUL whose x is quantized as `input`.
llvm::Expected<ProjectionWeights>
quantizeInput(llvm::Expected<ProjectionWeights> weights,
              const ActivationQuantization &input) {
  if (weights)
    weights->input = input;
  return weights;
}

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

/// x viewed as [M, `cols`]: where it is in global memory, or, when a layer
/// group holds it in `held`, its shape alone (`heldX` set to the held
/// tensor; nothing loads it).
llvm::Expected<cmd::GlobalTensor> viewInput(const ValuePlacement &placement,
                                            const HeldValues *held, Value input,
                                            int64_t cols,
                                            const cmd::LocalTensor *&heldX) {
  heldX = nullptr;
  if (held)
    if (auto it = held->find(input); it != held->end()) {
      heldX = &it->second;
      return cmodel::globalTensor(cmd::REGION_INVALID, 0,
                                  getNumElements(input) / cols, cols,
                                  it->second.dtype());
    }
  return placement.view(input, cols);
}

llvm::Error emitLinear(SectionWriter &sections, int64_t cores,
                       const ValuePlacement &placement,
                       const LinearOutput &output, Value input,
                       llvm::Expected<ProjectionWeights> weights,
                       bool endsPiece, const HeldValues *held,
                       const cmd::LocalTensor *heldY) {
  if (!weights)
    return weights.takeError();
  int64_t k = weights->weight.cols();
  const cmd::LocalTensor *heldX;
  llvm::Expected<cmd::GlobalTensor> x =
      viewInput(placement, held, input, k, heldX);
  if (!x)
    return x.takeError();
  // A held y is not in global memory: its view only gives the shape.
  if (heldY)
    return emitProjection(
        sections.serial(), *x, *weights,
        cmodel::globalTensor(cmd::REGION_INVALID, 0, x->rows(),
                             weights->weight.rows(), heldY->dtype()),
        /*residual=*/nullptr, endsPiece, heldX, heldY);
  cmd::GlobalTensor y;
  std::optional<cmd::GlobalTensor> residual;
  if (llvm::Error error =
          viewOutput(placement, output, weights->weight.rows(), y, residual))
    return error;
  return emitProjectionOnCores(sections, cores, *x, *weights, y,
                               residual ? &*residual : nullptr, endsPiece,
                               heldX);
}

} // namespace

llvm::Error emitLinearOp(SectionWriter &sections,
                         const ValuePlacement &placement, Operation *op,
                         Operation *residualAdd, bool endsPiece,
                         const HeldValues *held,
                         const cmd::LocalTensor *heldY) {
  auto split = op->getAttrOfType<tpu::CoreSplitAttr>("core_split");
  int64_t cores = split ? split.getCores() : 1;
  // Each core's local memory starts empty in its section.
  if (cores > 1 && ((held && held->count(op->getOperand(0))) || heldY))
    return opError(op, "is split across cores but its layer group holds its "
                       "input or result in local memory");
  if (heldY &&
      (residualAdd || isa<tpu::MLPOp, tpu::A16MLPOp, tpu::A8MLPOp>(op)))
    return opError(op, "is held by its layer group, which codegen implements "
                       "for a projection without a residual add only");
  WeightViews views(placement);
  LinearOutput output = getLinearOutput(op, residualAdd);
  auto scratchView = [&](Value input,
                         int64_t cols) -> llvm::Expected<cmd::GlobalTensor> {
    llvm::Expected<std::pair<cmd::Region, uint64_t>> scratch =
        placement.getScratch(op);
    if (!scratch)
      return opError(op, llvm::toString(scratch.takeError()));
    llvm::Expected<cmd::DType> dtype =
        getDType(cast<ShapedType>(input.getType()).getElementType());
    if (!dtype)
      return dtype.takeError();
    int64_t rows = getNumElements(input) /
                   cast<ShapedType>(input.getType()).getShape().back();
    return cmodel::globalTensor(scratch->first, scratch->second, rows, cols,
                                *dtype);
  };
  auto mlp = [&](Value input, llvm::Expected<ProjectionWeights> gate,
                 llvm::Expected<ProjectionWeights> up,
                 llvm::Expected<ProjectionWeights> down,
                 top::Activation activation,
                 ActivationQuantization intermediate = {}) -> llvm::Error {
    if (!gate)
      return gate.takeError();
    if (!up)
      return up.takeError();
    if (!down)
      return down.takeError();
    const cmd::LocalTensor *heldX;
    llvm::Expected<cmd::GlobalTensor> x =
        viewInput(placement, held, input, gate->weight.cols(), heldX);
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
    return emitGatedMlp(sections, cores, *x, *gate, *up, *down, activation,
                        intermediate, *scratch, y,
                        residual ? &*residual : nullptr, endsPiece, heldX);
  };
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](tpu::MatMulOp matmul) -> llvm::Error {
        if (matmul.getLeftTranspose() || !matmul.getRightTranspose())
          return opError(op, "codegen handles x [M, K] times a weight "
                             "[N, K] (right_transpose) only");
        return emitLinear(
            sections, cores, placement, output, matmul.getInput(),
            views.get(matmul.getRight(), nullptr, nullptr, matmul.getBias()),
            endsPiece, held, heldY);
      })
      .Case([&](tpu::A16MatMulOp matmul) {
        return emitLinear(sections, cores, placement, output, matmul.getInput(),
                          views.get(matmul.getWeight(), matmul.getScale(),
                                    matmul.getZp(), matmul.getBias()),
                          endsPiece, held, heldY);
      })
      .Case([&](tpu::A8MatMulOp matmul) {
        ActivationQuantization input = getQuantization(matmul.getInput());
        return emitLinear(
            sections, cores, placement, output, matmul.getInput(),
            quantizeInput(views.get(matmul.getWeight(), matmul.getScale(),
                                    nullptr, matmul.getBias()),
                          input),
            endsPiece, held, heldY);
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
                   views.get(mlpOp.getUp(), mlpOp.getUpScale(), mlpOp.getUpZp(),
                             nullptr),
                   views.get(mlpOp.getDown(), mlpOp.getDownScale(),
                             mlpOp.getDownZp(), nullptr),
                   mlpOp.getActivation());
      })
      .Case([&](tpu::A8MLPOp mlpOp) {
        ActivationQuantization input = getQuantization(mlpOp.getInput());
        ActivationQuantization intermediate =
            getQuantization(mlpOp.getIntermediate());
        return mlp(
            mlpOp.getInput(),
            quantizeInput(views.get(mlpOp.getGate(), mlpOp.getGateScale(),
                                    nullptr, nullptr),
                          input),
            quantizeInput(
                views.get(mlpOp.getUp(), mlpOp.getUpScale(), nullptr, nullptr),
                input),
            quantizeInput(views.get(mlpOp.getDown(), mlpOp.getDownScale(),
                                    nullptr, nullptr),
                          intermediate),
            mlpOp.getActivation(), intermediate);
      })
      .Default([&](Operation *) { return opError(op, "is not a linear op"); });
}

} // namespace llmc::codegen
