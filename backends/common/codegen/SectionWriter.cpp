//===- SectionWriter.cpp - a piece's commands, core by core ---------------===//

#include "backends/common/codegen/SectionWriter.h"

#include "llvm/Support/MathExtras.h"

namespace llmc::codegen {

CoreRange getCoreRange(int64_t extent, int64_t cores, int64_t core,
                       int64_t align) {
  int64_t share = llvm::alignTo(llvm::divideCeil(extent, cores),
                                std::max<int64_t>(align, 1));
  int64_t begin = std::min(extent, core * share);
  return {begin, std::min(extent - begin, share)};
}

SectionWriter::SectionWriter(const plugins::ChipDescriptor &chip,
                             llvm::StringRef name)
    : chip(chip), name(name.str()),
      current(std::make_unique<Emitter>(chip, name)) {}

static void moveQueues(cmd::CommandStream &stream, cmd::CoreCommands &core) {
  core.mutable_dma_queue()->Swap(stream.mutable_dma_queue());
  core.mutable_compute_queue()->Swap(stream.mutable_compute_queue());
}

void SectionWriter::closeSerial() {
  cmd::CommandStream stream = current->finish();
  current = std::make_unique<Emitter>(chip, name);
  if (stream.dma_queue().empty() && stream.compute_queue().empty())
    return;
  cmd::Section &section = sections.emplace_back();
  moveQueues(stream, *section.add_cores());
}

llvm::Error SectionWriter::parallel(
    int64_t cores, llvm::function_ref<llvm::Error(Emitter &, int64_t)> emit) {
  closeSerial();
  cmd::Section section;
  for (int64_t core = 0; core < cores; ++core) {
    Emitter emitter(chip, name);
    if (llvm::Error error = emit(emitter, core))
      return error;
    cmd::CommandStream stream = emitter.finish();
    moveQueues(stream, *section.add_cores());
  }
  sections.push_back(std::move(section));
  return llvm::Error::success();
}

cmd::CommandStream SectionWriter::finish() {
  if (sections.empty())
    return current->finish();
  closeSerial();
  cmd::CommandStream stream;
  stream.set_version(2);
  stream.set_name(name);
  for (cmd::Section &section : sections)
    *stream.add_sections() = std::move(section);
  sections.clear();
  return stream;
}

} // namespace llmc::codegen
