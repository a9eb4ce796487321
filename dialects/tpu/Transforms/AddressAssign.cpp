//===- AddressAssign.cpp - the tpu-address-assign pass --------------------===//
//
// Values share storage through buffers: a buffer is created per compute
// result, a reshape joins its input's buffer, and a concat input computed in
// place becomes a child of the concat's buffer at its slice's offset. Root
// buffers live from their first to their last touch and are placed by a
// first-fit scan over the op order, so dead values' space is reused.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpu/Transforms/Passes.h"

#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/ResidualAdd.h"
#include "dialects/tpu/IR/TpuOps.h"
#include "dialects/tpu/IR/TpuTraits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <map>

namespace llmc::tpu {
#define GEN_PASS_DEF_TPUADDRESSASSIGNPASS
#include "dialects/tpu/Transforms/Passes.h.inc"
} // namespace llmc::tpu

using namespace mlir;
using namespace llmc::tpu;

namespace {

struct Buffer {
  int64_t bytes = 0;
  /// Op indices of the first and last touch (the root's range covers its
  /// children's).
  int64_t start = 0;
  int64_t end = 0;
  /// A buffer placed inside another (a concat slice), or -1.
  int parent = -1;
  int64_t offsetInParent = 0;
  bool hasChildren = false;
  /// Set for buffers in the IO region.
  std::optional<int64_t> ioOffset;
  /// The activation offset once placed.
  int64_t offset = 0;
};

/// The global scratch the kernels of `op` need, in bytes.
int64_t getScratchBytes(Operation *op, int64_t lanes) {
  auto bytesOf = [](Type type) { return getTensorBytes(type).value_or(0); };
  if (isa<MLPOp, A16MLPOp, A8MLPOp>(op)) {
    // The gated activation act(gate(x)) * up(x): x's rows by the gate's N.
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    auto gate = cast<RankedTensorType>(op->getOperand(1).getType());
    int64_t rows = input.getNumElements() / input.getShape().back();
    int64_t elementBytes = bytesOf(input) / input.getNumElements();
    return rows * gate.getShape().front() * elementBytes;
  }
  if (auto arg = dyn_cast<ArgOp>(op)) {
    // Each lane's best value (at most 4 bytes) and its index, per row.
    auto input = cast<RankedTensorType>(arg.getInput().getType());
    int64_t rows = input.getNumElements() / input.getShape().back();
    return 2 * rows * lanes * 4;
  }
  if (auto topK = dyn_cast<TopKOp>(op)) {
    // Each lane's k best values (at most 4 bytes) and their indices, per
    // row.
    auto input = cast<RankedTensorType>(topK.getInput().getType());
    int64_t rows = input.getNumElements() / input.getShape().back();
    return 2 * rows * lanes * static_cast<int64_t>(topK.getK()) * 4;
  }
  return 0;
}

class AddressAssign {
public:
  AddressAssign(func::FuncOp function, int64_t alignment, int64_t lanes,
                bool keepValues)
      : function(function), alignment(alignment), lanes(lanes),
        keepValues(keepValues) {}

  LogicalResult run();

private:
  int newBuffer(int64_t bytes, int64_t index) {
    Buffer buffer;
    buffer.bytes = llvm::alignTo(bytes, alignment);
    buffer.start = buffer.end = index;
    buffers.push_back(buffer);
    return static_cast<int>(buffers.size()) - 1;
  }
  int root(int id) const {
    while (buffers[id].parent >= 0)
      id = buffers[id].parent;
    return id;
  }
  void touch(Value value, int64_t index) {
    auto it = bufferOf.find(value);
    if (it == bufferOf.end())
      return;
    Buffer &buffer = buffers[root(it->second)];
    buffer.start = std::min(buffer.start, index);
    buffer.end = std::max(buffer.end, index);
  }
  LogicalResult collectBuffers();
  LogicalResult collectGroupBuffers(GroupOp group, int64_t index);
  void writeGroupAttributes(GroupOp group, Builder &builder);
  void placeConcatInputs(ConcatOp concat);
  void layOutIO();
  void placeActivations();
  MemAttr getMem(int id) const;
  void writeAttributes();

  func::FuncOp function;
  int64_t alignment;
  int64_t lanes;
  bool keepValues;
  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, int> bufferOf;
  llvm::DenseMap<Operation *, int> scratchOf;
  llvm::DenseMap<Operation *, int64_t> indexOf;
  std::vector<int64_t> resultOffsets;
  int64_t ioBytes = 0;
  int64_t activationBytes = 0;
};

LogicalResult AddressAssign::collectBuffers() {
  Block &body = function.getBody().front();
  for (BlockArgument argument : body.getArguments()) {
    std::optional<int64_t> bytes = getTensorBytes(argument.getType());
    if (!bytes)
      return function.emitOpError("argument #")
             << argument.getArgNumber() << " is not a static tensor";
    bufferOf[argument] = newBuffer(*bytes, -1);
  }
  int64_t index = 0;
  for (Operation &op : body) {
    indexOf[&op] = index;
    // Weights and constants live in the coeff region, not in activations.
    if (isa<llmc::top::WeightOp, llmc::top::NoneOp, ConstantOp>(op)) {
      ++index;
      continue;
    }
    for (Value operand : op.getOperands())
      touch(operand, index);
    // Codegen writes an absorbed residual add's result while the projection
    // still reads its inputs, so they must not share memory with it.
    if (Operation *linear = getAbsorbingLinearOp(&op))
      for (Value operand : linear->getOperands())
        touch(operand, index);
    if (isa<llmc::top::InputOp, ReshapeOp>(op)) {
      auto source = bufferOf.find(op.getOperand(0));
      if (source == bufferOf.end())
        return op.emitOpError("reshapes a value without storage (a weight)");
      bufferOf[op.getResult(0)] = source->second;
    } else if (isa_and_nonnull<TpuDialect>(op.getDialect())) {
      for (Value result : op.getResults()) {
        std::optional<int64_t> bytes = getTensorBytes(result.getType());
        if (!bytes)
          return op.emitOpError("result is not a static tensor");
        bufferOf[result] = newBuffer(*bytes, index);
      }
      if (int64_t scratch = getScratchBytes(&op, lanes))
        scratchOf[&op] = newBuffer(scratch, index);
      if (auto group = dyn_cast<GroupOp>(op))
        if (failed(collectGroupBuffers(group, index)))
          return failure();
    } else if (!isa<func::ReturnOp>(op)) {
      return op.emitOpError("cannot be placed in memory: lower it to tpu "
                            "first");
    }
    ++index;
  }
  return success();
}

/// A layer group runs as one op at `index`: its results (what it stores)
/// are placed as any op's; inside it, only the scratch its ops need, and
/// with keep-values the values it holds in local memory, so that they can
/// be stored where `llmc compare` reads them.
LogicalResult AddressAssign::collectGroupBuffers(GroupOp group, int64_t index) {
  for (Operation &op : group.getBody().front()) {
    if (int64_t scratch = getScratchBytes(&op, lanes))
      scratchOf[&op] = newBuffer(scratch, index);
    if (!keepValues || !op.hasTrait<ChipAnnotations>() ||
        isa<LoadOp, StoreOp>(op))
      continue;
    for (Value result : op.getResults()) {
      bool stored = llvm::any_of(result.getUsers(), [](Operation *user) {
        return isa<StoreOp>(user);
      });
      std::optional<int64_t> bytes = getTensorBytes(result.getType());
      if (!stored && bytes)
        bufferOf[result] = newBuffer(*bytes, index);
    }
  }
  return success();
}

void AddressAssign::placeConcatInputs(ConcatOp concat) {
  auto type = cast<RankedTensorType>(concat.getType());
  int64_t axis = concat.getAxis();
  int64_t outer = 1;
  for (int64_t dim : type.getShape().take_front(axis))
    outer *= dim;
  if (outer != 1)
    return;
  int concatBuffer = bufferOf.lookup(concat.getResult());
  int64_t offset = 0;
  for (Value input : concat.getInputs()) {
    int64_t bytes = getTensorBytes(input.getType()).value_or(0);
    auto it = bufferOf.find(input);
    Operation *producer = input.getDefiningOp();
    // Only a buffer of its own, made by a compute op, moves into the slice;
    // and only at a byte offset the alignment allows.
    if (it != bufferOf.end() && producer &&
        !isa<llmc::top::InputOp>(producer) && offset % alignment == 0) {
      int id = root(it->second);
      Buffer &buffer = buffers[id];
      if (id != concatBuffer && buffer.parent < 0 && !buffer.hasChildren &&
          !buffer.ioOffset && buffer.start >= 0) {
        buffer.parent = concatBuffer;
        buffer.offsetInParent = offset;
        Buffer &parent = buffers[concatBuffer];
        parent.hasChildren = true;
        parent.start = std::min(parent.start, buffer.start);
        parent.end = std::max(parent.end, buffer.end);
      }
    }
    offset += bytes;
  }
}

/// The concat whose first input is `argument` (through its top.Input), when
/// the argument's IO slot can grow into the concat's buffer: the rest of the
/// concat (the new keys) is then computed behind the cached ones in place.
static ConcatOp getGrowingConcat(BlockArgument argument) {
  for (Operation *user : argument.getUsers()) {
    auto input = dyn_cast<llmc::top::InputOp>(user);
    if (!input)
      continue;
    for (Operation *consumer : input->getUsers()) {
      auto concat = dyn_cast<ConcatOp>(consumer);
      if (!concat || concat.getInputs().front() != input.getResult())
        continue;
      auto type = cast<RankedTensorType>(concat.getType());
      int64_t outer = 1;
      for (int64_t dim : type.getShape().take_front(concat.getAxis()))
        outer *= dim;
      if (outer == 1)
        return concat;
    }
  }
  return nullptr;
}

void AddressAssign::layOutIO() {
  Block &body = function.getBody().front();
  for (BlockArgument argument : body.getArguments()) {
    Buffer &buffer = buffers[bufferOf[argument]];
    buffer.ioOffset = ioBytes;
    int64_t slot = buffer.bytes;
    if (ConcatOp concat = getGrowingConcat(argument)) {
      Buffer &grown = buffers[bufferOf[concat.getResult()]];
      if (grown.parent < 0 && !grown.ioOffset) {
        grown.ioOffset = ioBytes;
        slot = std::max(slot, grown.bytes);
      }
    }
    ioBytes += slot;
  }
  auto returnOp = cast<func::ReturnOp>(body.getTerminator());
  resultOffsets.clear();
  for (Value result : returnOp.getOperands()) {
    int64_t bytes =
        llvm::alignTo(getTensorBytes(result.getType()).value_or(0), alignment);
    auto it = bufferOf.find(result);
    if (it != bufferOf.end()) {
      // A value already in the IO region (the new keys behind the cached
      // ones) is returned where it is: the runtime reads it there.
      MemAttr placed = getMem(it->second);
      if (placed.getRegion() == MemRegion::IO &&
          buffers[it->second].parent >= 0) {
        resultOffsets.push_back(placed.getOffset());
        continue;
      }
      Buffer &buffer = buffers[it->second];
      if (buffer.parent < 0 && !buffer.ioOffset && buffer.start >= 0)
        buffer.ioOffset = ioBytes;
    }
    resultOffsets.push_back(ioBytes);
    ioBytes += bytes;
  }
}

void AddressAssign::placeActivations() {
  std::vector<int> roots;
  for (int id = 0, e = buffers.size(); id < e; ++id)
    if (buffers[id].parent < 0 && !buffers[id].ioOffset)
      roots.push_back(id);
  llvm::stable_sort(
      roots, [&](int a, int b) { return buffers[a].start < buffers[b].start; });
  // Live ranges by offset: offset -> buffer id.
  std::map<int64_t, int> live;
  for (int id : roots) {
    Buffer &buffer = buffers[id];
    for (auto it = live.begin(); it != live.end();)
      it = !keepValues && buffers[it->second].end < buffer.start
               ? live.erase(it)
               : std::next(it);
    int64_t candidate = 0;
    for (auto [offset, other] : live) {
      if (candidate + buffer.bytes <= offset)
        break;
      candidate = std::max(candidate, offset + buffers[other].bytes);
    }
    buffer.offset = candidate;
    live[candidate] = id;
    activationBytes = std::max(activationBytes, candidate + buffer.bytes);
  }
}

MemAttr AddressAssign::getMem(int id) const {
  int64_t bytes = buffers[id].bytes;
  int64_t offset = 0;
  while (buffers[id].parent >= 0) {
    offset += buffers[id].offsetInParent;
    id = buffers[id].parent;
  }
  const Buffer &root = buffers[id];
  MLIRContext *context = function->getContext();
  if (root.ioOffset)
    return MemAttr::get(context, MemRegion::IO, *root.ioOffset + offset, bytes);
  return MemAttr::get(context, MemRegion::Activation, root.offset + offset,
                      bytes);
}

void AddressAssign::writeAttributes() {
  Block &body = function.getBody().front();
  Builder builder(function->getContext());
  for (BlockArgument argument : body.getArguments())
    function.setArgAttr(argument.getArgNumber(), "tpu.addr",
                        getMem(bufferOf[argument]));
  for (auto [index, offset] : llvm::enumerate(resultOffsets)) {
    Value result = body.getTerminator()->getOperand(index);
    int64_t bytes = getTensorBytes(result.getType()).value_or(0);
    function.setResultAttr(index, "tpu.addr",
                           MemAttr::get(function->getContext(), MemRegion::IO,
                                        offset,
                                        llvm::alignTo(bytes, alignment)));
  }
  for (Operation &op : body) {
    if (!op.hasTrait<ChipAnnotations>())
      continue;
    SmallVector<Attribute> ranges;
    for (Value result : op.getResults())
      ranges.push_back(getMem(bufferOf[result]));
    op.setAttr("addr", builder.getArrayAttr(ranges));
    if (auto it = scratchOf.find(&op); it != scratchOf.end())
      op.setAttr("scratch", getMem(it->second));
  }
  for (auto group : body.getOps<GroupOp>())
    writeGroupAttributes(group, builder);
  function->setAttr("tpu.io_bytes", builder.getI64IntegerAttr(ioBytes));
  function->setAttr("tpu.activation_bytes",
                    builder.getI64IntegerAttr(activationBytes));
}

/// Each tpu.Store of a group, and the op computing what it stores, get the
/// range of the group result it becomes; ops get their scratch, and held
/// values their range when keep-values gave them one.
void AddressAssign::writeGroupAttributes(GroupOp group, Builder &builder) {
  Block &body = group.getBody().front();
  for (auto [index, yielded] :
       llvm::enumerate(body.getTerminator()->getOperands())) {
    auto store = yielded.getDefiningOp<StoreOp>();
    if (!store)
      continue;
    MemAttr mem = getMem(bufferOf[group->getResult(index)]);
    store->setAttr("addr", builder.getArrayAttr({mem}));
    Operation *producer = store.getInput().getDefiningOp();
    if (!producer || !producer->hasTrait<ChipAnnotations>() ||
        producer->getNumResults() != 1)
      continue;
    producer->setAttr("addr", builder.getArrayAttr({mem}));
  }
  for (Operation &op : body) {
    if (auto it = scratchOf.find(&op); it != scratchOf.end())
      op.setAttr("scratch", getMem(it->second));
    if (op.getNumResults() == 1)
      if (auto it = bufferOf.find(op.getResult(0)); it != bufferOf.end())
        op.setAttr("addr", builder.getArrayAttr({getMem(it->second)}));
  }
}

LogicalResult AddressAssign::run() {
  if (function.isExternal())
    return success();
  if (!function.getBody().hasOneBlock())
    return function.emitOpError("must have a single block");
  if (failed(collectBuffers()))
    return failure();
  function.walk([&](ConcatOp concat) { placeConcatInputs(concat); });
  layOutIO();
  placeActivations();
  writeAttributes();
  return success();
}

struct TpuAddressAssignPass
    : llmc::tpu::impl::TpuAddressAssignPassBase<TpuAddressAssignPass> {
  using TpuAddressAssignPassBase::TpuAddressAssignPassBase;

  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment) || lanes <= 0) {
      getOperation().emitError("tpu-address-assign: alignment must be a "
                               "power of two and lanes positive");
      return signalPassFailure();
    }
    if (failed(
            AddressAssign(getOperation(), alignment, lanes, keepValues).run()))
      signalPassFailure();
  }
};

} // namespace
