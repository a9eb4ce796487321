//===- EmitRowMlp.cpp - a gated MLP whose intermediate stays local --------===//
//
// A prefill's gated MLP with each lane a few of x's rows. A chunk of
// intermediate channels at a time, the gate and up tiles (broadcast to the
// lanes) give that chunk of h = act(gate(x)) * up(x) on every lane's rows;
// once a down chunk of h is there (one or a few such chunks), the down
// projection's columns for it add its share of y to float32 partial sums
// that stay in local memory: K is split, h never leaves local memory, and
// the two-op form's round trip of h through global memory (M x I elements
// stored, then loaded) is gone. Each weight byte is loaded once per row
// tile. Longer down chunks add to the sums less often (an addition per
// output element each time) but take more of the ring.
//
// The weight tiles (gate, up, down, chunk after chunk) stream through the
// ring, each issued as soon as the ring has room beside the tiles still to
// be read, so the next chunk's loads run under this chunk's products.
//
//===----------------------------------------------------------------------===//

#include "backends/common/codegen/Emitters.h"

#include "backends/common/cmodel/DType.h"
#include "backends/common/cmodel/StreamBuilder.h"

#include "llvm/Support/MathExtras.h"

namespace llmc::codegen {
namespace {

/// Weight tiles loaded into the ring in order, each as soon as its bytes
/// no longer hold a tile whose reader is still to be issued.
class TileStream {
public:
  explicit TileStream(Emitter &emitter) : emitter(emitter) {}

  /// Appends a tile to load; returns its index.
  size_t add(const cmd::GlobalTensor &from, const cmd::LocalTensor &to) {
    tiles.push_back({from, to});
    return tiles.size() - 1;
  }

  /// Tile `index`, loaded.
  llvm::Expected<cmd::LocalTensor> get(size_t index) {
    if (index >= nextLoad)
      if (llvm::Error error = fill())
        return std::move(error);
    if (index >= nextLoad)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "local memory: an MLP weight tile does not fit beside the tiles "
          "still to be read");
    return tiles[index].to;
  }

  /// The commands reading tile `index` are issued: its bytes may be
  /// reused (the hazard tracker orders the reuse after them).
  llvm::Error release(size_t index) {
    tiles[index].released = true;
    return fill();
  }

  /// Issues loads while the ring has room.
  llvm::Error fill() {
    LocalArena &arena = emitter.getArena();
    while (nextLoad < tiles.size()) {
      Tile &tile = tiles[nextLoad];
      uint64_t bytes = emitter.getFootprint(tile.to);
      std::optional<uint64_t> address = arena.peekRing(bytes);
      if (!address)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "local memory: an MLP weight tile of " + llvm::Twine(bytes) +
                " bytes per lane exceeds the streaming bytes");
      uint64_t end = *address + bytes;
      for (size_t i = firstUnreleased; i < nextLoad; ++i) {
        const Tile &live = tiles[i];
        uint64_t begin = live.to.address();
        if (!live.released && *address < begin + emitter.getFootprint(live.to) &&
            begin < end)
          return llvm::Error::success();
      }
      if (llvm::Error error = emitter.ring(tile.to))
        return error;
      emitter.load(tile.from, tile.to);
      ++nextLoad;
      while (firstUnreleased < nextLoad && tiles[firstUnreleased].released)
        ++firstUnreleased;
    }
    return llvm::Error::success();
  }

private:
  struct Tile {
    cmd::GlobalTensor from;
    cmd::LocalTensor to;
    bool released = false;
  };
  Emitter &emitter;
  std::vector<Tile> tiles;
  size_t nextLoad = 0;
  size_t firstUnreleased = 0;
};

/// Per-lane bytes of `rows` rows of `cols` elements.
uint64_t getRowsBytes(const Emitter &emitter, int64_t rows, int64_t cols,
                      cmd::DType dtype, uint64_t alignment) {
  return llvm::alignTo(rows * emitter.getRowBytes(cols, dtype), alignment);
}

/// The shapes an MLP's row tiling is sized by.
struct RowMlpShape {
  int64_t rows, k, intermediate, n;
  cmd::DType xType, weightType, hiddenType, yType;
};

RowMlpShape getShape(const cmd::GlobalTensor &x, const ProjectionWeights &gate,
                     const ProjectionWeights &down, cmd::DType hiddenType,
                     cmd::DType yType) {
  return {x.rows(),           x.cols(),
          gate.weight.rows(), down.weight.rows(),
          x.dtype(),          gate.weight.dtype(),
          hiddenType,         yType};
}

/// Per-lane bytes the op keeps for its whole run: x's rows (unless a
/// layer group holds them), the partial sums, y's rows (when y is not
/// float32), a down chunk of h and a chunk of the up product.
uint64_t getPinnedBytes(const Emitter &emitter, const RowMlpShape &shape,
                        const RowMlpTiling &tiling, uint64_t alignment,
                        bool heldX) {
  int64_t p = tiling.perLane;
  uint64_t bytes =
      (heldX ? 0 : getRowsBytes(emitter, p, shape.k, shape.xType, alignment)) +
      getRowsBytes(emitter, p, shape.n, cmd::DTYPE_F32, alignment) +
      getRowsBytes(emitter, p, tiling.downChunk, shape.hiddenType,
                   alignment) +
      getRowsBytes(emitter, p, tiling.chunk, shape.hiddenType, alignment);
  if (shape.yType != cmd::DTYPE_F32)
    bytes += getRowsBytes(emitter, p, shape.n, shape.yType, alignment);
  return bytes;
}

/// Whether the ring beside the pinned buffers holds the largest weight
/// tile together with the smallest, so a load can always run ahead of the
/// product reading the tile before it.
bool fitsRing(const Emitter &emitter, const RowMlpShape &shape,
              const RowMlpTiling &tiling, bool heldX) {
  const LocalArena &arena = emitter.getArena();
  uint64_t laneBytes = arena.getLaneBytes();
  uint64_t alignment = arena.getAlignment();
  uint64_t pinned = getPinnedBytes(emitter, shape, tiling, alignment, heldX);
  // LocalArena::pin leaves the ring at least a quarter of the lane.
  if (pinned > laneBytes - laneBytes / 4)
    return false;
  uint64_t gateTile =
      getRowsBytes(emitter, tiling.chunk, shape.k, shape.weightType, alignment);
  uint64_t downTile = getRowsBytes(emitter, shape.n, tiling.downChunk,
                                   shape.weightType, alignment);
  return std::max(gateTile, downTile) + std::min(gateTile, downTile) <=
         laneBytes - pinned;
}

/// The first `rows` rows of `tensor`, a rows layout.
cmd::LocalTensor view(const cmd::LocalTensor &tensor, int64_t rows) {
  return Emitter::viewRows(tensor, rows, 0, tensor.cols());
}

} // namespace

std::vector<RowMlpTiling>
listRowMlpTilings(const Emitter &emitter, const cmd::GlobalTensor &x,
                  const ProjectionWeights &gate, const ProjectionWeights &down,
                  cmd::DType hiddenType, cmd::DType yType,
                  const cmd::LocalTensor *heldX) {
  RowMlpShape shape = getShape(x, gate, down, hiddenType, yType);
  // Chunks of whole EU rows: the down tile's rows are a down chunk long,
  // and h's chunks start EU rows.
  int64_t unit = std::max<int64_t>(
      1, emitter.getChip().euBytesPerLane * 8 /
             cmodel::getDTypeBits(shape.weightType));
  int64_t lanes = emitter.getLanes();
  RowMlpTiling tiling;
  tiling.perLane = heldX ? heldX->per_lane()
                         : static_cast<int64_t>(
                               llvm::divideCeil(shape.rows, lanes));
  tiling.chunk = tiling.downChunk = unit;
  bool held = heldX != nullptr;
  // x held by a layer group has its own rows per lane.
  while (tiling.perLane > 0 && !fitsRing(emitter, shape, tiling, held))
    tiling.perLane = held ? 0 : tiling.perLane - 1;
  if (tiling.perLane == 0)
    return {};
  // Larger chunks first: fewer, larger tiles pay less DMA latency and
  // add to the sums less often; smaller ones leave the ring room to load
  // ahead. The time model chooses.
  int64_t limit = llvm::alignTo(shape.intermediate, unit);
  std::vector<RowMlpTiling> tilings;
  for (int64_t chunk = unit; chunk <= limit; chunk *= 2)
    for (int64_t downChunk = chunk; downChunk <= std::min(limit, 4 * chunk);
         downChunk *= 2) {
      RowMlpTiling candidate{tiling.perLane, chunk, downChunk};
      if (fitsRing(emitter, shape, candidate, held))
        tilings.insert(tilings.begin(), candidate);
    }
  if (tilings.size() > 4)
    tilings.resize(4);
  return tilings;
}

llvm::Error emitRowMlp(Emitter &emitter, const cmd::GlobalTensor &x,
                       const ProjectionWeights &gate,
                       const ProjectionWeights &up,
                       const ProjectionWeights &down,
                       const cmd::Compute &activation, cmd::DType hiddenType,
                       const cmd::GlobalTensor &y,
                       const cmd::GlobalTensor *residual,
                       const RowMlpTiling &tiling,
                       const cmd::LocalTensor *heldX) {
  int64_t m = x.rows(), intermediate = gate.weight.rows(),
          n = down.weight.rows();
  int64_t p = tiling.perLane;
  int64_t rowTile = std::min(m, p * emitter.getLanes());
  bool castsOutput = y.dtype() != cmd::DTYPE_F32;

  if (heldX && (heldX->layout() != cmd::LAYOUT_ROWS ||
                heldX->per_lane() != p || rowTile != m))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the MLP's x, held by its layer group, is not laid out as its rows "
        "tiling reads it");
  emitter.getArena().beginOp();
  cmd::LocalTensor xLocal =
      heldX ? *heldX : emitter.rowsLayout(rowTile, x.cols(), x.dtype(), p);
  cmd::LocalTensor sums = emitter.rowsLayout(rowTile, n, cmd::DTYPE_F32, p);
  cmd::LocalTensor hidden =
      emitter.rowsLayout(rowTile, tiling.downChunk, hiddenType, p);
  cmd::LocalTensor upped =
      emitter.rowsLayout(rowTile, tiling.chunk, hiddenType, p);
  for (cmd::LocalTensor *pinned : {&xLocal, &sums, &hidden, &upped})
    if (pinned != &xLocal || !heldX)
      if (llvm::Error error = emitter.pin(*pinned))
        return error;
  // y's rows: rounded from the sums, or the sums themselves in float32.
  cmd::LocalTensor out = sums;
  if (castsOutput) {
    out = emitter.rowsLayout(rowTile, n, y.dtype(), p);
    if (llvm::Error error = emitter.pin(out))
      return error;
  }

  // Every weight tile, in the order the products read them.
  struct DownChunk {
    int64_t begin, count;
    /// The gate and up tiles of its chunks, then its down tile.
    std::vector<std::pair<size_t, size_t>> gateUp;
    size_t down;
  };
  TileStream stream(emitter);
  std::vector<std::vector<DownChunk>> rowTiles;
  for (int64_t m0 = 0; m0 < m; m0 += rowTile) {
    int64_t rows = std::min(rowTile, m - m0);
    auto lanesUsed = static_cast<uint32_t>(llvm::divideCeil(rows, p));
    auto tileOf = [&](const cmd::GlobalTensor &weight, int64_t rows,
                      int64_t cols, const cmd::GlobalTensor &from) {
      return stream.add(from, emitter.replicated(rows, cols, weight.dtype(),
                                                 lanesUsed));
    };
    auto &chunks = rowTiles.emplace_back();
    for (int64_t d0 = 0; d0 < intermediate; d0 += tiling.downChunk) {
      DownChunk chunk;
      chunk.begin = d0;
      chunk.count = std::min(tiling.downChunk, intermediate - d0);
      for (int64_t c0 = d0; c0 < d0 + chunk.count; c0 += tiling.chunk) {
        int64_t count = std::min(tiling.chunk, d0 + chunk.count - c0);
        int64_t k = gate.weight.cols();
        chunk.gateUp.emplace_back(
            tileOf(gate.weight, count, k, sliceRows(gate.weight, c0, count)),
            tileOf(up.weight, count, k, sliceRows(up.weight, c0, count)));
      }
      chunk.down = tileOf(down.weight, n, chunk.count,
                          sliceCols(down.weight, d0, chunk.count));
      chunks.push_back(std::move(chunk));
    }
  }

  for (auto [index, chunks] : llvm::enumerate(rowTiles)) {
    int64_t m0 = static_cast<int64_t>(index) * rowTile;
    int64_t rows = std::min(rowTile, m - m0);
    // Weights first: they do not wait for the previous op's stores.
    if (llvm::Error error = stream.fill())
      return error;
    cmd::LocalTensor xRows = view(xLocal, rows);
    cmd::LocalTensor sumRows = view(sums, rows);
    cmd::LocalTensor outRows = view(out, rows);
    if (!heldX)
      emitter.load(sliceRows(x, m0, rows), xRows);
    if (residual) {
      emitter.load(sliceRows(*residual, m0, rows), outRows);
      if (castsOutput)
        emitter.compute(cmodel::makeCompute(cmd::CAST, {outRows}, {sumRows}));
    }
    for (const DownChunk &chunk : chunks) {
      for (auto [part, tiles] : llvm::enumerate(chunk.gateUp)) {
        int64_t col = static_cast<int64_t>(part) * tiling.chunk;
        int64_t count = std::min(tiling.chunk, chunk.count - col);
        cmd::LocalTensor g = Emitter::viewRows(hidden, rows, col, count);
        cmd::LocalTensor u = Emitter::viewRows(upped, rows, 0, count);
        std::pair<size_t, cmd::LocalTensor *> products[] = {{tiles.first, &g},
                                                             {tiles.second, &u}};
        for (auto [tile, product] : products) {
          llvm::Expected<cmd::LocalTensor> weight = stream.get(tile);
          if (!weight)
            return weight.takeError();
          emitter.compute(
              cmodel::makeCompute(cmd::MATMUL, {xRows, *weight}, {*product}));
          if (llvm::Error error = stream.release(tile))
            return error;
        }
        cmd::Compute act = activation;
        *act.add_inputs() = g;
        *act.add_outputs() = g;
        emitter.compute(act);
        emitter.compute(cmodel::makeCompute(cmd::MUL, {g, u}, {g}));
      }
      llvm::Expected<cmd::LocalTensor> weight = stream.get(chunk.down);
      if (!weight)
        return weight.takeError();
      cmd::Compute product = cmodel::makeCompute(
          cmd::MATMUL,
          {Emitter::viewRows(hidden, rows, 0, chunk.count), *weight},
          {sumRows});
      product.set_accumulate(residual || chunk.begin > 0);
      emitter.compute(product);
      if (llvm::Error error = stream.release(chunk.down))
        return error;
    }
    if (castsOutput)
      emitter.compute(cmodel::makeCompute(cmd::CAST, {sumRows}, {outRows}));
    emitter.store(outRows, sliceRows(y, m0, rows));
  }
  return llvm::Error::success();
}

} // namespace llmc::codegen
