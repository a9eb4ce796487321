//===- StreamRelocation.cpp - one layer's stream for another --------------===//

#include "backends/common/compile/StreamRelocation.h"

#include "dialects/tpu/IR/TpuTraits.h"

#include <algorithm>

namespace llmc::compile {

cmd::CommandStream relocateStream(const cmd::CommandStream &stream,
                                  llvm::ArrayRef<WeightUse> from,
                                  llvm::ArrayRef<WeightUse> to,
                                  const codegen::WeightOffsets &offsets) {
  std::vector<CoeffMove> moves;
  for (auto [source, target] : llvm::zip(from, to)) {
    uint64_t begin = offsets.lookup(source.name);
    uint64_t bytes = tpu::getTensorBytes(source.type).value_or(1);
    moves.push_back({begin, begin + bytes,
                     static_cast<int64_t>(offsets.lookup(target.name)) -
                         static_cast<int64_t>(begin)});
  }
  return relocateCoeff(stream, std::move(moves));
}

cmd::CommandStream relocateCoeff(const cmd::CommandStream &stream,
                                 std::vector<CoeffMove> moves) {
  llvm::sort(moves, [](const CoeffMove &a, const CoeffMove &b) {
    return a.begin < b.begin;
  });
  auto relocate = [&](cmd::GlobalTensor *tensor) {
    if (tensor->region() != cmd::REGION_COEFF)
      return;
    auto it = std::upper_bound(moves.begin(), moves.end(), tensor->offset(),
                               [](uint64_t offset, const CoeffMove &move) {
                                 return offset < move.begin;
                               });
    if (it == moves.begin())
      return;
    --it;
    if (tensor->offset() < it->end)
      tensor->set_offset(tensor->offset() + it->delta);
  };
  auto relocateQueue =
      [&](google::protobuf::RepeatedPtrField<cmd::Command> &queue) {
        for (cmd::Command &command : queue) {
          if (!command.has_dma())
            continue;
          relocate(command.mutable_dma()->mutable_global());
          if (command.dma().has_index())
            relocate(command.mutable_dma()->mutable_index());
        }
      };
  cmd::CommandStream relocated = stream;
  relocateQueue(*relocated.mutable_dma_queue());
  for (cmd::Section &section : *relocated.mutable_sections())
    for (cmd::CoreCommands &core : *section.mutable_cores())
      relocateQueue(*core.mutable_dma_queue());
  for (cmd::HostCommand &command : *relocated.mutable_host_commands())
    for (auto *operands :
         {command.mutable_inputs(), command.mutable_outputs()})
      for (cmd::GlobalTensor &tensor : *operands)
        relocate(&tensor);
  return relocated;
}

} // namespace llmc::compile
