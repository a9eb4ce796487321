//===- Kernels.cpp - runs a compute command's kernel on its lanes ---------===//

#include "backends/common/cmodel/Kernels.h"

#include "backends/common/cmodel/Parallel.h"

namespace llmc::cmodel {

using kernels::LaneOperands;
using kernels::LaneView;

static void runLane(const cmd::Compute &compute, const LaneOperands &lane) {
  switch (compute.opcode()) {
  case cmd::MATMUL:
  case cmd::A16MATMUL:
    return kernels::matMul(compute, lane);
  case cmd::I8MATMUL:
    return kernels::int8MatMul(compute, lane);
  case cmd::DEQUANTIZE:
    return kernels::dequantizeRows(compute, lane);
  case cmd::ADD:
  case cmd::MUL:
  case cmd::DIV:
    return kernels::binary(compute, lane);
  case cmd::COMPARE:
    return kernels::compare(compute, lane);
  case cmd::SELECT:
    return kernels::select(compute, lane);
  case cmd::TOPK:
    return kernels::topK(compute, lane);
  case cmd::CUMSUM:
    return kernels::cumSum(compute, lane);
  case cmd::RMSNORM:
    return kernels::rmsNorm(compute, lane);
  case cmd::LAYERNORM:
    return kernels::layerNorm(compute, lane);
  case cmd::ROPE:
    return kernels::rope(compute, lane);
  case cmd::SOFTMAX:
    return kernels::softmax(compute, lane);
  case cmd::ATTENTION:
    return kernels::attention(compute, lane);
  case cmd::ARGMAX:
    return kernels::argMax(compute, lane);
  default:
    return kernels::unary(compute, lane);
  }
}

void runComputeKernels(const cmd::Compute &compute,
                       const ComputeOperands &operands, LocalMemory &memory,
                       const LaneRunner &runner, bool parallel) {
  const LocalGeometry &primary = *operands.getPrimaryOutput();
  std::vector<int64_t> lanes;
  for (int64_t lane = primary.laneBegin; lane < primary.laneEnd; ++lane)
    if (!primary.getBlock(lane).empty())
      lanes.push_back(lane);

  auto views = [&](const std::vector<std::optional<LocalGeometry>> &tensors,
                   int64_t lane) {
    std::vector<std::optional<LaneView>> result(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i])
        result[i] = LaneView{&*tensors[i], tensors[i]->getBlock(lane),
                             memory.getLane(lane) + tensors[i]->address};
    return result;
  };
  runner.forEach(lanes.size(), parallel, [&](int64_t i) {
    int64_t lane = lanes[i];
    LaneOperands laneOperands{views(operands.inputs, lane),
                              views(operands.outputs, lane),
                              primary.getBlock(lane)};
    runLane(compute, laneOperands);
  });
}

} // namespace llmc::cmodel
