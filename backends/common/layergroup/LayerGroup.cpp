//===- LayerGroup.cpp - the tpu-layer-group pass --------------------------===//
//
// Candidate groups are found by pattern (a norm whose every reader is a
// projection taking it as x), costed both ways with the chip's time model
// on the commands codegen issues for each, and formed when grouping is
// faster and what the group holds fits. A formed group is a tpu.Group at
// the norm's place: the norm's input enters through a tpu.Load, weights as
// inputs their projection streams, and each result read outside the group
// leaves through a tpu.Store.
//
//===----------------------------------------------------------------------===//

#include "backends/common/layergroup/Passes.h"

#include "backends/common/cmodel/DType.h"
#include "backends/common/cmodel/StreamBuilder.h"
#include "backends/common/cmodel/StreamTiming.h"
#include "backends/common/codegen/Emitters.h"
#include "backends/common/codegen/TilingSearch.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/ResidualAdd.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "support/LlvmStatus.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace llmc::layergroup {
#define GEN_PASS_DEF_TPULAYERGROUPPASS
#include "backends/common/layergroup/Passes.h.inc"
} // namespace llmc::layergroup

using namespace mlir;
using namespace llmc;
using namespace llmc::tpu;

namespace {

/// Pipeline stages of a group's ops.
enum Stage : int64_t { kLoadStage = 0, kComputeStage = 1, kStoreStage = 2 };

/// Whether `user` is a projection that can read `value` as its x from a
/// buffer its group holds (on one core: a split op's cores start empty).
bool readsAsHeldInput(Operation *user, Value value) {
  if (!isa<MatMulOp, A16MatMulOp, MLPOp, A16MLPOp>(user) ||
      user->hasAttr("core_split") || user->getOperand(0) != value)
    return false;
  if (auto matmul = dyn_cast<MatMulOp>(user))
    if (matmul.getLeftTranspose() || !matmul.getRightTranspose())
      return false;
  return llvm::count(user->getOperands(), value) == 1;
}

/// Leaves a group may be preceded by: they read nothing.
bool isLeaf(Operation *op) {
  return isa<top::WeightOp, top::NoneOp, ConstantOp>(op);
}

/// The ops of a group, in the order it runs them (block order, but for a
/// rope right after the projection it rotates), and those whose results it
/// holds
/// with their bytes per lane (placed from the top of the lane down, in
/// this order). A group of a norm or attention and the projections that
/// read it also keeps that producer, its shape for the costing, and how
/// many of its rows each lane holds (0: all of them, a norm whole on every
/// lane); every value it holds lies so.
struct Candidate {
  SmallVector<Operation *> ops;
  SmallVector<std::pair<Operation *, uint64_t>> held;
  /// Ops after the group's first that it reads but that read only what
  /// precedes that first op (a rope's gathered tables): they move before
  /// the group.
  SmallVector<Operation *> hoisted;
  Operation *producer = nullptr;
  int64_t rows = 0, cols = 0;
  cmd::DType dtype = cmd::DTYPE_INVALID;
  int64_t rowsPerLane = 0;
};

/// Whether a group of `ops` (the first of them first in the block) can
/// replace them at the first one's place: everything they read from
/// outside is there already, or is a leaf that can move there, or (given
/// `hoisted`, which collects them) an op reading only such values, which
/// can move there too.
bool canGroupAtFirst(ArrayRef<Operation *> ops,
                     SmallVectorImpl<Operation *> *hoisted = nullptr) {
  Operation *first = ops.front();
  llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());
  auto precedes = [&](Value value) {
    Operation *producer = value.getDefiningOp();
    return !producer || isLeaf(producer) || producer->isBeforeInBlock(first);
  };
  for (Operation *member : ops)
    for (Value operand : member->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || inside.contains(producer) || precedes(operand))
        continue;
      if (!hoisted || !llvm::all_of(producer->getOperands(), precedes))
        return false;
      if (!llvm::is_contained(*hoisted, producer))
        hoisted->push_back(producer);
    }
  return true;
}

/// The bytes per lane of `rows` x `cols` of `dtype` when each lane holds
/// `rowsPerLane` of the rows.
uint64_t getHeldBytes(const plugins::ChipDescriptor &chip, int64_t rowsPerLane,
                      int64_t cols, cmd::DType dtype) {
  return rowsPerLane *
         llvm::alignTo(cmodel::getDTypeBytes(dtype, cols),
                       static_cast<uint64_t>(chip.euBytesPerLane));
}

/// A group holding `producer`'s result, with the result's shape as rows
/// of its last dimension; none when that shape is not static or its
/// element type has no cmodel dtype.
std::optional<Candidate> startHeldCandidate(Operation *producer) {
  auto type = dyn_cast<RankedTensorType>(producer->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getRank() == 0)
    return std::nullopt;
  llvm::Expected<cmd::DType> dtype = codegen::getDType(type.getElementType());
  if (!dtype) {
    llvm::consumeError(dtype.takeError());
    return std::nullopt;
  }
  Candidate candidate;
  candidate.producer = producer;
  candidate.cols = type.getShape().back();
  candidate.rows = type.getNumElements() / candidate.cols;
  candidate.dtype = *dtype;
  return candidate;
}

class Planner {
public:
  explicit Planner(const plugins::ChipDescriptor &chip) : chip(chip) {}

  /// A norm and the projections reading it (with the residual adds they
  /// absorb), when their x can be the norm held on every lane.
  std::optional<Candidate> findNormCandidate(Operation *op) const;
  /// The gathers of rotary tables and the ropes reading them, when every
  /// row has a lane of its own: the ropes then run as one tile either way,
  /// and the group only saves the tables' stores and loads.
  std::optional<Candidate> findRopeCandidate(Operation *op) const;
  /// How many cycles grouping `candidate` saves by the time model; none
  /// when it saves none.
  std::optional<uint64_t> getSaving(const Candidate &candidate) const;
  /// `candidate` (a norm or attention and the projections reading it)
  /// with the producer's rows held over the lanes (a prefill's rows, which
  /// no lane holds whole), when they leave the ops half of each lane and
  /// the time model finds the producer and its readers faster grouped, the
  /// readers splitting rows as the producer's rows lie; `saving` receives
  /// the cycles it saves.
  std::optional<Candidate> holdRows(Candidate candidate,
                                    uint64_t *saving = nullptr) const;
  /// `candidate`, a norm's rows group, grown by the ropes its projections
  /// feed through a reshape: each such projection's result held over the
  /// lanes as the norm's rows lie, the rope reading it there, so that q
  /// and k leave local memory once, rotated. None when no projection feeds
  /// a rope or what the group holds would pass half of each lane.
  std::optional<Candidate> withRopes(Candidate candidate) const;
  /// Attention and the projection reading its output (with the residual
  /// add it absorbs), o's rows held over the lanes as attention splits
  /// query rows, when the time model finds that faster: a prefill's o
  /// then never reaches global memory.
  std::optional<Candidate> findAttentionCandidate(Operation *op) const;
  void form(const Candidate &candidate, int64_t id) const;

  /// The `lg` of a group's op: held (`size` > 0) at `address`, in the bank
  /// that address starts.
  LayerGroupAttr getLg(MLIRContext *context, int64_t id, int64_t stage,
                       int64_t timestep, int64_t address = 0,
                       int64_t size = 0, int64_t rowsPerLane = 0) const;
  /// Each held op of `candidate` with where its `lg` places it (group and
  /// time step 0): from the top of the lane down, in order.
  SmallVector<std::pair<Operation *, LayerGroupAttr>>
  placeHeld(const Candidate &candidate) const;

private:
  /// The modelled cycles of `candidate`'s ops as codegen emits them:
  /// grouped (what it holds computed into local memory and read there) or
  /// alone (each op storing its result, each reader loading it).
  llvm::Expected<uint64_t> cost(const Candidate &candidate,
                                bool grouped) const;

  const plugins::ChipDescriptor &chip;
};

std::optional<Candidate> Planner::findNormCandidate(Operation *op) const {
  std::optional<codegen::RowwiseNorm> norm = codegen::getRowwiseNorm(op);
  if (!norm || op->hasAttr("lg"))
    return std::nullopt;
  Value result = op->getResult(0);
  if (result.use_empty())
    return std::nullopt;
  std::optional<Candidate> candidate = startHeldCandidate(op);
  if (!candidate)
    return std::nullopt;
  llvm::SetVector<Operation *> members;
  members.insert(op);
  for (Operation *user : result.getUsers()) {
    if (user->getBlock() != op->getBlock() || !readsAsHeldInput(user, result))
      return std::nullopt;
    members.insert(user);
  }
  SmallVector<Operation *> adds;
  for (Operation *member : members)
    if (Operation *add = getAbsorbedResidualAdd(member))
      adds.push_back(add);
  members.insert(adds.begin(), adds.end());
  candidate->ops = members.takeVector();
  llvm::sort(candidate->ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (!canGroupAtFirst(candidate->ops))
    return std::nullopt;
  candidate->held.push_back(
      {op, getHeldBytes(chip, candidate->rows, candidate->cols,
                        candidate->dtype)});
  return candidate;
}

std::optional<Candidate> Planner::findRopeCandidate(Operation *op) const {
  if (!isa<GatherOp>(op) || op->hasAttr("lg"))
    return std::nullopt;
  // The ropes reading the seed's rows, the gathers of every table they
  // read, the ropes reading those: until nothing is added.
  llvm::SetVector<Operation *> gathers, ropes;
  gathers.insert(op);
  for (size_t next = 0; next < gathers.size(); ++next) {
    Value rows = gathers[next]->getResult(0);
    if (rows.use_empty())
      return std::nullopt;
    for (OpOperand &use : rows.getUses()) {
      auto rope = dyn_cast<RopeOp>(use.getOwner());
      if (!rope || rope->getBlock() != op->getBlock() ||
          use.getOperandNumber() == 0)
        return std::nullopt;
      if (!ropes.insert(rope))
        continue;
      for (Value table : {rope.getCos(), rope.getSin()}) {
        auto gather = table.getDefiningOp<GatherOp>();
        if (!gather || gather->getBlock() != op->getBlock())
          return std::nullopt;
        gathers.insert(gather);
      }
    }
  }
  Candidate candidate;
  for (Operation *gather : gathers) {
    auto type = dyn_cast<RankedTensorType>(gather->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getRank() == 0)
      return std::nullopt;
    int64_t cols = type.getShape().back();
    int64_t rows = type.getNumElements() / cols;
    llvm::Expected<cmd::DType> dtype = codegen::getDType(type.getElementType());
    if (!dtype) {
      llvm::consumeError(dtype.takeError());
      return std::nullopt;
    }
    if (rows > chip.npuLanes)
      return std::nullopt;
    candidate.held.push_back({gather, getHeldBytes(chip, 1, cols, *dtype)});
  }
  candidate.ops.append(gathers.begin(), gathers.end());
  candidate.ops.append(ropes.begin(), ropes.end());
  llvm::sort(candidate.ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (!canGroupAtFirst(candidate.ops))
    return std::nullopt;
  return candidate;
}

LayerGroupAttr Planner::getLg(MLIRContext *context, int64_t id,
                              int64_t stage, int64_t timestep,
                              int64_t address, int64_t size,
                              int64_t rowsPerLane) const {
  int64_t bankBytes = chip.localMemoryBytesPerLane / chip.localMemoryBanks;
  return LayerGroupAttr::get(context, id, stage, timestep, address, size,
                             size ? address / bankBytes : 0, rowsPerLane);
}

SmallVector<std::pair<Operation *, LayerGroupAttr>>
Planner::placeHeld(const Candidate &candidate) const {
  SmallVector<std::pair<Operation *, LayerGroupAttr>> placed;
  int64_t top = chip.localMemoryBytesPerLane;
  for (auto [op, bytes] : candidate.held) {
    auto size = static_cast<int64_t>(bytes);
    top -= size;
    placed.push_back({op, getLg(op->getContext(), 0, kComputeStage, 0, top,
                                size, candidate.rowsPerLane)});
  }
  return placed;
}

/// Emits `ops` each on its own, as codegen emits them outside a group.
static llvm::Error emitAlone(codegen::SectionWriter &sections,
                             const codegen::ValuePlacement &placement,
                             ArrayRef<Operation *> ops) {
  codegen::Emitter &emitter = sections.serial();
  llvm::DenseSet<Operation *> absorbed;
  for (Operation *op : ops) {
    if (absorbed.contains(op) || isa<ReshapeOp>(op))
      continue;
    Operation *add = getAbsorbedResidualAdd(op);
    if (add)
      absorbed.insert(add);
    llvm::Error error =
        isa<FAttentionOp>(op) ? codegen::emitAttentionOp(emitter, placement, op)
        : isa<RopeOp>(op) || codegen::getRowwiseNorm(op)
            ? codegen::emitRowwiseOp(emitter, placement, op)
            : codegen::emitLinearOp(sections, placement, op, add);
    if (error)
      return error;
  }
  return llvm::Error::success();
}

llvm::Expected<uint64_t> Planner::cost(const Candidate &candidate,
                                       bool grouped) const {
  codegen::WeightOffsets noWeights;
  codegen::ValuePlacement placement(noWeights, /*standIns=*/true);
  codegen::SectionWriter sections(chip, "layer-group");
  auto emit = [&]() -> llvm::Error {
    if (!grouped)
      return emitAlone(sections, placement, candidate.ops);
    // Codegen finds what a group holds in its ops' lg: give the held ops
    // the lg they would have while it emits them.
    for (auto [op, lg] : placeHeld(candidate))
      op->setAttr("lg", lg);
    llvm::Error error = codegen::emitGroupMembers(sections, placement,
                                                  candidate.ops, false);
    for (auto [op, bytes] : candidate.held)
      op->removeAttr("lg");
    return error;
  };
  if (llvm::Error error = emit())
    return std::move(error);
  cmd::CommandStream stream = sections.finish();
  return support::toExpected(
      cmodel::estimateCycles(stream, cmodel::TimeModel(chip), chip));
}

std::optional<uint64_t> Planner::getSaving(const Candidate &candidate) const {
  llvm::Expected<uint64_t> alone = cost(candidate, /*grouped=*/false);
  llvm::Expected<uint64_t> grouped = cost(candidate, /*grouped=*/true);
  if (!alone || !grouped) {
    llvm::consumeError(alone.takeError());
    llvm::consumeError(grouped.takeError());
    return std::nullopt;
  }
  if (*grouped >= *alone)
    return std::nullopt;
  return *alone - *grouped;
}

std::optional<Candidate> Planner::holdRows(Candidate candidate,
                                           uint64_t *saving) const {
  int64_t lanes = chip.npuLanes;
  if (candidate.rows <= lanes)
    return std::nullopt;
  candidate.rowsPerLane = llvm::divideCeil(candidate.rows, lanes);
  uint64_t bytes = getHeldBytes(chip, candidate.rowsPerLane, candidate.cols,
                                candidate.dtype);
  if (bytes > static_cast<uint64_t>(chip.localMemoryBytesPerLane / 2))
    return std::nullopt;
  candidate.held.front().second = bytes;
  std::optional<Candidate> best;
  std::optional<uint64_t> bestSaving = getSaving(candidate);
  if (bestSaving)
    best = candidate;
  if (std::optional<Candidate> grown = withRopes(candidate))
    if (std::optional<uint64_t> grownSaving = getSaving(*grown);
        grownSaving && (!bestSaving || *grownSaving > *bestSaving)) {
      best = std::move(grown);
      bestSaving = grownSaving;
    }
  if (saving && bestSaving)
    *saving = *bestSaving;
  return best;
}

std::optional<Candidate> Planner::withRopes(Candidate candidate) const {
  if (!codegen::getRowwiseNorm(candidate.producer))
    return std::nullopt;
  Value normalized = candidate.producer->getResult(0);
  uint64_t heldBytes = candidate.held.front().second;
  // Each rope right after its projection, so that its store overlaps the
  // next projection's work.
  SmallVector<Operation *> grown;
  for (Operation *reader : candidate.ops) {
    grown.push_back(reader);
    if (!isa<MatMulOp, A16MatMulOp>(reader) ||
        reader->getOperand(0) != normalized ||
        getAbsorbedResidualAdd(reader) || !reader->getResult(0).hasOneUse())
      continue;
    auto reshape = dyn_cast<ReshapeOp>(*reader->getResult(0).user_begin());
    if (!reshape || !reshape.getResult().hasOneUse())
      continue;
    auto rope = dyn_cast<RopeOp>(*reshape.getResult().user_begin());
    if (!rope || rope.getInput() != reshape.getResult() ||
        rope->hasAttr("core_split") || rope->getBlock() != reader->getBlock())
      continue;
    std::optional<Candidate> projected = startHeldCandidate(reader);
    if (!projected || projected->rows != candidate.rows)
      continue;
    uint64_t bytes = getHeldBytes(chip, candidate.rowsPerLane,
                                  projected->cols, projected->dtype);
    heldBytes += bytes;
    candidate.held.push_back({reader, bytes});
    grown.push_back(reshape);
    grown.push_back(rope);
  }
  if (candidate.held.size() == 1 ||
      heldBytes > static_cast<uint64_t>(chip.localMemoryBytesPerLane / 2))
    return std::nullopt;
  candidate.ops = std::move(grown);
  if (!canGroupAtFirst(candidate.ops, &candidate.hoisted))
    return std::nullopt;
  return candidate;
}

std::optional<Candidate>
Planner::findAttentionCandidate(Operation *op) const {
  if (!isa<FAttentionOp>(op) || op->hasAttr("lg"))
    return std::nullopt;
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return std::nullopt;
  Operation *reader = *result.getUsers().begin();
  if (reader->getBlock() != op->getBlock() ||
      !readsAsHeldInput(reader, result))
    return std::nullopt;
  std::optional<Candidate> candidate = startHeldCandidate(op);
  if (!candidate)
    return std::nullopt;
  candidate->ops = {op, reader};
  if (Operation *add = getAbsorbedResidualAdd(reader))
    candidate->ops.push_back(add);
  llvm::sort(candidate->ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (!canGroupAtFirst(candidate->ops))
    return std::nullopt;
  candidate->held.push_back({op, 0});
  return holdRows(std::move(*candidate));
}

void Planner::form(const Candidate &candidate, int64_t id) const {
  Operation *first = candidate.ops.front();
  MLIRContext *context = first->getContext();
  // What the group reads moves before it: the leaves a hoisted op reads,
  // then the op (in block order).
  SmallVector<Operation *> hoisted(candidate.hoisted);
  llvm::sort(hoisted,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : hoisted) {
    for (Value operand : op->getOperands())
      if (Operation *leaf = operand.getDefiningOp();
          leaf && isLeaf(leaf) && first->isBeforeInBlock(leaf))
        leaf->moveBefore(first);
    op->moveBefore(first);
  }
  OpBuilder builder(first);
  llvm::SmallPtrSet<Operation *, 8> inside(candidate.ops.begin(),
                                           candidate.ops.end());
  // Inputs in order of first use; leaves after the first op move before it,
  // and absent operands (none) are rebuilt inside.
  llvm::SetVector<Value> inputs;
  for (Operation *op : candidate.ops)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && inside.contains(producer))
        continue;
      if (isa<NoneType>(operand.getType()))
        continue;
      if (producer && isLeaf(producer) && first->isBeforeInBlock(producer))
        producer->moveBefore(first);
      inputs.insert(operand);
    }
  // Results read outside the group.
  SmallVector<Value> outputs;
  for (Operation *op : candidate.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside.contains(user); }))
        outputs.push_back(result);

  SmallVector<Type> outputTypes;
  for (Value output : outputs)
    outputTypes.push_back(output.getType());
  int64_t rank = std::numeric_limits<int64_t>::max();
  for (Value output : outputs)
    rank = std::min(rank, cast<RankedTensorType>(output.getType()).getRank());
  auto group = GroupOp::create(builder, first->getLoc(), outputTypes,
                               inputs.getArrayRef(), id,
                               SmallVector<int64_t>(rank, 1), kStoreStage + 1);
  Block *body = new Block();
  group.getBody().push_back(body);
  for (Value input : inputs)
    body->addArgument(input.getType(), input.getLoc());

  int64_t timestep = 0;
  auto lg = [&](int64_t stage, int64_t address = 0, int64_t size = 0,
                int64_t rowsPerLane = 0) {
    return getLg(context, id, stage, timestep++, address, size, rowsPerLane);
  };
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  IRMapping mapping;
  for (auto [input, argument] : llvm::zip(inputs, body->getArguments())) {
    Operation *producer = input.getDefiningOp();
    // Weights are streamed by the op that reads them; activations load.
    if (producer && isLeaf(producer)) {
      mapping.map(input, argument);
      continue;
    }
    mapping.map(
        input, LoadOp::create(inner, input.getLoc(), argument, lg(kLoadStage)));
  }
  for (Operation *op : candidate.ops)
    for (Value operand : op->getOperands())
      if (isa<NoneType>(operand.getType()) && !mapping.contains(operand))
        mapping.map(operand,
                    inner.clone(*operand.getDefiningOp())->getResult(0));
  llvm::DenseMap<Operation *, LayerGroupAttr> placed;
  for (auto [op, held] : placeHeld(candidate))
    placed[op] = held;
  for (Operation *op : candidate.ops) {
    Operation *clone = inner.clone(*op, mapping);
    auto it = placed.find(op);
    clone->setAttr("lg", it == placed.end()
                             ? lg(kComputeStage)
                             : lg(kComputeStage, it->second.getLocalAddr(),
                                  it->second.getLocalSize(),
                                  it->second.getRowsPerLane()));
  }
  SmallVector<Value> stored;
  for (Value output : outputs)
    stored.push_back(StoreOp::create(inner, output.getLoc(),
                                     mapping.lookup(output), lg(kStoreStage),
                                     /*addr=*/nullptr));
  YieldOp::create(inner, first->getLoc(), stored);

  for (auto [output, result] : llvm::zip(outputs, group.getResults()))
    output.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(candidate.ops))
    op->erase();
}

/// A descriptor of the figures the pass's options give (lit tests' small
/// chips).
plugins::ChipDescriptor describeChip(int64_t lanes, int64_t laneBytes,
                                     int64_t banks, int64_t euBytes,
                                     double clockMHz, double tflops,
                                     double ddrGBps) {
  plugins::ChipDescriptor chip;
  chip.id = "layer-group-options";
  chip.npuLanes = lanes;
  chip.localMemoryBytesPerLane = laneBytes;
  chip.localMemoryBanks = banks;
  chip.euBytesPerLane = euBytes;
  chip.cores = 1;
  chip.clockMHz = clockMHz;
  chip.f16Tflops = chip.bf16Tflops = tflops;
  chip.f32Tflops = tflops / 8;
  chip.int8Tops = 2 * tflops;
  chip.ddrBandwidthGBps = ddrGBps;
  return chip;
}

void runLayerGroup(func::FuncOp function, const plugins::ChipDescriptor &chip) {
  if (chip.computesInGlobalMemory || function.isExternal())
    return;
  Planner planner(chip);
  int64_t id = 0;
  SmallVector<Operation *> seeds;
  for (Operation &op : function.getBody().front())
    if (codegen::getRowwiseNorm(&op) || isa<GatherOp, FAttentionOp>(op))
      seeds.push_back(&op);
  // A seed may be erased into an earlier seed's group (a table's gather).
  llvm::DenseSet<Operation *> grouped;
  for (Operation *seed : seeds) {
    if (grouped.contains(seed))
      continue;
    std::optional<Candidate> candidate = planner.findNormCandidate(seed);
    // A norm group leaves its ops at least half of each lane: whole on
    // every lane (any projection reads it so) or its rows over the lanes,
    // whichever the time model finds saves more.
    if (candidate) {
      std::optional<uint64_t> whole;
      if (candidate->held.front().second <=
          static_cast<uint64_t>(chip.localMemoryBytesPerLane / 2))
        whole = planner.getSaving(*candidate);
      uint64_t rowsSaving = 0;
      std::optional<Candidate> rows = planner.holdRows(*candidate, &rowsSaving);
      if (rows && (!whole || rowsSaving > *whole))
        candidate = std::move(rows);
      else if (!whole)
        candidate = std::nullopt;
    }
    if (!candidate)
      candidate = planner.findRopeCandidate(seed);
    if (!candidate)
      candidate = planner.findAttentionCandidate(seed);
    if (!candidate)
      continue;
    grouped.insert(candidate->ops.begin(), candidate->ops.end());
    planner.form(*candidate, id++);
  }
}

struct TpuLayerGroupPass
    : layergroup::impl::TpuLayerGroupPassBase<TpuLayerGroupPass> {
  using TpuLayerGroupPassBase::TpuLayerGroupPassBase;
  explicit TpuLayerGroupPass(const plugins::ChipDescriptor &chip)
      : chip(chip) {}

  void runOnOperation() override {
    plugins::ChipDescriptor options =
        chip ? *chip
             : describeChip(lanes, laneBytes, banks, euBytes, clockMHz, tflops,
                            ddrGBps);
    // A chip computing in global memory has no local memory to group in.
    if (options.computesInGlobalMemory)
      return;
    if (options.npuLanes <= 0 || options.localMemoryBanks <= 0 ||
        options.euBytesPerLane <= 0 ||
        options.localMemoryBytesPerLane % options.localMemoryBanks ||
        options.localMemoryBytesPerLane % options.euBytesPerLane) {
      getOperation().emitError(
          "tpu-layer-group: lanes, banks and eu-bytes must be positive and "
          "divide lane-bytes");
      return signalPassFailure();
    }
    runLayerGroup(getOperation(), options);
  }

  std::optional<plugins::ChipDescriptor> chip;
};

} // namespace

std::unique_ptr<Pass>
layergroup::createTpuLayerGroupPass(const plugins::ChipDescriptor &chip) {
  return std::make_unique<TpuLayerGroupPass>(chip);
}
