//===- SectionWriter.h - a piece's commands, core by core -------*- C++ -*-===//
//
// Codegen writes most ops on one core, through one Emitter whose state
// (local memory ring, pending stores, hazards) carries from op to op. An op
// split across cores gets a section of its own (docs/command-stream.md,
// section 3): the serial commands before it end theirs, every core writes
// its share through a fresh Emitter, and the section's barrier orders it
// before whatever follows. Without a split op the stream stays version 1.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_SECTIONWRITER_H
#define LLMC_BACKENDS_COMMON_CODEGEN_SECTIONWRITER_H

#include "backends/common/codegen/Emitter.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>

namespace llmc::codegen {

/// The part [begin, begin + count) of `extent` that `core` of `cores`
/// computes: equal parts rounded up to `align`, the last core taking what
/// remains (count 0 when nothing does).
struct CoreRange {
  int64_t begin = 0;
  int64_t count = 0;
};
CoreRange getCoreRange(int64_t extent, int64_t cores, int64_t core,
                       int64_t align);

class SectionWriter {
public:
  SectionWriter(const plugins::ChipDescriptor &chip, llvm::StringRef name);

  const plugins::ChipDescriptor &getChip() const { return chip; }
  /// The emitter of the single-core commands.
  Emitter &serial() { return *current; }
  /// Ends the serial commands' section, then writes a section in which
  /// `emit(emitter, core)` writes each of `cores` cores' commands.
  llvm::Error
  parallel(int64_t cores,
           llvm::function_ref<llvm::Error(Emitter &, int64_t)> emit);
  /// The stream: version 1 unless some section is parallel.
  cmd::CommandStream finish();

private:
  /// Moves the serial commands (if any) into a section of one core.
  void closeSerial();

  plugins::ChipDescriptor chip;
  std::string name;
  std::unique_ptr<Emitter> current;
  std::vector<cmd::Section> sections;
};

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_SECTIONWRITER_H
