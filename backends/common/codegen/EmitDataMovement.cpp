//===- EmitDataMovement.cpp - gathers, scatters, slices, permutes, concat -===//

#include "backends/common/codegen/Emitters.h"

#include "backends/common/cmodel/DType.h"
#include "dialects/top/IR/TopOps.h"
#include "dialects/tpu/IR/TpuOps.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <array>

using namespace mlir;

namespace llmc::codegen {
namespace {

/// The product of `shape`'s dimensions in [begin, end).
int64_t getExtent(llvm::ArrayRef<int64_t> shape, int64_t begin, int64_t end) {
  int64_t extent = 1;
  for (int64_t dim : shape.slice(begin, end - begin))
    extent *= dim;
  return extent;
}

/// Rows of `table` [V, cols] by `indices` into `output` [count, cols]; a
/// weight-only quantized table also has `scale` and, asymmetric, `zp`
/// (rows = 0 when absent), and its rows are dequantized to the output's
/// type. Tiled: per tile, a DMA gather of the rows of each part into local
/// memory, a DEQUANTIZE of a quantized table's, then a store. Untiled: one
/// GATHER, dequantizing as it gathers.
llvm::Error emitRowGather(Emitter &emitter, Operation *op,
                          const cmd::GlobalTensor &table,
                          const cmd::GlobalTensor &scale,
                          const cmd::GlobalTensor &zp,
                          const cmd::GlobalTensor &indices,
                          const cmd::GlobalTensor &output) {
  bool quantized = scale.rows() > 0;
  if (emitter.isUntiled()) {
    std::vector<cmd::GlobalTensor> inputs = {table, indices};
    if (quantized)
      inputs.insert(inputs.end(), {scale, zp});
    emitter.computeGlobal(cmodel::makeCompute(cmd::GATHER, {}, {}), inputs,
                          {output});
    return llvm::Error::success();
  }
  llvm::SmallVector<const cmd::GlobalTensor *, 3> parts = {&table};
  for (const cmd::GlobalTensor *part : {&scale, &zp})
    if (part->rows() > 0)
      parts.push_back(part);
  emitter.getArena().beginOp();
  uint64_t rowBytes =
      quantized ? emitter.getRowBytes(output.cols(), output.dtype()) : 0;
  for (const cmd::GlobalTensor *part : parts)
    rowBytes += emitter.getRowBytes(part->cols(), part->dtype());
  uint64_t budget = emitter.getArena().ringCapacity() / 3;
  if (rowBytes > budget)
    return opError(op, "a table row is too wide for local memory");
  int64_t count = output.rows(), lanes = emitter.getLanes();
  int64_t perLane = std::min<int64_t>(llvm::divideCeil(count, lanes),
                                      budget / rowBytes);
  int64_t tileRows = perLane * lanes;
  for (int64_t r0 = 0; r0 < count; r0 += tileRows) {
    int64_t rows = std::min(tileRows, count - r0);
    std::vector<cmd::LocalTensor> gathered;
    for (const cmd::GlobalTensor *part : parts) {
      cmd::LocalTensor local =
          emitter.rowsLayout(rows, part->cols(), part->dtype(), perLane);
      if (llvm::Error error = emitter.ring(local))
        return error;
      emitter.gather(*part, sliceCols(indices, r0, rows), local);
      gathered.push_back(local);
    }
    cmd::LocalTensor rowsOut = gathered.front();
    if (quantized) {
      rowsOut = emitter.rowsLayout(rows, output.cols(), output.dtype(),
                                   perLane);
      if (llvm::Error error = emitter.ring(rowsOut))
        return error;
      emitter.compute(
          cmodel::makeCompute(cmd::DEQUANTIZE, gathered, {rowsOut}));
    }
    emitter.store(rowsOut, sliceRows(output, r0, rows));
  }
  return llvm::Error::success();
}

/// The view of each value of `values` with its columns (none for a
/// none-typed one: rows = 0).
llvm::Error viewGather(const ValuePlacement &placement,
                       llvm::ArrayRef<std::pair<Value, int64_t>> values,
                       llvm::MutableArrayRef<cmd::GlobalTensor> views) {
  for (auto [value, view] : llvm::zip(values, views)) {
    if (isa<NoneType>(value.first.getType()))
      continue;
    llvm::Expected<cmd::GlobalTensor> viewed =
        placement.view(value.first, value.second);
    if (!viewed)
      return viewed.takeError();
    view = *viewed;
  }
  return llvm::Error::success();
}

/// Slices of `table` along `axis` picked by `indices` into `output`: the
/// table viewed as [V, C] rows. Dimensions before the axis must have size 1.
llvm::Error emitGather(Emitter &emitter, const ValuePlacement &placement,
                       tpu::GatherOp gather) {
  auto tableType = cast<ShapedType>(gather.getTable().getType());
  auto axis = static_cast<int64_t>(gather.getAxis());
  if (axis < 0)
    axis += tableType.getRank();
  if (getExtent(tableType.getShape(), 0, axis) != 1)
    return opError(gather, "codegen gathers along the outermost dimension "
                           "of size above 1 only");
  int64_t cols = getExtent(tableType.getShape(), axis + 1,
                           tableType.getRank());
  int64_t count = getNumElements(gather.getIndices());
  std::array<cmd::GlobalTensor, 3> views;
  if (llvm::Error error = viewGather(placement,
                                     {{gather.getTable(), cols},
                                      {gather.getIndices(), count},
                                      {gather.getResult(), cols}},
                                     views))
    return error;
  auto &[table, indices, output] = views;
  return emitRowGather(emitter, gather, table, {}, {}, indices, output);
}

/// Rows of a weight-only quantized table by index, dequantized.
llvm::Error emitA16Gather(Emitter &emitter, const ValuePlacement &placement,
                          tpu::A16GatherOp gather) {
  auto tableType = cast<ShapedType>(gather.getTable().getType());
  int64_t cols = tableType.getDimSize(1);
  int64_t groups = cast<ShapedType>(gather.getScale().getType()).getDimSize(1);
  int64_t count = getNumElements(gather.getIndices());
  std::array<cmd::GlobalTensor, 5> views;
  if (llvm::Error error = viewGather(placement,
                                     {{gather.getTable(), cols},
                                      {gather.getScale(), groups},
                                      {gather.getZp(), groups},
                                      {gather.getIndices(), count},
                                      {gather.getResult(), cols}},
                                     views))
    return error;
  auto &[table, scale, zp, indices, output] = views;
  return emitRowGather(emitter, gather, table, scale, zp, indices, output);
}

/// `data` with the elements `indices` name along the last axis replaced by
/// `updates`: a copy of data (unless computed in place), then the updates
/// as rows of one element, scattered in row-major order so the last of
/// repeated indices wins, as the op says.
llvm::Error emitScatter(Emitter &emitter, const ValuePlacement &placement,
                        tpu::ScatterElementsOp scatter) {
  auto dataType = cast<ShapedType>(scatter.getData().getType());
  auto updatesType = cast<ShapedType>(scatter.getUpdates().getType());
  auto axis = static_cast<int64_t>(scatter.getAxis());
  int64_t rank = dataType.getRank();
  if (axis < 0)
    axis += rank;
  if (axis != rank - 1 || getExtent(dataType.getShape(), 0, axis) != 1 ||
      getExtent(updatesType.getShape(), 0, axis) != 1)
    return opError(scatter, "codegen scatters along the last axis of a "
                            "single row only");
  llvm::Expected<cmd::GlobalTensor> data = placement.view(scatter.getData(), 1);
  if (!data)
    return data.takeError();
  llvm::Expected<cmd::GlobalTensor> output =
      placement.view(scatter.getResult(), 1);
  if (!output)
    return output.takeError();
  llvm::Expected<cmd::GlobalTensor> updates =
      placement.view(scatter.getUpdates(), 1);
  if (!updates)
    return updates.takeError();
  int64_t count = getNumElements(scatter.getIndices());
  llvm::Expected<cmd::GlobalTensor> indices =
      placement.view(scatter.getIndices(), count);
  if (!indices)
    return indices.takeError();
  if (data->region() != output->region() || data->offset() != output->offset())
    if (llvm::Error error = emitCopy(emitter, *data, *output))
      return error;
  if (emitter.isUntiled()) {
    emitter.computeGlobal(cmodel::makeCompute(cmd::SCATTER, {}, {}),
                          {*updates, *indices}, {*output});
    return llvm::Error::success();
  }
  emitter.getArena().beginOp();
  int64_t perLane = llvm::divideCeil(count, emitter.getLanes());
  cmd::LocalTensor local =
      emitter.rowsLayout(count, 1, updates->dtype(), perLane);
  if (llvm::Error error = emitter.ring(local))
    return error;
  emitter.load(*updates, local);
  emitter.scatter(local, *indices, *output);
  return llvm::Error::success();
}

/// One axis of a strided copy: its extent and its strides, in elements, in
/// the source and in the destination.
struct CopyAxis {
  int64_t size;
  int64_t from;
  int64_t to;
};

/// The row-major strides, in elements, of `shape`.
llvm::SmallVector<int64_t> getStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Moves the elements `axes` span (outermost first) from `source` to
/// `destination`, each the tensor's first element, as 2-D strided copies.
/// Axes of one element go, and an axis that continues the next one in both
/// tensors merges with it; the innermost must then be contiguous in both.
/// The largest other axis gives each copy its rows; the rest are iterated,
/// one copy per index.
llvm::Error emitStridedCopy(Emitter &emitter, Operation *op,
                            const cmd::GlobalTensor &source,
                            const cmd::GlobalTensor &destination,
                            llvm::ArrayRef<CopyAxis> axes) {
  cmd::DType dtype = source.dtype();
  if (cmodel::isInt4DType(dtype))
    return opError(op, "codegen moves whole-byte elements only");
  llvm::SmallVector<CopyAxis> merged;
  for (const CopyAxis &axis : llvm::reverse(axes)) {
    if (axis.size == 1)
      continue;
    if (!merged.empty() && axis.from == merged.back().from * merged.back().size &&
        axis.to == merged.back().to * merged.back().size)
      merged.back().size *= axis.size;
    else
      merged.push_back(axis);
  }
  std::reverse(merged.begin(), merged.end());
  if (merged.empty())
    merged.push_back({1, 1, 1});
  const CopyAxis &inner = merged.back();
  if (inner.from != 1 || inner.to != 1)
    return opError(op, "codegen moves contiguous runs of the last axis only");
  auto rowsAxis = std::max_element(
      merged.begin(), merged.end() - 1,
      [](const CopyAxis &a, const CopyAxis &b) { return a.size < b.size; });
  CopyAxis rows = rowsAxis == merged.end() - 1 ? CopyAxis{1, 0, 0} : *rowsAxis;
  llvm::SmallVector<CopyAxis> outer;
  for (auto it = merged.begin(); it != merged.end() - 1; ++it)
    if (it != rowsAxis)
      outer.push_back(*it);
  int64_t bytes = cmodel::getDTypeBytes(dtype, 1);
  auto block = [&](const cmd::GlobalTensor &base, int64_t offset,
                   int64_t stride) {
    cmd::GlobalTensor tensor = base;
    tensor.set_offset(base.offset() + offset * bytes);
    tensor.set_rows(rows.size);
    tensor.set_cols(inner.size);
    tensor.set_row_stride_bytes(
        rows.size > 1 ? stride * bytes : inner.size * bytes);
    return tensor;
  };
  llvm::SmallVector<int64_t> index(outer.size(), 0);
  while (true) {
    int64_t from = 0, to = 0;
    for (auto [axis, at] : llvm::zip(outer, index)) {
      from += at * axis.from;
      to += at * axis.to;
    }
    if (llvm::Error error =
            emitCopy(emitter, block(source, from, rows.from),
                     block(destination, to, rows.to)))
      return error;
    int64_t d = static_cast<int64_t>(outer.size()) - 1;
    while (d >= 0 && ++index[d] == outer[d].size)
      index[d--] = 0;
    if (d < 0)
      return llvm::Error::success();
  }
}

/// Result dimension i is input dimension order[i]: a strided copy that
/// keeps the last axis contiguous.
llvm::Error emitPermute(Emitter &emitter, const ValuePlacement &placement,
                        tpu::PermuteOp permute) {
  auto inputType = cast<ShapedType>(permute.getInput().getType());
  llvm::SmallVector<int64_t> inStrides = getStrides(inputType.getShape());
  auto outputType = cast<ShapedType>(permute.getType());
  llvm::SmallVector<int64_t> outStrides = getStrides(outputType.getShape());
  llvm::SmallVector<CopyAxis> axes;
  for (auto [d, axis] : llvm::enumerate(permute.getOrder()))
    axes.push_back({outputType.getDimSize(d), inStrides[axis], outStrides[d]});
  llvm::Expected<cmd::GlobalTensor> input = placement.view(permute.getInput());
  if (!input)
    return input.takeError();
  llvm::Expected<cmd::GlobalTensor> output = placement.view(permute.getResult());
  if (!output)
    return output.takeError();
  return emitStridedCopy(emitter, permute, *input, *output, axes);
}

/// A slice whose kept rows (all dimensions but the last) are one contiguous
/// range: one strided copy; otherwise (steps, several runs of rows) one per
/// run, the last axis kept contiguous.
llvm::Error emitSlice(Emitter &emitter, const ValuePlacement &placement,
                      tpu::SliceOp slice) {
  auto inputType = cast<ShapedType>(slice.getInput().getType());
  auto outputType = cast<ShapedType>(slice.getType());
  llvm::ArrayRef<int64_t> in = inputType.getShape(),
                          out = outputType.getShape();
  int64_t rank = inputType.getRank();
  if (rank == 0 || slice.getSteps().back() != 1)
    return opError(slice, "codegen slices the last axis with unit steps only");
  // Starts as the verifier normalizes them: negative counts from the end.
  llvm::SmallVector<int64_t> starts;
  for (auto [start, dim] : llvm::zip(slice.getStarts(), in))
    starts.push_back(start < 0 ? start + dim : start);
  // Rows stay contiguous when, past the first dimension kept partially,
  // every row dimension is kept whole.
  int64_t first = 0;
  while (first < rank - 1 && out[first] == 1)
    ++first;
  bool contiguous = llvm::all_of(slice.getSteps(),
                                 [](int64_t step) { return step == 1; });
  for (int64_t d = first + 1; d < rank - 1; ++d)
    contiguous &= out[d] == in[d];
  if (!contiguous) {
    llvm::SmallVector<int64_t> inStrides = getStrides(in),
                               outStrides = getStrides(out);
    llvm::SmallVector<CopyAxis> axes;
    int64_t begin = 0;
    for (int64_t d = 0; d < rank; ++d) {
      axes.push_back({out[d], inStrides[d] * slice.getSteps()[d], outStrides[d]});
      begin += starts[d] * inStrides[d];
    }
    llvm::Expected<cmd::GlobalTensor> input = placement.view(slice.getInput());
    if (!input)
      return input.takeError();
    llvm::Expected<cmd::GlobalTensor> output = placement.view(slice.getResult());
    if (!output)
      return output.takeError();
    cmd::GlobalTensor from = *input;
    from.set_offset(from.offset() +
                    begin * cmodel::getDTypeBytes(from.dtype(), 1));
    return emitStridedCopy(emitter, slice, from, *output, axes);
  }
  int64_t rowBegin = 0;
  for (int64_t d = 0; d < rank - 1; ++d)
    rowBegin = rowBegin * in[d] + starts[d];
  llvm::Expected<cmd::GlobalTensor> input =
      placement.view(slice.getInput(), in.back());
  if (!input)
    return input.takeError();
  llvm::Expected<cmd::GlobalTensor> output =
      placement.view(slice.getResult(), out.back());
  if (!output)
    return output.takeError();
  cmd::GlobalTensor from =
      sliceCols(sliceRows(*input, rowBegin, output->rows()), starts.back(),
                out.back());
  return emitCopy(emitter, from, *output);
}

/// The best `k` of each row's last axis, in two stages: each lane ranks the
/// columns it holds (`opcode`: ARGMAX for k = 1, else TOPK), the lanes'
/// candidates go through `scratch` to lane 0, which ranks them with their
/// column indices as the map. `values` may be null (arg-max keeps indices).
llvm::Error emitRanking(Emitter &emitter, const ValuePlacement &placement,
                        Operation *op, cmd::Opcode opcode, int64_t k,
                        Value input, Value values, Value indices) {
  auto type = cast<ShapedType>(input.getType());
  int64_t cols = type.getShape().back();
  llvm::Expected<cmd::GlobalTensor> x = placement.view(input, cols);
  if (!x)
    return x.takeError();
  std::optional<cmd::GlobalTensor> valuesOut;
  if (values) {
    llvm::Expected<cmd::GlobalTensor> view = placement.view(values, k);
    if (!view)
      return view.takeError();
    valuesOut = *view;
  }
  llvm::Expected<cmd::GlobalTensor> indicesOut = placement.view(indices, k);
  if (!indicesOut)
    return indicesOut.takeError();
  if (emitter.isUntiled()) {
    cmd::Compute compute = cmodel::makeCompute(opcode, {}, {});
    if (opcode == cmd::TOPK)
      compute.set_group(k);
    emitter.computeGlobal(compute, {*x},
                          {valuesOut.value_or(cmd::GlobalTensor()), *indicesOut});
    return llvm::Error::success();
  }
  auto scratch = op->getAttrOfType<tpu::MemAttr>("scratch");
  if (!scratch)
    return opError(op, "has no scratch: run tpu-address-assign first");
  int64_t lanes = emitter.getLanes();
  int64_t perLane = llvm::divideCeil(cols, lanes);
  int64_t usedLanes = llvm::divideCeil(cols, perLane);
  cmd::DType dtype = x->dtype();
  auto rank = [&](std::vector<cmd::LocalTensor> inputs,
                  std::vector<cmd::LocalTensor> outputs) {
    cmd::Compute compute = cmodel::makeCompute(opcode, inputs, outputs);
    if (opcode == cmd::TOPK)
      compute.set_group(k);
    emitter.compute(compute);
  };
  for (int64_t row = 0; row < x->rows(); ++row) {
    emitter.getArena().beginOp();
    cmd::LocalTensor source = emitter.colsLayout(1, cols, dtype, perLane);
    cmd::LocalTensor laneValues =
        emitter.colsLayout(1, usedLanes * k, dtype, k);
    cmd::LocalTensor laneIndices =
        emitter.colsLayout(1, usedLanes * k, cmd::DTYPE_I32, k);
    for (cmd::LocalTensor *tensor : {&source, &laneValues, &laneIndices})
      if (llvm::Error error = emitter.ring(*tensor))
        return error;
    emitter.load(sliceRows(*x, row, 1), source);
    rank({source}, {laneValues, laneIndices});
    // Values take at most 4 bytes, as the scratch size assumes.
    uint64_t base = scratch.getOffset() + row * 2 * lanes * k * 4;
    cmd::GlobalTensor valuesGlobal = cmodel::globalTensor(
        cmd::REGION_ACTIVATION, base, 1, usedLanes * k, dtype);
    cmd::GlobalTensor indicesGlobal =
        cmodel::globalTensor(cmd::REGION_ACTIVATION, base + lanes * k * 4, 1,
                             usedLanes * k, cmd::DTYPE_I32);
    emitter.store(laneValues, valuesGlobal);
    emitter.store(laneIndices, indicesGlobal);
    cmd::LocalTensor candidates =
        emitter.replicated(1, usedLanes * k, dtype, 1);
    cmd::LocalTensor map =
        emitter.replicated(1, usedLanes * k, cmd::DTYPE_I32, 1);
    cmd::LocalTensor bestValues = emitter.replicated(1, k, dtype, 1);
    cmd::LocalTensor bestIndices = emitter.replicated(1, k, cmd::DTYPE_I32, 1);
    for (cmd::LocalTensor *tensor :
         {&candidates, &map, &bestValues, &bestIndices})
      if (llvm::Error error = emitter.ring(*tensor))
        return error;
    emitter.load(valuesGlobal, candidates);
    emitter.load(indicesGlobal, map);
    rank({candidates, map}, {bestValues, bestIndices});
    if (valuesOut)
      emitter.store(bestValues, sliceRows(*valuesOut, row, 1));
    emitter.store(bestIndices, sliceRows(*indicesOut, row, 1));
  }
  return llvm::Error::success();
}

/// Whether `axis` names the last dimension of `value`.
bool isLastAxis(Value value, int64_t axis) {
  int64_t rank = cast<ShapedType>(value.getType()).getRank();
  return axis == -1 || axis == rank - 1;
}

llvm::Error emitArgMax(Emitter &emitter, const ValuePlacement &placement,
                       tpu::ArgOp arg) {
  // I64Attr axes read back unsigned.
  if (arg.getMode() != top::ArgMode::ArgMax ||
      !isLastAxis(arg.getInput(), static_cast<int64_t>(arg.getAxis())))
    return opError(arg, "codegen computes arg-max over the last axis only");
  return emitRanking(emitter, placement, arg, cmd::ARGMAX, 1, arg.getInput(),
                     nullptr, arg.getResult());
}

llvm::Error emitTopK(Emitter &emitter, const ValuePlacement &placement,
                     tpu::TopKOp topK) {
  if (!topK.getLargest() ||
      !isLastAxis(topK.getInput(), static_cast<int64_t>(topK.getAxis())))
    return opError(topK, "codegen ranks the largest over the last axis only");
  return emitRanking(emitter, placement, topK, cmd::TOPK,
                     static_cast<int64_t>(topK.getK()), topK.getInput(),
                     topK.getValues(), topK.getIndices());
}

/// Copies every input the address plan did not compute in place into its
/// slice of the output.
llvm::Error emitConcat(Emitter &emitter, const ValuePlacement &placement,
                       tpu::ConcatOp concat) {
  auto type = cast<ShapedType>(concat.getType());
  int64_t axis = concat.getAxis();
  int64_t inner = 1;
  for (int64_t dim : type.getShape().drop_front(axis))
    inner *= dim;
  llvm::Expected<cmd::GlobalTensor> output =
      placement.view(concat.getResult(), inner);
  if (!output)
    return output.takeError();
  int64_t column = 0;
  for (Value input : concat.getInputs()) {
    int64_t cols = getNumElements(input) / output->rows();
    llvm::Expected<cmd::GlobalTensor> from = placement.view(input, cols);
    if (!from)
      return from.takeError();
    cmd::GlobalTensor to = sliceCols(*output, column, cols);
    column += cols;
    if (from->region() == to.region() && from->offset() == to.offset())
      continue;
    if (llvm::Error error = emitCopy(emitter, *from, to))
      return error;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error emitDataMovementOp(Emitter &emitter,
                               const ValuePlacement &placement,
                               Operation *op) {
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](tpu::A16GatherOp gather) {
        return emitA16Gather(emitter, placement, gather);
      })
      .Case([&](tpu::GatherOp gather) {
        return emitGather(emitter, placement, gather);
      })
      .Case([&](tpu::ArgOp arg) { return emitArgMax(emitter, placement, arg); })
      .Case([&](tpu::TopKOp topK) { return emitTopK(emitter, placement, topK); })
      .Case([&](tpu::ScatterElementsOp scatter) {
        return emitScatter(emitter, placement, scatter);
      })
      .Case([&](tpu::SliceOp slice) {
        return emitSlice(emitter, placement, slice);
      })
      .Case([&](tpu::ConcatOp concat) {
        return emitConcat(emitter, placement, concat);
      })
      .Case([&](tpu::PermuteOp permute) {
        return emitPermute(emitter, placement, permute);
      })
      .Default([&](Operation *) {
        return opError(op, "is not a data-movement op");
      });
}

llvm::Error emitHeldGather(Emitter &emitter, const ValuePlacement &placement,
                           Operation *op, const cmd::LocalTensor &output) {
  auto gather = cast<tpu::GatherOp>(op);
  int64_t count = getNumElements(gather.getIndices());
  std::array<cmd::GlobalTensor, 2> views;
  if (llvm::Error error = viewGather(
          placement,
          {{gather.getTable(), output.cols()}, {gather.getIndices(), count}},
          views))
    return error;
  emitter.gather(views[0], views[1], output);
  return llvm::Error::success();
}

} // namespace llmc::codegen
