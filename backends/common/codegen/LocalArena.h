//===- LocalArena.h - local-memory allocation for codegen -------*- C++ -*-===//
//
// Per-lane local memory as codegen hands it out: buffers an op keeps for its
// whole run are pinned at the top; streamed tiles come from a ring below
// them. The ring's position survives from op to op, so a new tile usually
// lands where nothing is still being read, and the next op's first loads
// overlap the previous op's last computations. Reuse is always safe: the
// hazard tracker makes every command wait for the last use of the bytes it
// overwrites. What the ring must not do is hand out bytes a tile still
// needs: callers size tiles to a fraction of ringCapacity() and finish
// issuing a tile's commands before allocating far ahead.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_LOCALARENA_H
#define LLMC_BACKENDS_COMMON_CODEGEN_LOCALARENA_H

#include "llvm/Support/Error.h"

#include <cstdint>

namespace llmc::codegen {

class LocalArena {
public:
  /// `laneBytes` of local memory per lane, every buffer `alignment`-aligned.
  LocalArena(uint64_t laneBytes, uint64_t alignment);

  /// Releases the pinned buffers of the previous op.
  void beginOp();
  /// A buffer for the rest of the op; an error when it leaves the ring less
  /// than a quarter of the lane.
  llvm::Expected<uint64_t> pin(uint64_t bytes);
  /// A streamed tile's buffer from the ring (wrapping to its start).
  llvm::Expected<uint64_t> ring(uint64_t bytes);
  /// Bytes below the pinned buffers.
  uint64_t ringCapacity() const { return pinnedBase; }
  uint64_t getAlignment() const { return alignment; }
  uint64_t getLaneBytes() const { return laneBytes; }

private:
  uint64_t laneBytes;
  uint64_t alignment;
  uint64_t pinnedBase;
  uint64_t ringNext = 0;
};

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_LOCALARENA_H
