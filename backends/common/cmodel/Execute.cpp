//===- Execute.cpp - runs one DMA or compute command ----------------------===//

#include "backends/common/cmodel/Execute.h"

#include "backends/common/cmodel/Convert.h"
#include "backends/common/cmodel/Kernels.h"

#include "support/Strings.h"

#include <cstring>

namespace llmc::cmodel {

/// Checks the operands of `dma`; for a GATHER or SCATTER, reads its indices
/// into `rows` (trapping on any outside the table).
static absl::Status checkDma(const cmd::Dma &dma, const GlobalGeometry &global,
                             const LocalGeometry &local,
                             const GlobalGeometry *index,
                             const GlobalMemory &memory,
                             std::vector<int64_t> &rows) {
  if (global.dtype != local.dtype)
    return makeTrap(TrapKind::DTypeMismatch,
                    support::strCat(global.describe(), " and ",
                                    local.describe(),
                                    " differ in type; a DMA does not convert"));
  if (!index && (global.rows != local.rows || global.cols != local.cols))
    return makeTrap(TrapKind::BadOperand,
                    support::strCat(global.describe(), " and ",
                                    local.describe(), " differ in shape"));
  if (index) {
    if (index->dtype != cmd::DTYPE_I32)
      return makeTrap(TrapKind::DTypeMismatch,
                      support::strCat(index->describe(), " must be i32"));
    if (index->rows * index->cols != local.rows || global.cols != local.cols)
      return makeTrap(TrapKind::BadOperand,
                      support::strCat("a gather or scatter of ",
                                      index->describe(), " rows of ",
                                      global.describe(), " does not match ",
                                      local.describe()));
  }
  bool write = dma.kind() == cmd::Dma::STORE || dma.kind() == cmd::Dma::SCATTER;
  LLMC_RETURN_IF_ERROR(memory.checkAccess(global, write));
  if (!index)
    return absl::OkStatus();
  LLMC_RETURN_IF_ERROR(memory.checkAccess(*index, /*write=*/false));
  const uint8_t *base = memory.getData(index->region) + index->offset;
  for (int64_t r = 0; r < index->rows; ++r)
    for (int64_t c = 0; c < index->cols; ++c) {
      int32_t row = readIntElement(cmd::DTYPE_I32, base + r * index->stride, c);
      if (row < 0 || row >= global.rows)
        return makeTrap(
            TrapKind::OutOfBounds,
            support::strCat(dma.kind() == cmd::Dma::GATHER ? "gathered"
                                                           : "scattered",
                            " index ", row, " (element ", rows.size(), " of ",
                            index->describe(), ") is outside the ", global.rows,
                            " rows of ", global.describe()));
      rows.push_back(row);
    }
  return absl::OkStatus();
}

absl::StatusOr<CommandCost> executeDma(const cmd::Dma &dma, Device &device,
                                       const CommandContext &context,
                                       RunStats &stats) {
  if (!cmd::Dma::Kind_IsValid(dma.kind()))
    return makeTrap(TrapKind::BadOperand, "invalid DMA kind");
  // GATHER reads and SCATTER writes global rows by index.
  bool indexed =
      dma.kind() == cmd::Dma::GATHER || dma.kind() == cmd::Dma::SCATTER;
  bool store = dma.kind() == cmd::Dma::STORE || dma.kind() == cmd::Dma::SCATTER;
  auto global = GlobalGeometry::create(dma.global(), "global");
  if (!global.ok())
    return global.status();
  auto local = LocalGeometry::create(dma.local(), device.chip, "local");
  if (!local.ok())
    return local.status();
  std::optional<GlobalGeometry> index;
  if (indexed) {
    auto created = GlobalGeometry::create(dma.index(), "index");
    if (!created.ok())
      return created.status();
    index = std::move(*created);
  }
  std::vector<int64_t> rows;
  LLMC_RETURN_IF_ERROR(checkDma(dma, *global, *local, index ? &*index : nullptr,
                                device.global, rows));
  // A replicated tensor stores its first lane's copy, and reads no other.
  LocalGeometry touched = *local;
  if (store && local->layout == cmd::LAYOUT_REPLICATED)
    touched.laneEnd = touched.laneBegin + 1;
  LLMC_RETURN_IF_ERROR(device.sync.check(touched, /*write=*/!store, context.ref,
                                         context.clock, context.namer));

  CommandCost cost = device.time.getDmaCost(*global, index ? &*index : nullptr);
  int64_t laneEnd = touched.laneEnd;
  uint8_t *globalBase =
      store ? device.global.getMutableData(global->region)
            : const_cast<uint8_t *>(device.global.getData(global->region));
  globalBase += global->offset;
  // A scatter runs its lanes in order, each its rows in order, so the last
  // of several rows naming one global row wins.
  bool parallel =
      cost.hostWork >= kParallelWork && dma.kind() != cmd::Dma::SCATTER;
  device.runner.forEach(laneEnd - local->laneBegin, parallel, [&](int64_t i) {
    int64_t lane = local->laneBegin + i;
    LaneBlock block = local->getBlock(lane);
    if (block.empty())
      return;
    // Lanes split 4-bit columns evenly, so every block starts a byte.
    uint64_t column = getDTypeBytes(local->dtype, block.colBegin);
    uint64_t bytes = getDTypeBytes(local->dtype, block.colCount);
    uint8_t *localRow = device.local.getLane(lane) + local->address;
    for (int64_t r = block.rowBegin; r < block.rowEnd();
         ++r, localRow += local->stride) {
      int64_t source = indexed ? rows[r] : r;
      uint8_t *globalRow = globalBase + source * global->stride + column;
      if (store)
        std::memcpy(globalRow, localRow, bytes);
      else
        std::memcpy(localRow, globalRow, bytes);
    }
  });
  device.sync.record(touched, /*write=*/!store, context.ref);

  uint64_t tensorBytes = local->rows * getDTypeBytes(local->dtype, local->cols);
  (store ? stats.bytesStored : stats.bytesLoaded) += tensorBytes;
  stats.ddrBytes += cost.ddrBytes;
  return cost;
}

absl::StatusOr<CommandCost> executeCompute(const cmd::Compute &compute,
                                           Device &device,
                                           const CommandContext &context) {
  auto operands = createComputeOperands(compute, device.chip);
  if (!operands.ok())
    return operands.status();
  LLMC_RETURN_IF_ERROR(checkComputeRules(compute, *operands));
  auto cost = device.time.getComputeCost(compute, *operands);
  if (!cost.ok())
    return cost.status();

  for (const auto &input : operands->inputs)
    if (input)
      LLMC_RETURN_IF_ERROR(device.sync.check(*input, false, context.ref,
                                             context.clock, context.namer));
  for (size_t i = 0; i < operands->outputs.size(); ++i) {
    const LocalGeometry *output = operands->getOutput(i);
    if (!output)
      continue;
    if (readsOutput(compute, i))
      LLMC_RETURN_IF_ERROR(device.sync.check(*output, false, context.ref,
                                             context.clock, context.namer));
    LLMC_RETURN_IF_ERROR(device.sync.check(*output, true, context.ref,
                                           context.clock, context.namer));
  }

  runComputeKernels(compute, *operands, device.local, device.runner,
                    cost->hostWork >= kParallelWork);

  for (const auto &input : operands->inputs)
    if (input)
      device.sync.record(*input, false, context.ref);
  for (const auto &output : operands->outputs)
    if (output)
      device.sync.record(*output, true, context.ref);
  return *cost;
}

} // namespace llmc::cmodel
