//===- LocalArena.h - local-memory allocation for codegen -------*- C++ -*-===//
//
// Per-lane local memory as codegen hands it out: buffers a layer group
// keeps for all its ops are held at the top, where the layer-group pass
// placed them; buffers an op keeps for its whole run are pinned below them;
// streamed tiles come from a ring below those. The ring's position survives
// from op to op, so a new tile usually lands where nothing is still being read,
// and the next op's first loads overlap the previous op's last computations.
// Reuse is always safe: the hazard tracker makes every command wait for the
// last use of the bytes it overwrites. What the ring must not do is hand out
// bytes a tile still needs: callers size tiles to a fraction of ringCapacity()
// and finish issuing a tile's commands before allocating far ahead.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_BACKENDS_COMMON_CODEGEN_LOCALARENA_H
#define LLMC_BACKENDS_COMMON_CODEGEN_LOCALARENA_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace llmc::codegen {

class LocalArena {
public:
  /// `laneBytes` of local memory per lane, every buffer `alignment`-aligned.
  LocalArena(uint64_t laneBytes, uint64_t alignment);

  /// Releases the pinned buffers of the previous op.
  void beginOp();
  /// Holds `[address, address + bytes)` for the ops of a layer group, until
  /// endGroup(): an error when it is not within the lane, overlaps a held
  /// buffer or leaves ops less than half the lane.
  llvm::Error hold(uint64_t address, uint64_t bytes);
  /// Releases the held buffers (and the previous op's pinned ones).
  void endGroup();
  /// A buffer for the rest of the op; an error when it leaves the ring less
  /// than a quarter of the lane.
  llvm::Expected<uint64_t> pin(uint64_t bytes);
  /// A streamed tile's buffer from the ring (wrapping to its start).
  llvm::Expected<uint64_t> ring(uint64_t bytes);
  /// Where ring(bytes) would place a tile, without taking it; none when the
  /// tile exceeds the streaming bytes.
  std::optional<uint64_t> peekRing(uint64_t bytes) const;
  /// Bytes below the pinned buffers.
  uint64_t ringCapacity() const { return pinnedBase; }
  uint64_t getAlignment() const { return alignment; }
  /// The bytes of a lane an op may use: below the held buffers.
  uint64_t getLaneBytes() const { return heldBase; }

private:
  uint64_t laneBytes;
  uint64_t alignment;
  uint64_t heldBase;
  uint64_t pinnedBase;
  uint64_t ringNext = 0;
};

} // namespace llmc::codegen

#endif // LLMC_BACKENDS_COMMON_CODEGEN_LOCALARENA_H
