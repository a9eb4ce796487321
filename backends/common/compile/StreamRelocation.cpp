//===- StreamRelocation.cpp - one layer's stream for another --------------===//

#include "backends/common/compile/StreamRelocation.h"

#include "dialects/tpu/IR/TpuTraits.h"

#include <algorithm>

namespace llmc::compile {

cmd::CommandStream relocateStream(const cmd::CommandStream &stream,
                                  llvm::ArrayRef<WeightUse> from,
                                  llvm::ArrayRef<WeightUse> to,
                                  const codegen::WeightOffsets &offsets) {
  struct Move {
    uint64_t begin, end;
    int64_t delta;
  };
  std::vector<Move> moves;
  for (auto [source, target] : llvm::zip(from, to)) {
    uint64_t begin = offsets.lookup(source.name);
    uint64_t bytes = tpu::getTensorBytes(source.type).value_or(1);
    moves.push_back({begin, begin + bytes,
                     static_cast<int64_t>(offsets.lookup(target.name)) -
                         static_cast<int64_t>(begin)});
  }
  llvm::sort(moves, [](const Move &a, const Move &b) {
    return a.begin < b.begin;
  });
  auto relocate = [&](cmd::GlobalTensor *tensor) {
    if (tensor->region() != cmd::REGION_COEFF)
      return;
    auto it = std::upper_bound(
        moves.begin(), moves.end(), tensor->offset(),
        [](uint64_t offset, const Move &move) { return offset < move.begin; });
    if (it == moves.begin())
      return;
    --it;
    if (tensor->offset() < it->end)
      tensor->set_offset(tensor->offset() + it->delta);
  };
  cmd::CommandStream relocated = stream;
  for (cmd::Command &command : *relocated.mutable_dma_queue()) {
    if (!command.has_dma())
      continue;
    relocate(command.mutable_dma()->mutable_global());
    if (command.dma().has_index())
      relocate(command.mutable_dma()->mutable_index());
  }
  return relocated;
}

} // namespace llmc::compile
