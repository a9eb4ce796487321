//===- TimeModel.cpp - modelled cycles of commands ------------------------===//

#include "backends/common/cmodel/TimeModel.h"

#include "backends/common/cmodel/Trap.h"

#include "support/Strings.h"

#include <algorithm>
#include <cmath>

namespace llmc::cmodel {

TimeModel::TimeModel(const plugins::ChipDescriptor &chip,
                     const TimeModelParams &params)
    : chip(chip), params(params), clockMHz(chip.clockMHz) {
  // GB/s over cycles/s: bytes per cycle.
  ddrBytesPerCycle = chip.ddrBandwidthGBps * 1e9 / (clockMHz * 1e6);
  dmaLatencyCycles =
      uint64_t(std::llround(params.dmaLatencyNs * clockMHz / 1e3));
  coreSyncCycles = uint64_t(std::llround(params.coreSyncNs * clockMHz / 1e3));
}

uint64_t TimeModel::getSectionCycles(uint64_t slowestCore, uint64_t ddrBytes,
                                     int64_t cores) const {
  if (cores <= 1)
    return slowestCore;
  uint64_t ddrBound = uint64_t(std::ceil(double(ddrBytes) / ddrBytesPerCycle));
  return std::max(slowestCore, ddrBound) + coreSyncCycles;
}

double TimeModel::getMacsPerCycle(DType type) const {
  double teraOps = 0;
  switch (type) {
  case cmd::DTYPE_F32:
    teraOps = chip.f32Tflops;
    break;
  case cmd::DTYPE_F16:
    teraOps = chip.f16Tflops;
    break;
  case cmd::DTYPE_BF16:
    teraOps = chip.bf16Tflops;
    break;
  default:
    teraOps = chip.int8Tops;
    break;
  }
  // A multiply-accumulate is two operations; the peak is the chip's, shared
  // by the lanes of all its cores.
  return teraOps * 1e12 / 2 / (clockMHz * 1e6) /
         double(chip.npuLanes * std::max<int64_t>(chip.cores, 1));
}

double TimeModel::getVectorElementsPerCycle(DType type) const {
  return double(chip.euBytesPerLane) /
         std::max<double>(getDTypeBits(type) / 8.0, 1.0);
}

CommandCost TimeModel::getDmaCost(const GlobalGeometry &global,
                                  const GlobalGeometry *index) const {
  CommandCost cost;
  uint64_t burst = params.ddrBurstBytes;
  if (index)
    // A gather reads the rows it picks (each on its own bursts), not the
    // table, plus its indices.
    cost.ddrBytes = index->rows * index->cols *
                        ((global.rowBytes + burst - 1) / burst * burst) +
                    index->rows * index->rowBytes;
  else if (global.isContiguous())
    cost.ddrBytes = global.rows * global.rowBytes;
  else
    cost.ddrBytes =
        global.rows * ((global.rowBytes + burst - 1) / burst * burst);
  cost.cycles = dmaLatencyCycles +
                uint64_t(std::ceil(double(cost.ddrBytes) / ddrBytesPerCycle));
  cost.hostWork = cost.ddrBytes;
  return cost;
}

namespace {
/// Per-lane work of a compute command, split by unit.
struct LaneWork {
  uint64_t macs = 0;
  /// Vector-unit element operations (elements times operations each).
  uint64_t vectorOps = 0;
};
} // namespace

/// Element operations per output element of the row-local opcodes: one
/// for a single arithmetic step, more for transcendental functions and
/// reductions (a fixed assumption of the model, stated in the docs).
/// The ceiling of log2(value): 0 for 1, 64 for 0 (as LLVM's Log2_64_Ceil).
static uint64_t ceilLog2(uint64_t value) {
  return value <= 1 ? (value == 0 ? 64 : 0) : 64 - __builtin_clzll(value - 1);
}

static uint64_t getVectorOpsPerElement(cmd::Opcode opcode) {
  switch (opcode) {
  case cmd::SILU:
  case cmd::TANH:
    return 4;
  case cmd::GELU:
    return 6;
  case cmd::DEQUANTIZE:
    // A subtraction and a multiplication, as A16MATMUL's dequantization.
    return 2;
  case cmd::RMSNORM:
  case cmd::ROPE:
    return 3;
  case cmd::LAYERNORM:
    return 5;
  case cmd::SOFTMAX:
    return 5;
  case cmd::DIV:
    // A reciprocal estimate, two refinement steps and the product.
    return 4;
  default:
    return 1;
  }
}

static LaneWork getLaneWork(const cmd::Compute &compute,
                            const ComputeOperands &ops, int64_t lane,
                            const LaneBlock &b) {
  LaneWork work;
  uint64_t elements = uint64_t(b.rowCount) * b.colCount;
  switch (compute.opcode()) {
  case cmd::MATMUL:
  case cmd::A16MATMUL: {
    uint64_t k = ops.getInput(0)->cols;
    work.macs = elements * k;
    if (ops.getInput(compute.opcode() == cmd::MATMUL ? 2 : 4) ||
        compute.accumulate())
      work.vectorOps += elements;
    // Dequantizing a weight element: a subtraction and a multiplication.
    if (compute.opcode() == cmd::A16MATMUL)
      work.vectorOps += 2 * uint64_t(b.colCount) * k;
    break;
  }
  case cmd::I8MATMUL: {
    // Integer products on the int8 peak; one float multiply per output
    // dequantizes the int32 sum, one more adds a bias or the old output.
    work.macs = elements * ops.getInput(0)->cols;
    work.vectorOps = elements;
    if (ops.getInput(3) || compute.accumulate())
      work.vectorOps += elements;
    break;
  }
  case cmd::ATTENTION: {
    uint64_t headDim = compute.group(), keys = ops.getInput(1)->rows;
    uint64_t rowsHeads = uint64_t(b.rowCount) * (b.colCount / headDim);
    // q k^T and p v; then per score: scale, mask, max, exp, sum; per output
    // element: rescale and normalize.
    work.macs = 2 * rowsHeads * keys * headDim;
    work.vectorOps = 5 * rowsHeads * keys + 2 * elements;
    // Soft-capping: a division, a tanh (as TANH) and a product per score.
    if (compute.softcap() > 0.0)
      work.vectorOps += (2 + getVectorOpsPerElement(cmd::TANH)) * rowsHeads * keys;
    break;
  }
  case cmd::ARGMAX: {
    LaneBlock source = ops.getInput(0)->getBlock(lane);
    work.vectorOps = uint64_t(b.rowCount) * source.colCount;
    break;
  }
  case cmd::TOPK: {
    // Every input element the lane holds meets a heap of k candidates.
    LaneBlock source = ops.getInput(0)->getBlock(lane);
    uint64_t depth = std::max<uint64_t>(1, ceilLog2(compute.group()));
    work.vectorOps = uint64_t(b.rowCount) * source.colCount * depth;
    break;
  }
  default:
    work.vectorOps = elements * getVectorOpsPerElement(compute.opcode());
    break;
  }
  return work;
}

/// The element type the vector unit works in: softmax arithmetic of
/// attention in f32, a conversion at the wider type's rate, else the output.
static DType getVectorType(const cmd::Compute &compute,
                           const ComputeOperands &ops) {
  const LocalGeometry &output = *ops.getPrimaryOutput();
  switch (compute.opcode()) {
  case cmd::ATTENTION:
    return cmd::DTYPE_F32;
  case cmd::CAST:
  case cmd::COPY:
  case cmd::ARGMAX:
  case cmd::TOPK:
  case cmd::COMPARE:
    return getDTypeBits(ops.getInput(0)->dtype) > getDTypeBits(output.dtype)
               ? ops.getInput(0)->dtype
               : output.dtype;
  default:
    return output.dtype;
  }
}

absl::StatusOr<CommandCost>
TimeModel::getComputeCost(const cmd::Compute &compute,
                          const ComputeOperands &ops) const {
  const LocalGeometry &primary = *ops.getPrimaryOutput();
  // The matrix unit works in the activation (first input) type.
  DType matrixType = ops.getInput(0)->dtype;
  DType vectorType = getVectorType(compute, ops);
  double vectorRate = getVectorElementsPerCycle(vectorType);
  CommandCost cost;
  uint64_t busiest = 0;
  for (int64_t lane = primary.laneBegin; lane < primary.laneEnd; ++lane) {
    LaneBlock block = primary.getBlock(lane);
    if (block.empty())
      continue;
    LaneWork work = getLaneWork(compute, ops, lane, block);
    double cycles = std::ceil(double(work.vectorOps) / vectorRate);
    if (work.macs) {
      double macRate = getMacsPerCycle(matrixType);
      if (macRate <= 0)
        return makeTrap(TrapKind::Unsupported,
                        support::strCat("the chip has no ",
                                        getDTypeName(matrixType),
                                        " throughput for ",
                                        getOpcodeName(compute.opcode())));
      cycles += std::ceil(double(work.macs) / macRate);
    }
    busiest = std::max(busiest, uint64_t(cycles));
    cost.macs += work.macs;
    cost.hostWork += work.macs + work.vectorOps;
  }
  cost.cycles = params.computeIssueCycles + busiest;
  return cost;
}

} // namespace llmc::cmodel
